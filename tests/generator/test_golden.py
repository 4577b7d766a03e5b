"""The whole output of the fixture store, file by file, against tests/generator/golden/.

A deliberate change to the theme or the generator changes this output: review the diff, then
accept it with ``UPDATE_GOLDEN=1 pytest tests/generator/test_golden.py``.

Theme assets (``_assets/``) are copied verbatim and left out: test_write covers the copy, and a
change to the stylesheet still shows here through its ``?v=<hash>`` in every page.
"""

from __future__ import annotations

import difflib
import os
import shutil
from pathlib import Path

from tests.support.fixture_site import build_site

GOLDEN = Path(__file__).resolve().parent / "golden"
MAX_DIFF_LINES = 80
LEFT_OUT = "_assets"


def tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.relative_to(root).parts[0] != LEFT_OUT
    }


def differences(expected: dict[str, bytes], actual: dict[str, bytes]) -> list[str]:
    """Readable lines: files missing or extra, and a unified diff of each changed file."""
    lines: list[str] = []
    for name in sorted(expected.keys() - actual.keys()):
        lines.append(f"missing from the build: {name}")
    for name in sorted(actual.keys() - expected.keys()):
        lines.append(f"not in the golden tree: {name}")
    for name in sorted(expected.keys() & actual.keys()):
        if expected[name] == actual[name]:
            continue
        diff = list(
            difflib.unified_diff(
                expected[name].decode("utf-8", "replace").splitlines(),
                actual[name].decode("utf-8", "replace").splitlines(),
                fromfile=f"golden/{name}",
                tofile=f"build/{name}",
                lineterm="",
            )
        )
        lines += diff[:MAX_DIFF_LINES]
        if len(diff) > MAX_DIFF_LINES:
            lines.append(f"... {len(diff) - MAX_DIFF_LINES} more diff lines in {name}")
    return lines


def test_fixture_store_output_matches_the_golden_tree(tmp_path: Path) -> None:
    out = tmp_path / "output"
    build_site(out)
    if os.environ.get("UPDATE_GOLDEN") == "1":
        shutil.rmtree(GOLDEN, ignore_errors=True)
        shutil.copytree(out, GOLDEN, ignore=shutil.ignore_patterns(LEFT_OUT))
    found = differences(tree(GOLDEN), tree(out))
    assert not found, "\n".join(
        [
            *found,
            "The build differs from tests/generator/golden/; if intended, rerun with "
            "UPDATE_GOLDEN=1 and review the change.",
        ]
    )


def test_difference_report_names_files_and_shows_changed_lines() -> None:
    found = differences(
        {"a.html": b"<p>one</p>\n<p>two</p>\n", "gone.html": b""},
        {"a.html": b"<p>one</p>\n<p>2</p>\n", "new.html": b""},
    )
    assert "missing from the build: gone.html" in found
    assert "not in the golden tree: new.html" in found
    assert "-<p>two</p>" in found and "+<p>2</p>" in found
