"""Ctrl-C while a thread does the work: the event loop can cancel its own tasks, not a thread
it waits on, so the thread looks at a flag that Ctrl-C sets."""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

#: How often a cancellation that the task swallowed is asked again (seconds).
_AGAIN = 0.2


@contextmanager
def interrupt_flag(*, forward: bool = False) -> Iterator[threading.Event]:
    """An event set by the first SIGINT while the block runs; the thread stops by itself and
    cleans up after itself. A second SIGINT does what SIGINT did before the block (asyncio
    cancels its main task, leaving the thread behind). ``forward``: every SIGINT also does
    that, and the running task is cancelled again while it goes on as if not cancelled (a
    task group or a deadline can swallow a cancellation). Off the main thread, where no
    handler can be set, the event stays unset."""
    flag = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield flag
        return
    previous = signal.getsignal(signal.SIGINT)
    task = _current_task() if forward else None

    def again() -> None:
        if task is None or task.done():
            return
        if task.cancelling() == 0:
            task.cancel()
        task.get_loop().call_later(_AGAIN, again)

    def on_interrupt(signum: int, frame: FrameType | None) -> None:
        first = not flag.is_set()
        flag.set()
        if (forward or not first) and callable(previous):
            previous(signum, frame)
        if forward and first and task is not None:
            task.get_loop().call_soon_threadsafe(task.get_loop().call_later, _AGAIN, again)

    signal.signal(signal.SIGINT, on_interrupt)
    try:
        yield flag
    finally:
        signal.signal(signal.SIGINT, previous)


def _current_task() -> asyncio.Task[object] | None:
    try:
        return asyncio.current_task()
    except RuntimeError:  # no running loop
        return None
