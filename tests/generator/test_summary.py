"""The summary a build prints: the rate window's budget, earlier builds' requests included."""

from __future__ import annotations

import dataclasses
import io
from collections import Counter
from pathlib import Path

from rich.console import Console

from generator.console import PlainConsole
from generator.summary import Budget, BuildSummary, print_summary


def a_summary(pages: Counter[str], budget: Budget | None = None) -> BuildSummary:
    return BuildSummary(
        out_dir=Path("out"),
        pages_by_kind=pages,
        files=5,
        bytes=1000,
        sitemap_files=("sitemap.xml",),
        requests=248,
        retries=0,
        rate_limited=0,
        waited_seconds=0.0,
        skipped=(),
        seconds=1.0,
        source="https://api.example.vn/public/v1",
        budget=budget,
    )


def printed(budget: Budget | None) -> str:
    summary = a_summary(Counter({"product": 3}), budget)
    text = io.StringIO()
    print_summary(summary, Console(file=text, width=120))
    return text.getvalue()


def test_the_hour_used_is_shown_with_its_limit() -> None:
    text = printed(Budget(used=4812, limit=20_000, seconds=3600.0))
    assert "requests in the last hour (earlier builds too)" in text
    assert "4,812 of 20,000 (24%)" in text


def test_no_budget_line_without_an_api() -> None:
    assert "requests in the last" not in printed(None)


def test_without_a_terminal_the_summary_is_plain_aligned_lines() -> None:
    summary = a_summary(Counter({"product": 3, "category": 12}))
    text = io.StringIO()
    print_summary(summary, PlainConsole(text))
    lines = text.getvalue().splitlines()
    assert lines[0] == "Built out from https://api.example.vn/public/v1"
    assert "  pages: product" in lines[2] and lines[2].endswith(" 3")
    assert lines[3].startswith("  pages in all ") and lines[3].endswith(" 15")
    # The output's files, whether this build wrote them or kept them from the last.
    assert lines[5].startswith("  files in the output ")
    # One column of labels, one of right-aligned counts; then when the pages change by time.
    assert len({len(line) for line in lines[1:-1]}) == 1
    assert lines[-1] == "next scheduled rebuild: none"
    assert not any("─" in line or "│" in line for line in lines)


def test_the_seconds_show_where_they_went() -> None:
    phases = (("crawl", 10.12), ("plan", 0.214), ("render and write", 2.3))
    summary = dataclasses.replace(a_summary(Counter({"product": 3})), seconds=12.7, phases=phases)
    text = io.StringIO()
    print_summary(summary, PlainConsole(text))
    seconds = next(line for line in text.getvalue().splitlines() if "seconds  " in line)
    assert seconds.endswith(" 12.7 (crawl 10.1, plan 0.21, render and write 2.3)")


def test_a_rebuild_says_how_many_pages_it_rendered_and_kept() -> None:
    summary = dataclasses.replace(
        a_summary(Counter({"product": 3, "category": 12})), rendered=2, kept=13, deleted=1
    )
    text = io.StringIO()
    print_summary(summary, PlainConsole(text))
    row = next(line for line in text.getvalue().splitlines() if "pages rendered" in line)
    assert row.startswith("  pages rendered, kept, deleted ") and row.endswith(" 2, 13, 1")
