"""What watch prints to a file or a CI log: whole lines."""

from __future__ import annotations

import io

from generator.commands.watch import watch_console


def test_a_long_line_to_a_file_is_not_cut_at_80_columns() -> None:
    out = io.StringIO()
    line = "rebuilt after GET /products/123 changed: " + "x" * 150
    watch_console(out).print(line)
    assert out.getvalue() == line + "\n"
