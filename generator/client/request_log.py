"""The requests a key sent lately, kept between builds: ``RequestLog``.

The API counts requests per key over a minute and an hour. A build that started with an empty
log would not know what the build before it spent, and a CI rebuild started minutes after a
large one would run into 429s. So each build of an API url and key seeds its rate limiter with
the instants the earlier builds' requests ended (those still inside the longest window) and the
instant a 429 told it to wait until, and adds its own when it ends, whatever way it ends.

One small JSON file per API url and key under the cache folder, named by a digest of both (the
key is never written). Several processes (a CI build beside ``storefront watch``) may share it:
each save merges under a file lock with what is there now. Instants are wall-clock seconds in
the file and timer instants in the limiter: converted through one reading of both clocks.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import math
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from generator.client.limiter import RateLimiter

#: The folder of the cache folder that holds the logs.
LOG_FOLDER = "requests"
_FORMAT = 1


@dataclass(frozen=True, slots=True)
class RequestLog:
    """The log of one API url and key in ``cache_dir``; ``wall`` reads wall-clock seconds."""

    cache_dir: Path
    api_url: str
    key: str
    wall: Callable[[], float] = time.time

    @property
    def path(self) -> Path:
        name = hashlib.sha256(f"{self.api_url}\0{self.key}".encode()).hexdigest()[:32]
        return self.cache_dir / LOG_FOLDER / f"{name}.json"

    def restore(self, limiter: RateLimiter) -> int:
        """Seed ``limiter`` with what earlier builds sent inside its longest window, and their
        last Retry-After; how many requests that was."""
        ended, blocked_until = self._read()
        offset = limiter.now() - self.wall()  # wall seconds to timer instants
        span = _span(limiter)
        now = self.wall()
        recent = [instant + offset for instant in ended if instant > now - span]
        limiter.seed(recent)
        if blocked_until > now:
            limiter.block_until(blocked_until + offset)
        return len(recent)

    def record(self, limiter: RateLimiter) -> None:
        """Add what ``limiter`` sent to the file, keeping only what is still inside its longest
        window. A log that cannot be written is left as it is: it only paces, never decides."""
        offset = self.wall() - limiter.now()  # timer instants to wall seconds
        sent = [instant + offset for instant in limiter.sent]
        blocked = limiter.blocked_until + offset if math.isfinite(limiter.blocked_until) else 0.0
        cutoff = self.wall() - _span(limiter)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with _locked(self.path.with_suffix(".lock")):
                ended, blocked_before = self._read()
                merged = sorted(instant for instant in [*ended, *sent] if instant > cutoff)
                self._write(merged, max(blocked, blocked_before))
        except OSError:
            return

    def _read(self) -> tuple[list[float], float]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if data.get("format") != _FORMAT:
                return [], 0.0
            ended = [float(instant) for instant in data["ended"]]
            return ended, float(data.get("blocked_until", 0.0))
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            return [], 0.0  # none yet, or unreadable: start counting afresh

    def _write(self, ended: list[float], blocked_until: float) -> None:
        data = {"format": _FORMAT, "blocked_until": blocked_until, "ended": ended}
        staged = self.path.with_suffix(f".{os.getpid()}.tmp")
        staged.write_text(json.dumps(data, separators=(",", ":")), encoding="utf-8")
        os.replace(staged, self.path)


def _span(limiter: RateLimiter) -> float:
    return max((window.seconds for window in limiter.windows), default=0.0)


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    with path.open("a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
