"""The summary a build prints at its end: pages by type, requests, waits, what was skipped,
and warnings (what the store's content holds that its pages' security policies refuse)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from generator.console import Printer
from generator.model import Skip, UnusableUrl
from generator.plan.moments import Moment, shown

#: How many skipped items (and warnings) the summary lists one by one before it only counts
#: the rest.
SKIPS_LISTED = 20


@dataclass(frozen=True, slots=True)
class Budget:
    """A rate window at a build's end: requests it counts (earlier builds' of the same key
    too), its limit and its length."""

    used: int
    limit: int
    seconds: float


@dataclass(frozen=True, slots=True)
class BuildSummary:
    out_dir: Path
    pages_by_kind: Counter[str]
    files: int
    bytes: int
    sitemap_files: tuple[str, ...]
    requests: int
    retries: int
    rate_limited: int
    waited_seconds: float
    skipped: tuple[Skip, ...]
    seconds: float
    source: str
    budget: Budget | None = None  # the API's longest rate window; None: no API asked
    #: Where the seconds went: (step, seconds) for the crawl, the plan, the render and write.
    phases: tuple[tuple[str, float], ...] = ()
    #: Pages rendered, pages kept from the last build unchanged, pages deleted.
    rendered: int = 0
    kept: int = 0
    deleted: int = 0
    #: One line each: a script, frame or other load in the content that no policy allows.
    warnings: tuple[str, ...] = ()
    #: Urls of the API the site cannot use, treated as null: a warning each.
    unusable_urls: tuple[UnusableUrl, ...] = ()
    #: When the pages change by time alone (a sale's start or end): rebuild then, earliest first.
    moments: tuple[Moment, ...] = ()

    @property
    def pages(self) -> int:
        return sum(self.pages_by_kind.values())


def _span(seconds: float) -> str:
    if seconds % 3600 == 0:
        return "hour" if seconds == 3600 else f"{seconds / 3600:g} hours"
    return f"{seconds / 60:g} min" if seconds % 60 == 0 else f"{seconds:g} s"


def _short(seconds: float) -> str:
    """Tenths, or hundredths under a second (a rebuild's plan takes a few)."""
    return f"{seconds:.2f}" if seconds < 1 else f"{seconds:.1f}"


def print_summary(summary: BuildSummary, console: Printer) -> None:
    title = f"Built {summary.out_dir} from {summary.source}"
    rows: list[tuple[str, str]] = []
    for kind, count in sorted(summary.pages_by_kind.items()):
        rows.append((f"pages: {kind}", str(count)))
    rows.append(("pages in all", str(summary.pages)))
    rows.append(
        (
            "pages rendered, kept, deleted",
            f"{summary.rendered}, {summary.kept}, {summary.deleted}",
        )
    )
    rows.append(("files in the output", f"{summary.files} ({summary.bytes / 1_048_576:.1f} MiB)"))
    rows.append(("sitemap files", ", ".join(summary.sitemap_files) or "none"))
    rows.append(("API requests", str(summary.requests)))
    if summary.budget is not None:
        budget = summary.budget
        rows.append(
            (
                f"requests in the last {_span(budget.seconds)} (earlier builds too)",
                f"{budget.used:,} of {budget.limit:,} ({budget.used / budget.limit:.0%})",
            )
        )
    rows.append(("retries (5xx, timeouts)", str(summary.retries)))
    rows.append(("429 answers", str(summary.rate_limited)))
    rows.append(("seconds waited for rate limits", f"{summary.waited_seconds:.1f}"))
    rows.append(("items skipped", str(len(summary.skipped))))
    rows.append(("unusable urls (treated as null)", str(len(summary.unusable_urls))))
    total = f"{summary.seconds:.1f}"
    if summary.phases:
        spent = ", ".join(f"{name} {_short(phase)}" for name, phase in summary.phases)
        total += f" ({spent})"
    rows.append(("seconds", total))
    _print_table(console, title, rows)
    upcoming = shown(summary.moments[0]) if summary.moments else "none"
    console.print(plain(f"next scheduled rebuild: {upcoming}", console))
    for skip in summary.skipped[:SKIPS_LISTED]:
        console.print(plain(f"  skipped {skip.what}: {skip.reason}", console))
    hidden = len(summary.skipped) - SKIPS_LISTED
    if hidden > 0:
        console.print(f"  … and {hidden} more skipped")
    for warning in summary.warnings[:SKIPS_LISTED]:
        console.print(f"  warning: {plain(warning, console)}")
    hidden = len(summary.warnings) - SKIPS_LISTED
    if hidden > 0:
        console.print(f"  … and {hidden} more warnings (`storefront audit` lists them by page)")
    # Every one: each is a record the merchant must mend (the audit fails on them).
    for unusable in summary.unusable_urls:
        console.print(plain(unusable_warning(unusable), console))


def unusable_warning(unusable: UnusableUrl) -> str:
    # repr: whatever the url holds (a line break, an escape sequence) stays on one line.
    return (
        f"  warning: {unusable.what}: url {unusable.url!r} is not usable; "
        "shown as plain text, no page"
    )


def plain(text: str, console: Printer) -> str:
    """``text`` as it is, also on a terminal (where rich would read "[...]" as markup)."""
    if not console.is_terminal:
        return text
    from rich.markup import escape

    return escape(text)


def _print_table(console: Printer, title: str, rows: list[tuple[str, str]]) -> None:
    """A table on a terminal; aligned lines for a file or a pipe."""
    if console.is_terminal:
        # Imported here, on a terminal only (see ``console.console_for``).
        from rich.table import Table

        table = Table(title=title, show_header=False)
        table.add_column("what")
        table.add_column("count", justify="right")
        for row in rows:
            table.add_row(*row)
        console.print(table)  # type: ignore[arg-type]  # a rich console on a terminal
        return
    console.print(title)
    what = max(len(w) for w, _ in rows)
    count = max(len(c) for _, c in rows)
    for w, c in rows:
        console.print(f"  {w:<{what}}  {c:>{count}}")
