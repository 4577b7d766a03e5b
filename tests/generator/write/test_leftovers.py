"""Folders a killed build leaves beside the output, and two builds of one output at once."""

from __future__ import annotations

import multiprocessing
import time
from pathlib import Path

import pytest

from generator.errors import WriteError
from generator.render.pages import build_environment
from generator.write import output as write_module
from generator.write.site import write_incremental
from generator.write.target import MARKER_FILE
from tests.support.fixture_site import THEME, cms_plan, write_plan

SECONDS = 30


def write(out: Path, *paths: str, text: str) -> None:
    write_plan(cms_plan(*paths, text=text), out)


def folder(path: Path, *names: str) -> Path:
    """A folder holding files ``names`` (what a killed build leaves: a page, the marker)."""
    path.mkdir()
    for name in names:
        (path / name).write_text("left behind")
    return path


def wait_for(condition: Path, what: str) -> None:
    deadline = time.monotonic() + SECONDS
    while not condition.exists():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def test_the_next_build_removes_what_killed_builds_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(write_module.shutil, "which", lambda name: None)  # deleted before return
    out = tmp_path / "out"
    write(out, "/", text="one")
    folder(tmp_path / "out.tmp-k1ll3d01", "index.html", MARKER_FILE)  # killed while staging
    folder(tmp_path / "out.old-k1ll3d02", "index.html", MARKER_FILE)  # killed mid-swap
    folder(tmp_path / "out.tmp-k1ll3d03")  # killed before it wrote the marker: empty
    (tmp_path / "out.lock").write_text("4242\n")  # the lock file of a killed build
    folder(tmp_path / "out.tmp-n0tours0", "notes.txt")  # no marker: not a build's
    folder(tmp_path / "shop.tmp-0th3rs00", "index.html", MARKER_FILE)  # another output's
    write(out, "/", text="two")
    assert "<p>two</p>" in (out / "index.html").read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "out",
        "out.tmp-n0tours0",
        "shop.tmp-0th3rs00",
    ]


def _slow_build(out: Path, started: Path, go: Path) -> None:
    """A build that stops after its first page until ``go`` exists (run in another process)."""

    def pause() -> None:
        if not started.exists():
            started.touch()
            wait_for(go, "the test to let the first build go on")

    write_incremental(
        cms_plan("/", "/a", text="first"),
        build_environment(THEME),
        out,
        theme_dir=THEME,
        previous=None,
        on_page=pause,
    )


def test_a_second_build_leaves_a_running_build_alone_and_says_why(tmp_path: Path) -> None:
    out = tmp_path / "out"
    write(out, "/", text="before")
    started, go = tmp_path / "started", tmp_path / "go"
    first = multiprocessing.get_context("fork").Process(target=_slow_build, args=(out, started, go))
    first.start()
    try:
        wait_for(started, "the first build to stage a page")
        [staging] = tmp_path.glob("out.tmp-*")
        staged = sorted(p.name for p in staging.rglob("*"))
        with pytest.raises(WriteError, match="another build") as refused:
            write(out, "/", text="second")
        assert "\n" not in str(refused.value)
        assert sorted(p.name for p in staging.rglob("*")) == staged
    finally:
        go.touch()
        first.join(SECONDS)
        if first.exitcode is None:
            first.kill()
    assert first.exitcode == 0
    assert "<p>first</p>" in (out / "a.html").read_text()
