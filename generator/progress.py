"""What a build shows on the terminal while it runs: requests, pages, rate-limit waits.

``BuildProgress`` implements the client's and the crawl's observer protocols, so the crawl layers
never know how (or whether) progress is displayed. On a terminal it draws rich progress bars; in
CI (no terminal) it prints a line per phase and per wait instead of redrawing.
"""

from __future__ import annotations

from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

from generator.client.observer import WaitReason
from generator.model import Skip


class BuildProgress:
    """Progress of one build; use as a context manager around the crawl and the render."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self._live = console.is_terminal
        self._progress = Progress(
            SpinnerColumn(),
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.fields[note]}"),
            console=console,
            transient=False,
            disable=not self._live,
        )
        self._requests = TaskID(-1)
        self._phases: dict[str, TaskID] = {}
        self._request_count = 0
        self._errors = 0

    def __enter__(self) -> BuildProgress:
        self._progress.__enter__()
        self._requests = self._progress.add_task("requests", total=None, note="")
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._progress.__exit__(exc_type, exc, tb)

    # ClientObserver
    def request_done(self, endpoint: str, status: int, seconds: float) -> None:
        self._request_count += 1
        if status == 0 or status >= 400:
            self._errors += 1
        note = f"{self._errors} failed" if self._errors else ""
        self._progress.update(self._requests, completed=self._request_count, note=note)

    def waiting(self, seconds: float, reason: WaitReason) -> None:
        if seconds < 1:
            return
        message = f"waiting {seconds:.1f} s ({reason})"
        if self._live:
            self._progress.update(self._requests, note=message)
        else:
            self.console.print(message)

    def retrying(self, endpoint: str, attempt: int, delay: float, reason: str) -> None:
        self.console.print(f"retrying {endpoint} in {delay:.1f} s (attempt {attempt}: {reason})")

    # CrawlObserver
    def phase_started(self, phase: str, total: int | None) -> None:
        if not self._live:
            size = f" ({total})" if total is not None else ""
            self.console.print(f"{phase}{size}…")
        if phase not in self._phases:
            self._phases[phase] = self._progress.add_task(phase, total=total, note="")
        else:
            self._progress.update(self._phases[phase], total=total)

    def item_done(self, phase: str) -> None:
        task = self._phases.get(phase)
        if task is None:
            self.phase_started(phase, None)
            task = self._phases[phase]
        self._progress.advance(task)

    def skipped(self, skip: Skip) -> None:
        return None  # listed once in the summary, not twice

    # render
    def rendering(self, total: int) -> None:
        self.phase_started("render", total)

    def rendered(self) -> None:
        self.item_done("render")
