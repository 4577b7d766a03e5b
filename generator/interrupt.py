"""Ctrl-C while a thread does the work: the event loop can cancel its own tasks, not a thread
it waits on, so the thread looks at a flag that Ctrl-C sets."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType


@contextmanager
def interrupt_flag(*, forward: bool = False) -> Iterator[threading.Event]:
    """An event set by the first SIGINT while the block runs; the thread stops by itself and
    cleans up after itself. A second SIGINT does what SIGINT did before the block (asyncio
    cancels its main task, leaving the thread behind). ``forward``: every SIGINT also does
    that, for async work, and the event tells whether one came (a task may swallow its
    cancellation). Off the main thread, where no handler can be set, the event stays unset."""
    flag = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield flag
        return
    previous = signal.getsignal(signal.SIGINT)

    def on_interrupt(signum: int, frame: FrameType | None) -> None:
        first = not flag.is_set()
        flag.set()
        if (forward or not first) and callable(previous):
            previous(signum, frame)

    signal.signal(signal.SIGINT, on_interrupt)
    try:
        yield flag
    finally:
        signal.signal(signal.SIGINT, previous)
