"""What a build shows on the terminal while it runs: requests, pages, rate-limit waits.

When the crawl can estimate its requests (a first build, from the sitemap's counts), the
requests line shows how many are left, the recent rate and about how long the rest takes under
the API's rate windows (``RateLimiter.time_for``: an hour's budget spent shows as the wait it
is, not as a stall). Without a terminal, that line is printed every ``REPORT_SECONDS``.

``BuildProgress`` implements the client's and the crawl's observer protocols, so the crawl layers
never know how (or whether) progress is displayed. On a terminal it draws rich progress bars; in
CI (no terminal) it prints a line per phase and per wait instead of redrawing.

Counting is local: a large build reports hundreds of thousands of items, and each rich update
takes a lock and records a speed sample. The bars are brought up to date at most every
``REFRESH_SECONDS`` (rich redraws ten times a second anyway) and once more at the end.
"""

from __future__ import annotations

import time
from collections import deque
from types import TracebackType
from typing import TYPE_CHECKING, Any, cast

from generator.client.limiter import RateLimiter
from generator.client.observer import WaitReason
from generator.console import Printer
from generator.model import Skip

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

REFRESH_SECONDS = 0.05
#: Without a terminal: how often the requests line is printed during a long crawl.
REPORT_SECONDS = 60.0
#: The recent rate is measured over about this long.
RATE_SECONDS = 30.0
#: Retries of one attempt for one reason (an API that is down, a wrong port) are printed once in
#: this long, with how many other requests they were: not one line for each request at once.
RETRY_LINE_SECONDS = 10.0


class BuildProgress:
    """Progress of one build; use as a context manager around the crawl and the render."""

    def __init__(self, console: Printer) -> None:
        self.console = console
        self._live = console.is_terminal
        self._progress = _bars(console) if self._live else None
        self._unshown = 0  # tasks numbered without bars
        self._requests = -1
        self._phases: dict[str, int] = {}
        self._request_count = 0
        self._errors = 0
        self._done: dict[int, int] = {}  # items done per phase (by task), not yet shown
        self._shown_at = 0.0
        self._expected: int | None = None
        self._limiter: RateLimiter | None = None
        self._samples: deque[tuple[float, int]] = deque()  # (instant, requests done)
        self._reported_at = time.monotonic()
        #: (attempt, reason) -> when its line was printed, and the retries like it since.
        self._retry_lines: dict[tuple[int, str], tuple[float, int]] = {}

    def pacing(self, limiter: RateLimiter) -> None:
        """The limiter of the build's client: how long what is left takes under its windows."""
        self._limiter = limiter

    def __enter__(self) -> BuildProgress:
        if self._progress is not None:
            self._progress.__enter__()
        self._requests = self._add("requests", None)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._show()
        if self._progress is not None:
            self._progress.__exit__(exc_type, exc, tb)

    def _add(self, name: str, total: int | None) -> int:
        """A bar (without a terminal only its number, for the counts)."""
        if self._progress is None:
            self._unshown += 1
            return self._unshown
        return self._progress.add_task(name, total=total, note="")

    def _update(self, task: int, **fields: Any) -> None:
        if self._progress is not None:
            self._progress.update(cast("TaskID", task), **fields)

    def _due(self) -> bool:
        """Whether the bars should be brought up to date now (never when nothing is drawn)."""
        if not self._live:
            return False
        now = time.monotonic()
        if now - self._shown_at < REFRESH_SECONDS:
            return False
        self._shown_at = now
        return True

    def _show(self) -> None:
        if not self._live:
            return
        notes = [self.outlook()] if self._expected is not None else []
        notes += [f"{self._errors} failed"] if self._errors else []
        self._update(self._requests, completed=self._request_count, note=", ".join(notes))
        for task, count in self._done.items():
            self._update(task, completed=count)

    def outlook(self) -> str:
        """Requests done and about how many are left, the recent rate, the time to go."""
        done = self._request_count
        expected = max(self._expected or 0, done)
        left = expected - done
        rate = self._rate()
        text = f"{done:,} of about {expected:,} requests"
        if rate is not None:
            text += f", {rate:.1f}/s"
        seconds = self._limiter.time_for(left) if self._limiter is not None else 0.0
        if rate:
            seconds = max(seconds, left / rate)
        if left and (rate or seconds):
            text += f", about {duration(seconds)} left"
        return text

    def _rate(self) -> float | None:
        """Requests a second over the last ``RATE_SECONDS`` (None: too early to say)."""
        now = time.monotonic()
        samples = self._samples
        samples.append((now, self._request_count))
        while len(samples) > 2 and samples[1][0] < now - RATE_SECONDS:
            samples.popleft()
        (first, counted), (last, count) = samples[0], samples[-1]
        return (count - counted) / (last - first) if last - first >= 1.0 else None

    # ClientObserver
    def request_done(self, endpoint: str, status: int, seconds: float) -> None:
        self._request_count += 1
        if status == 0 or status >= 400:
            self._errors += 1
        if self._due():
            self._show()
        elif not self._live and self._expected is not None:
            now = time.monotonic()
            if now - self._reported_at >= REPORT_SECONDS:
                self._reported_at = now
                self.console.print(self.outlook())

    def waiting(self, seconds: float, reason: WaitReason) -> None:
        if seconds < 1:
            return
        message = f"waiting {duration(seconds)} ({reason})"
        if self._live:
            self._update(self._requests, note=message)
        else:
            self.console.print(message)

    def retrying(self, endpoint: str, attempt: int, delay: float, reason: str) -> None:
        now, key = time.monotonic(), (attempt, reason)
        printed_at, alike = self._retry_lines.get(key, (None, 0))
        if printed_at is not None and now - printed_at < RETRY_LINE_SECONDS:
            self._retry_lines[key] = (printed_at, alike + 1)
            return
        more = f"; {alike} more like it since" if alike else ""
        self._retry_lines[key] = (now, 0)
        self.console.print(
            f"retrying {endpoint} in {delay:.1f} s (attempt {attempt}: {reason}{more})"
        )

    # CrawlObserver
    def phase_started(self, phase: str, total: int | None) -> None:
        if not self._live:
            size = f" ({total})" if total is not None else ""
            self.console.print(f"{phase}{size}…")
        if phase not in self._phases:
            task = self._phases[phase] = self._add(phase, total)
            self._done[task] = 0
        else:
            self._update(self._phases[phase], total=total)

    def item_done(self, phase: str) -> None:
        task = self._phases.get(phase)
        if task is None:
            self.phase_started(phase, None)
            task = self._phases[phase]
        self._done[task] += 1
        if self._due():
            self._show()

    def skipped(self, skip: Skip) -> None:
        return None  # listed once in the summary, not twice

    def requests_expected(self, total: int) -> None:
        self._expected = total
        self._update(self._requests, total=total)
        if not self._live:
            self.console.print(f"about {total:,} requests to make")

    # render
    def rendering(self, total: int) -> None:
        self.phase_started("render", total)

    def rendered(self) -> None:
        self.item_done("render")


def _bars(console: Printer) -> Progress:
    """The bars drawn on a terminal."""
    # Imported here, on a terminal only (see ``console.console_for``).
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    return Progress(
        SpinnerColumn(),
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[note]}"),
        console=console if isinstance(console, Console) else None,
        transient=False,
    )


def duration(seconds: float) -> str:
    """``42 s``, ``3 min 5 s``, ``1 h 2 min``: a wait or a time to go, as a person reads it."""
    whole = round(seconds)
    if whole < 60:
        return f"{seconds:.1f} s" if seconds < 10 else f"{whole} s"
    minutes, secs = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes} min {secs} s" if secs else f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if minutes else f"{hours} h"
