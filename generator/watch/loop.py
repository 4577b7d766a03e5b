"""The loop of `storefront watch`: triggers in, one incremental build at a time, events out.

Triggers (a theme or xstore.json change, a content change) go into one queue; the rebuilder
takes a trigger, folds in every other one already waiting (debounce: a burst of saves is one
build), and runs the ordinary incremental ``build_site``. A failed build (``StorefrontError``,
a template error among them) is printed in one line and published to the open tabs; the
previous output stays in place and the loop keeps going. The next good build clears it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import anyio
import watchfiles
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from rich.console import Console
from rich.markup import escape

from generator.config import BuildConfig
from generator.errors import StorefrontError
from generator.pipeline import Connect, build_site
from generator.watch.reload import ReloadBroadcaster


@dataclass(slots=True)
class Rebuilder:
    """One rebuild: fresh settings (xstore.json may have changed), the build, the event."""

    load_config: Callable[[], BuildConfig]
    console: Console
    broadcaster: ReloadBroadcaster
    connect: Connect | None = None

    async def rebuild(self, reason: str) -> bool:
        """True when the build succeeded; never raises a ``StorefrontError``."""
        self.console.print(f"rebuilding: {escape(reason)}")
        try:
            await build_site(self.load_config(), self.console, connect=self.connect)
        except StorefrontError as exc:
            message = " ".join(str(exc).split())
            self.console.print(f"[red]error:[/red] {escape(message)}")
            self.broadcaster.publish_error(message)
            return False
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
        await rebuilder.rebuild(", ".join(dict.fromkeys(reasons)))


def trigger_sender(stream: MemoryObjectSendStream[str]) -> Callable[[str], None]:
    """A trigger that never waits: a full queue already holds a rebuild to come."""

    def trigger(reason: str) -> None:
        try:
            stream.send_nowait(reason)
        except anyio.WouldBlock:
            pass

    return trigger


async def watch_files(
    paths: Iterable[Path],
    trigger: Callable[[str], None],
    *,
    debounce_ms: int = 300,
    stop: anyio.Event | None = None,
) -> None:
    """Calls ``trigger`` with the changed file names after each burst of changes."""
    async for changes in watchfiles.awatch(
        *paths, debounce=debounce_ms, stop_event=stop, rust_timeout=500
    ):
        names = sorted({Path(path).name for _, path in changes})
        shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        trigger(f"changed {shown}")
