"""The loop of `storefront watch`: triggers in, one incremental build at a time, events out.

Triggers (a theme or xstore.json change, a content change) go into one queue; the rebuilder
takes a trigger, folds in every other one already waiting (debounce: a burst of saves is one
build), and runs the ordinary incremental ``build_site``. A failed build (``StorefrontError``,
a template error among them) is printed in one line and published to the open tabs; the
previous output stays in place and the loop keeps going. The next good build clears it.

A burst of webhook triggers alone hands the build their events (``--event``), so it asks only
what they can move; the first build, a burst with any other trigger and the build after a
failed one walk every list (the crawl cache may not hold what those events assume). Each good
build hands the moments it recorded to the clock's rebuilds (``watch.schedule``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

import anyio
import watchfiles
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from rich.console import Console
from rich.markup import escape

from generator.config import BuildConfig
from generator.errors import StorefrontError
from generator.pipeline import Connect, build_site
from generator.plan.moments import Moment
from generator.watch.reload import ReloadBroadcaster


@dataclass(slots=True)
class Rebuilder:
    """One rebuild: fresh settings (xstore.json may have changed), the build, the event."""

    load_config: Callable[[], BuildConfig]
    console: Console
    broadcaster: ReloadBroadcaster
    connect: Connect | None = None
    #: Webhook payloads received since the last rebuild started.
    events: list[object] = field(default_factory=list)
    #: The next rebuild walks every list (none succeeded yet, or the last one failed).
    walk_next: bool = True
    #: Handed the rebuild moments of each good build (``watch.schedule``).
    on_moments: Callable[[tuple[Moment, ...]], None] | None = None
    #: A build is running (the content poll waits meanwhile).
    building: bool = False

    def received(self, payload: object) -> None:
        self.events.append(payload)

    async def rebuild(self, reason: str, *, webhook_only: bool = False) -> bool:
        """True when the build succeeded; never raises a ``StorefrontError``."""
        self.building = True
        try:
            return await self._rebuild(reason, webhook_only=webhook_only)
        finally:
            self.building = False

    async def _rebuild(self, reason: str, *, webhook_only: bool) -> bool:
        self.console.print(f"rebuilding: {escape(reason)}")
        events, self.events = self.events, []
        scoped = webhook_only and bool(events) and not self.walk_next
        self.walk_next = True  # until this build succeeds: its events would be lost
        try:
            config = self.load_config()
            if scoped:
                config = replace(config, event=_kept_events(config.cache_dir, events))
            summary = await build_site(config, self.console, connect=self.connect)
            self.walk_next = False
        except StorefrontError as exc:
            message = " ".join(str(exc).split())
            self.console.print(f"[red]error:[/red] {escape(message)}")
            self.broadcaster.publish_error(message)
            return False
        if self.on_moments is not None:
            self.on_moments(summary.moments)
        self.broadcaster.publish_reload()
        return True


async def run_rebuilds(rebuilder: Rebuilder, triggers: MemoryObjectReceiveStream[str]) -> None:
    """Rebuild once per burst of triggers until the trigger stream ends."""
    async for reason in triggers:
        reasons = [reason]
        while True:
            try:
                reasons.append(triggers.receive_nowait())
            except anyio.WouldBlock:
                break
            except anyio.EndOfStream:
                break
        webhook_only = all(reason.startswith("webhook ") for reason in reasons)
        await rebuilder.rebuild(", ".join(dict.fromkeys(reasons)), webhook_only=webhook_only)


def _kept_events(folder: Path, events: list[object]) -> Path:
    """The events written where the build reads them (the crawl cache folder)."""
    path = folder / "events.json"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(events, ensure_ascii=False), encoding="utf-8")
    except OSError as exc:
        raise StorefrontError(f"cannot write {path}: {exc.strerror or exc}") from None
    return path


def trigger_sender(stream: MemoryObjectSendStream[str]) -> Callable[[str], None]:
    """A trigger that never waits: a full queue already holds a rebuild to come."""

    def trigger(reason: str) -> None:
        try:
            stream.send_nowait(reason)
        except anyio.WouldBlock:
            pass

    return trigger


class EditorFilesIgnored(watchfiles.DefaultFilter):
    """What editors write beside the file they save, which no build reads: hidden files (the
    theme skips them: gedit's ``.goutputstream-*``, Kate's swap files), vim's ``4913`` probe,
    ``sed -i``'s ``sedXXXXXX``, ``*.tmp``, ``*.bak``, ``*.orig`` - and watchfiles' own list
    (``*.swp``, ``*~``, ``.#*``, JetBrains' ``___jb_tmp___``)."""

    ignore_entity_patterns = (
        *watchfiles.DefaultFilter.ignore_entity_patterns,
        r"^\.",
        r"^4913$",
        r"^sed[A-Za-z0-9]{6}$",
        r"\.(?:tmp|bak|orig)$",
    )


async def watch_files(
    paths: Iterable[Path],
    trigger: Callable[[str], None],
    *,
    debounce_ms: int = 300,
    stop: anyio.Event | None = None,
) -> None:
    """Calls ``trigger`` with the changed file names after each burst of changes."""
    async for changes in watchfiles.awatch(
        *paths,
        watch_filter=EditorFilesIgnored(),
        debounce=debounce_ms,
        stop_event=stop,
        rust_timeout=500,
    ):
        names = sorted({Path(path).name for _, path in changes})
        shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        trigger(f"changed {shown}")
