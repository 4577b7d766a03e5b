"""The build lock of an output folder or a cache folder, which one process at a time holds:
``with held(...)``.

It is an ``flock`` on a file, which the kernel releases when its holder exits, however it exits
(kill -9 included): a lock is never left held by a process that is gone. The holder deletes the
file when it is done, so nothing stays behind; a process that opened the file just before that
finds that the file it locked is no longer the one at the path, and tries again.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from generator.errors import WriteError


@contextmanager
def held(path: Path, *, busy: str) -> Iterator[None]:
    """Hold the lock file ``path`` for the block. When another build holds it, fail at once,
    in one line ("another build (process N) ``busy``"), naming the holder when it is known."""
    descriptor = _take(path, busy)
    try:
        yield
    finally:
        path.unlink(missing_ok=True)  # while still held: no one else has locked this file
        os.close(descriptor)


def _take(path: Path, busy: str) -> int:
    while True:
        try:
            descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise WriteError(f"cannot create the lock file {path}: {exc.strerror}") from None
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            holder = _holder(descriptor)
            os.close(descriptor)
            if isinstance(exc, BlockingIOError):
                raise WriteError(
                    f"another build{holder} {busy}; run this one when it has finished"
                ) from None
            raise WriteError(f"cannot lock {path}: {exc.strerror}") from None
        if _is_at(descriptor, path):
            os.ftruncate(descriptor, 0)
            os.write(descriptor, f"{os.getpid()}\n".encode())
            return descriptor
        os.close(descriptor)  # its holder deleted it as we locked it: take the next one


def _is_at(descriptor: int, path: Path) -> bool:
    """Whether the open file is still the one at ``path``."""
    try:
        there = path.stat()
    except FileNotFoundError:
        return False
    opened = os.fstat(descriptor)
    return (there.st_dev, there.st_ino) == (opened.st_dev, opened.st_ino)


def _holder(descriptor: int) -> str:
    """`` (process N)`` from the lock file's text, or nothing when it is not there yet."""
    text = os.pread(descriptor, 32, 0).decode("ascii", "replace").strip()
    return f" (process {text})" if text.isdigit() else ""
