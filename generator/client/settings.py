"""Settings of one API client, each declared once with its default."""

from __future__ import annotations

from dataclasses import dataclass, field

from generator.client.limiter import RateWindow
from generator.client.retry import RetryPolicy
from generator.errors import ConfigError

#: The default largest answer, decoded: far beyond any page of the spec (100 product cards
#: take a few hundred KB), far below what would strain a build's memory.
DEFAULT_MAX_ANSWER_BYTES = 32 * 1024 * 1024
#: The default time one request may take, body included, in seconds.
DEFAULT_REQUEST_DEADLINE = 60.0


def _spec_windows() -> tuple[RateWindow, ...]:
    return (RateWindow(600, 60.0), RateWindow(20_000, 3600.0))


@dataclass(frozen=True, slots=True)
class ClientSettings:
    #: Retries of 5xx answers, timeouts and connection errors (never 4xx or 429).
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    #: Rate windows of one key; the spec allows 600 per 60 s and 20,000 per hour.
    #: Benchmarks scale them down to measure pacing in seconds.
    windows: tuple[RateWindow, ...] = field(default_factory=_spec_windows)
    #: Requests in flight at once.
    concurrency: int = 8
    #: Longest cursor walk before a list is declared endless.
    max_pages: int = 100_000
    #: Largest answer body read, in bytes once decompressed; a larger one fails the request.
    max_answer_bytes: int = DEFAULT_MAX_ANSWER_BYTES
    #: Longest time one request may take, body included, in seconds (retries start anew).
    request_deadline: float = DEFAULT_REQUEST_DEADLINE
    #: Requests this client sends at most (None: no limit); past it ``CrawlStopped``.
    max_requests: int | None = None
    #: Seconds after the client's creation past which it sends nothing more (None: no limit).
    stop_after: float | None = None

    def __post_init__(self) -> None:
        if self.concurrency < 1:
            raise ConfigError(f"client concurrency {self.concurrency}: need at least 1")
        if self.max_pages < 1:
            raise ConfigError(f"client max_pages {self.max_pages}: need at least 1")
        if self.max_answer_bytes < 1:
            raise ConfigError(f"client max_answer_bytes {self.max_answer_bytes}: need at least 1")
        if self.max_requests is not None and self.max_requests < 1:
            raise ConfigError(f"--max-requests {self.max_requests}: need at least 1")
        if self.stop_after is not None and not self.stop_after > 0:
            raise ConfigError(f"--deadline {self.stop_after:g} s: need more than 0 s")
        if not self.request_deadline > 0:
            raise ConfigError(
                f"client request_deadline {self.request_deadline:g}: need more than 0 s"
            )
