"""The records of the last build: saved in columns, read back as they were."""

from __future__ import annotations

import pickle
from pathlib import Path

from generator.write.incremental import (
    REFERENCES_FILE,
    STATE_FILE,
    STATE_VERSION,
    BuildState,
    PageRecord,
    load_references,
)


def _state() -> BuildState:
    pages = {
        f"/san-pham/áo-{n}": PageRecord(f"{n:040x}", bytes([n % 256, 0, 0, 0]) * n, 1000 + n)
        for n in range(50)
    }
    pages["/"] = PageRecord("f" * 40, b"", 0)
    return BuildState(
        out_dir="/srv/shop",
        pages=pages,
        urls=("/", "/san-pham/áo-1", "https://cdn.example.vn/x"),
        linkable=tuple(pages),
        extra_files=("sitemap.xml", "robots.txt"),
        template_references={"abc": ("base.html", None)},
    )


def test_saved_records_read_back_equal_in_their_order(tmp_path: Path) -> None:
    state = _state()
    state.save(tmp_path)
    back = BuildState.load(tmp_path)
    assert back == state
    assert back is not None and list(back.pages) == list(state.pages)
    assert BuildState.load(tmp_path / "elsewhere") is None


def test_records_of_another_layout_are_not_read(tmp_path: Path) -> None:
    (tmp_path / STATE_FILE).write_bytes(pickle.dumps((STATE_VERSION - 1, _state())))
    assert BuildState.load(tmp_path) is None
    (tmp_path / STATE_FILE).write_bytes(b"not a pickle")
    assert BuildState.load(tmp_path) is None


def test_records_an_older_version_wrote_are_not_read(tmp_path: Path) -> None:
    # Its classes lived in a module that is gone now (the generator before its stages were
    # packages): the build renders whole instead of failing.
    older = b"(I" + str(STATE_VERSION).encode() + b"\ncgenerator.incremental\nBuildState\nt."
    (tmp_path / STATE_FILE).write_bytes(older)
    assert BuildState.load(tmp_path) is None
    (tmp_path / REFERENCES_FILE).write_bytes(b"cgenerator.incremental\nReferences\n.")
    assert load_references(tmp_path) == {}
