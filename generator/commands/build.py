"""`storefront build`: parse the settings, run the pipeline, print the summary."""

from __future__ import annotations

import argparse
from pathlib import Path

import anyio

from generator.config import add_setting_flags, environment, resolve
from generator.console import console_for
from generator.pipeline import build_site
from generator.render.theme import interface_warning
from generator.summary import print_summary
from generator.xstore import load_descriptor


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "build",
        help="build the static storefront",
        description="Crawl the store's public API and write the static storefront. "
        "With no API url the embedded companion serves the demo store. Each setting comes "
        "from its flag, else its environment variable, else storefront.toml in this folder "
        "(keyed by the flag's name; never the key), else xstore.json (staticDir, the output "
        "folder), else its default.",
    )
    add_setting_flags(parser)
    parser.add_argument(
        "--xstore",
        default="xstore.json",
        help="deployment descriptor to read (default: xstore.json; missing is fine)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    console = console_for(stderr=True)
    label = "[yellow]warning:[/yellow]" if console.is_terminal else "warning:"
    descriptor = load_descriptor(Path(args.xstore))
    for warning in descriptor.warnings:
        console.print(f"{label} {warning}")
    config = resolve(args, environ=environment(), descriptor=descriptor)
    moved = interface_warning(config.templates)
    if moved:
        console.print(f"{label} {moved}")
    summary = anyio.run(build_site, config, console)
    print_summary(summary, console_for(stderr=False))
    return 0
