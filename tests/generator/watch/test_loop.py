"""The watch loop rebuilds on a change, survives a template error, and clears it after."""

from __future__ import annotations

import io
import json
import shutil
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path

import anyio
import pytest
from rich.console import Console

from generator.config import BUNDLED_THEME
from generator.watch.loop import Rebuilder, run_rebuilds, trigger_sender, watch_files
from generator.watch.reload import ReloadBroadcaster
from tests.support.incremental_store import DemoStore, config_for


def rebuilder(tmp_path: Path, store: DemoStore) -> tuple[Rebuilder, io.StringIO, Path]:
    theme = tmp_path / "theme"
    shutil.copytree(BUNDLED_THEME, theme)
    config = config_for(tmp_path, templates=theme)
    printed = io.StringIO()
    console = Console(file=printed, width=300, highlight=False)
    return Rebuilder(lambda: config, console, ReloadBroadcaster(), store.connect), printed, theme


def test_template_change_is_rebuilt_and_tabs_told_to_reload(
    tmp_path: Path, store: DemoStore
) -> None:
    rebuild, _, theme = rebuilder(tmp_path, store)
    assert anyio.run(rebuild.rebuild, "first build")
    home = theme / "home.html"
    marked = home.read_text().replace("{% endblock %}", "<p>fresh-marker</p>{% endblock %}", 1)
    home.write_text(marked)

    async def rebuild_and_listen() -> list[str]:
        async with rebuild.broadcaster.subscribe() as events:
            assert await rebuild.rebuild("changed home.html")
            return [events.receive_nowait().name]

    assert anyio.run(rebuild_and_listen) == ["reload"]
    assert "fresh-marker" in (tmp_path / "out" / "index.html").read_text()


def test_template_error_is_reported_and_the_next_good_build_clears_it(
    tmp_path: Path, store: DemoStore
) -> None:
    rebuild, printed, theme = rebuilder(tmp_path, store)
    assert anyio.run(rebuild.rebuild, "first build")
    good_index = (tmp_path / "out" / "index.html").read_bytes()
    base = theme / "base.html"
    original = base.read_text()
    base.write_text(original + "\n{% if %}\n")

    assert not anyio.run(rebuild.rebuild, "changed base.html")
    error_lines = [line for line in printed.getvalue().splitlines() if line.startswith("error:")]
    assert len(error_lines) == 1 and "base.html:" in error_lines[0]
    assert rebuild.broadcaster.last_error is not None
    assert "base.html:" in rebuild.broadcaster.last_error
    assert (tmp_path / "out" / "index.html").read_bytes() == good_index

    base.write_text(original)
    assert anyio.run(rebuild.rebuild, "fixed base.html")
    assert rebuild.broadcaster.last_error is None


def test_a_burst_of_triggers_is_one_rebuild(tmp_path: Path, store: DemoStore) -> None:
    rebuild, printed, _ = rebuilder(tmp_path, store)

    async def go() -> None:
        send, receive = anyio.create_memory_object_stream[str](10)
        with receive:
            with send:
                for reason in ("changed a.html", "changed b.html", "content changed"):
                    send.send_nowait(reason)
            with anyio.fail_after(30):
                await run_rebuilds(rebuild, receive)

    anyio.run(go)
    rebuilds = [line for line in printed.getvalue().splitlines() if line.startswith("rebuilding")]
    assert rebuilds == ["rebuilding: changed a.html, changed b.html, content changed"]


def test_full_trigger_queue_drops_the_extra_trigger() -> None:
    send, receive = anyio.create_memory_object_stream[str](1)
    with send, receive:
        trigger = trigger_sender(send)
        trigger("one")
        trigger("two")
        assert receive.receive_nowait() == "one"
        with pytest.raises(anyio.WouldBlock):
            receive.receive_nowait()


def changes_seen(theme: Path, edit: Callable[[], Awaitable[None]]) -> list[str]:
    """What ``watch_files`` reports while ``edit`` changes ``theme``: the first burst only."""
    triggered: list[str] = []

    async def go() -> None:
        stop = anyio.Event()

        def trigger(reason: str) -> None:
            triggered.append(reason)
            stop.set()

        with anyio.fail_after(10):
            async with anyio.create_task_group() as tg:
                tg.start_soon(lambda: watch_files([theme], trigger, debounce_ms=50, stop=stop))
                await anyio.sleep(0.2)  # let the watcher start
                await edit()

    anyio.run(go)
    return triggered


def test_saving_a_theme_file_triggers_a_rebuild(tmp_path: Path) -> None:
    theme = tmp_path / "theme"
    theme.mkdir()

    async def save() -> None:
        (theme / "home.html").write_text("<p>new</p>")

    assert changes_seen(theme, save) == ["changed home.html"]


def test_editor_scratch_files_are_not_changes(tmp_path: Path) -> None:
    theme = tmp_path / "theme"
    theme.mkdir()

    async def save_from_an_editor() -> None:
        for scratch in (
            ".goutputstream-X1Y2",
            "4913",
            "sedAb12Cd",
            "home.html.tmp",
            "home.html~",
            ".home.html.swp",
            "home.html.bak",
        ):
            (theme / scratch).write_text("x")
        await anyio.sleep(0.5)  # several debounce periods: a change would be seen
        (theme / "home.html").write_text("<p>new</p>")

    assert changes_seen(theme, save_from_an_editor) == ["changed home.html"]


def event(product: int) -> dict[str, object]:
    return {
        "type": "product.updated",
        "data": {"entity": "product", "id": product, "action": "updated", "changed": ["price"]},
    }


def test_webhook_events_reach_the_rebuild_but_not_after_a_failed_one(
    tmp_path: Path, store: DemoStore
) -> None:
    rebuild, _, theme = rebuilder(tmp_path, store)
    handed = tmp_path / "cache" / "events.json"

    def webhook(product: int) -> bool:
        rebuild.received(event(product))
        return anyio.run(partial(rebuild.rebuild, "webhook product.updated", webhook_only=True))

    assert webhook(1)  # the first build walks every list, events or not
    assert not handed.exists()
    assert webhook(2)
    assert [e["data"]["id"] for e in json.loads(handed.read_text())] == [2]
    base = theme / "base.html"
    original = base.read_text()
    base.write_text(original + "\n{% if %}\n")
    assert not webhook(1)
    base.write_text(original)
    # Event 1's rebuild failed: the next one walks every list instead of trusting its cache.
    assert webhook(2)
    assert [e["data"]["id"] for e in json.loads(handed.read_text())] == [1]
    rebuild.received(event(2))
    assert anyio.run(rebuild.rebuild, "changed base.html")  # not webhooks alone: walks
    assert [e["data"]["id"] for e in json.loads(handed.read_text())] == [1]
    assert rebuild.events == []
    assert webhook(2)
    assert [e["data"]["id"] for e in json.loads(handed.read_text())] == [2]
