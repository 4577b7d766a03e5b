"""The hook a progress display implements to follow the client's traffic.

The client calls these methods synchronously, on the task that made the request; they must be
quick and must not raise. ``NullObserver`` is the default and does nothing. The observer only
watches: it cannot change what the client does (that is the settings' job).
"""

from __future__ import annotations

from typing import Literal, Protocol

#: Why the client is waiting: the client-side rate windows, or a 429's Retry-After.
WaitReason = Literal["rate limit", "retry-after"]


class ClientObserver(Protocol):
    def request_done(self, endpoint: str, status: int, seconds: float) -> None:
        """One HTTP exchange finished with ``status`` after ``seconds`` (0 = no answer)."""
        ...

    def waiting(self, seconds: float, reason: WaitReason) -> None:
        """The client is about to hold a request back for ``seconds``."""
        ...

    def retrying(self, endpoint: str, attempt: int, delay: float, reason: str) -> None:
        """Attempt ``attempt`` failed with ``reason``; the next starts after ``delay`` seconds."""
        ...


class NullObserver:
    """Watches nothing."""

    def request_done(self, endpoint: str, status: int, seconds: float) -> None:
        return None

    def waiting(self, seconds: float, reason: WaitReason) -> None:
        return None

    def retrying(self, endpoint: str, attempt: int, delay: float, reason: str) -> None:
        return None
