"""An output folder the build would refuse is refused before its first request."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from rich.console import Console

from generator.config import BuildConfig
from generator.errors import WriteError
from generator.pipeline import build_site
from tests.support.incremental_store import DemoStore, Recording, config_for, recorded


@pytest.fixture
def store(tmp_path: Path) -> Iterator[DemoStore]:
    demo = DemoStore(tmp_path, products=2)
    yield demo
    demo.close()


def _asked(store: DemoStore, config: BuildConfig) -> tuple[list[str], str]:
    """The requests a build sent before it failed, and its one-line error."""
    transport = Recording(store)
    console = Console(file=io.StringIO(), width=200)
    with pytest.raises(WriteError) as failed:
        anyio.run(lambda: build_site(config, console, connect=recorded(transport)))
    return transport.asked, str(failed.value)


def test_a_folder_the_build_did_not_write_costs_no_requests(
    store: DemoStore, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    asked, error = _asked(store, config_for(tmp_path))
    assert asked == []
    assert "not written by a build" in error
    assert (out / "notes.txt").read_text(encoding="utf-8") == "mine"


def test_the_home_folder_costs_no_requests(
    store: DemoStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    asked, error = _asked(store, config_for(tmp_path, out="home"))
    assert asked == []
    assert "choose a subfolder" in error


def test_a_file_costs_no_requests(store: DemoStore, tmp_path: Path) -> None:
    (tmp_path / "out").write_text("a file", encoding="utf-8")
    asked, error = _asked(store, config_for(tmp_path))
    assert asked == []
    assert "not a folder" in error
