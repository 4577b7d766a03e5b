"""The retry layer: repeats a request after a 5xx, a timeout or a connection error.

Does: call the request again, up to ``attempts`` times in all (``slow_attempts`` when the
request ran out of its deadline), sleeping a bounded, jittered, exponentially growing delay
between attempts; the last failure is raised, saying how many attempts were made.

Does NOT: retry 4xx answers (the request is wrong, asking again will not help), 501 (not
implemented is not transient), a host name that does not resolve (a typo in the url: the
first failure is the one line said), or 429: the spec says a client library does not retry a rate
limit by itself - the crawler decides whether to wait (``RateLimited`` passes straight through).
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from generator.client.observer import ClientObserver
from generator.client.stats import ClientStats
from generator.client.timing import Timer
from generator.errors import (
    ApiDeadlineExceeded,
    ApiError,
    ApiHostUnknown,
    ApiStatusError,
    ApiUnreachable,
    ConfigError,
    RateLimited,
)

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    #: Attempts in all, the first included (1 = never retry).
    attempts: int = 5
    #: Delay ceiling before the first retry, in seconds; doubles with every further retry.
    base_delay: float = 0.5
    #: Largest delay between two attempts, in seconds.
    max_delay: float = 10.0
    #: Attempts in all (at most ``attempts``) when a request runs out of its deadline: each
    #: costs a whole deadline, and an answer that slow is likely to be as slow again.
    slow_attempts: int = 2

    def __post_init__(self) -> None:
        if min(self.attempts, self.slow_attempts) < 1 or min(self.base_delay, self.max_delay) < 0:
            raise ConfigError("retry policy: attempts and slow_attempts >= 1, delays >= 0")

    def attempts_for(self, exc: ApiError) -> int:
        """Attempts in all for a request that failed with ``exc``."""
        if isinstance(exc, ApiDeadlineExceeded):
            return min(self.attempts, self.slow_attempts)
        return self.attempts

    def delay(self, retry: int, rng: random.Random) -> float:
        """Delay before retry number ``retry`` (1-based): "equal jitter" in [c/2, c].

        Half fixed so retries never bunch up at zero, half random so parallel clients hit by
        the same outage do not come back in lockstep.
        """
        ceiling = min(self.max_delay, self.base_delay * 2.0 ** (retry - 1))
        return ceiling / 2 + rng.uniform(0.0, ceiling / 2)


def is_transient(exc: ApiError) -> bool:
    if isinstance(exc, RateLimited):
        return False
    if isinstance(exc, ApiStatusError):
        return exc.status >= 500 and exc.status != 501
    return isinstance(exc, ApiUnreachable) and not isinstance(exc, ApiHostUnknown)


async def with_retries(
    send: Callable[[], Awaitable[T]],
    *,
    endpoint: str,
    policy: RetryPolicy,
    timer: Timer,
    rng: random.Random,
    observer: ClientObserver,
    stats: ClientStats,
) -> T:
    attempt = 1
    while True:
        try:
            return await send()
        except (ApiStatusError, ApiUnreachable) as exc:
            if not is_transient(exc):
                raise
            if attempt >= policy.attempts_for(exc):
                if attempt == 1:
                    raise
                raise _gave_up(exc, attempt) from exc
            delay = policy.delay(attempt, rng)
            stats.retries += 1
            observer.retrying(endpoint, attempt, delay, _reason(exc))
            await timer.sleep(delay)
            attempt += 1


def _reason(exc: ApiStatusError | ApiUnreachable) -> str:
    if isinstance(exc, ApiStatusError):
        return f"HTTP {exc.status}"
    return exc.detail


def _gave_up(exc: ApiStatusError | ApiUnreachable, attempts: int) -> ApiError:
    """The same error, its message saying that retrying did not help."""
    suffix = f" (gave up after {attempts} attempts)"
    if isinstance(exc, ApiStatusError):
        message = exc.detail.removeprefix(f"HTTP {exc.status}: ")
        return ApiStatusError(message + suffix, endpoint=exc.endpoint, status=exc.status)
    return type(exc)(_reason(exc) + suffix, endpoint=exc.endpoint)
