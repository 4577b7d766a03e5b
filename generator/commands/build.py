"""`storefront build`: parse the settings, run the pipeline, print the summary."""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from pathlib import Path

import anyio

from generator.config import BuildConfig, add_setting_flags, environment, resolve, switch_on
from generator.console import console_for
from generator.pipeline import build_site
from generator.plan.moments import shown
from generator.render.theme import interface_warning
from generator.summary import plain, print_summary
from generator.write.schedule_file import load_schedule, why_due
from generator.xstore import load_descriptor


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "build",
        help="build the static storefront",
        description="Crawl the store's public API and write the static storefront. "
        "With no API url the embedded companion serves the demo store. Each setting comes "
        "from its flag, else its environment variable, else storefront.toml in this folder "
        "(keyed by the flag's name; never the key), else xstore.json (staticDir, the output "
        "folder), else its default. The summary ends with the next scheduled rebuild: when "
        "the pages change by time alone (a flash sale's start or end), recorded in --cache-dir "
        "for `storefront watch` and --if-due.",
    )
    add_setting_flags(parser)
    parser.add_argument(
        "--xstore",
        default="xstore.json",
        help="deployment descriptor to read (default: xstore.json; missing is fine)",
    )
    parser.add_argument(
        "--if-due",
        action="store_true",
        default=None,
        help="build only when due: when a moment the last build recorded (a flash sale's "
        "start or end, a banner's end) has passed, no build is recorded in --cache-dir, --out "
        "holds no site, or --event or --full is given; otherwise print one line, 'nothing "
        "due: ...', and exit 0, asking no API: for a CI schedule every few minutes "
        "[env STOREFRONT_IF_DUE]",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    console = console_for(stderr=True)
    label = "[yellow]warning:[/yellow]" if console.is_terminal else "warning:"
    descriptor = load_descriptor(Path(args.xstore))
    for warning in descriptor.warnings:
        console.print(f"{label} {warning}")
    config = resolve(args, environ=environment(), descriptor=descriptor)
    if args.if_due or switch_on(environment().get("STOREFRONT_IF_DUE")):
        reason = _due(config)
        if reason is None:
            return 0
        console.print(plain(f"due: {reason}", console))
    moved = interface_warning(config.templates)
    if moved:
        console.print(f"{label} {moved}")
    summary = anyio.run(build_site, config, console)
    print_summary(summary, console_for(stderr=False))
    return 0


def _due(config: BuildConfig) -> str | None:
    """Why a build is due; None after printing the one line that says nothing is."""
    now = datetime.now(UTC)
    schedule = load_schedule(config.cache_dir)
    reason = why_due(schedule, out=config.out, event=config.event, full=config.full, now=now)
    if reason is None:
        upcoming = schedule.upcoming(now) if schedule is not None else None
        told = (
            f"next scheduled rebuild {shown(upcoming)}"
            if upcoming
            else "no scheduled rebuild recorded"
        )
        print(f"nothing due: {told}")
    return reason
