"""The `storefront` command: init | build | serve | watch | audit | api | session | theme.

Every failure ends with one clear line and a non-zero exit, never a traceback for a user error.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from asyncio import CancelledError
from collections.abc import Sequence

from generator.errors import StorefrontError
from generator.memory import ending_soon

#: The subcommands, each in its own module (imported only when it is the one asked for).
COMMANDS = ("init", "build", "serve", "watch", "audit", "api", "session", "theme")
#: Commands that own nothing once they return (no server, no thread, no child to wait for).
QUICK_EXIT = frozenset({"build"})


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every subcommand, or of ``only`` that one: the modules behind `serve`,
    `watch` and `api` import the companion and the web server, which `build` never needs."""
    parser = argparse.ArgumentParser(
        prog="storefront",
        description="Static storefronts from a store's public API.",
    )
    parser.add_argument("--version", action=_Version, help="print the version and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        if only is None or only == name:
            _add_command(name, sub)
    return parser


class _Version(argparse.Action):
    """``--version``: the installed package's version, looked up only when asked (importing
    ``importlib.metadata`` would cost every build's start)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help=str(kwargs.get("help", "")))

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            found = version("storefront")
        except PackageNotFoundError:  # a source tree that was never installed
            found = "(not installed)"
        print(f"{parser.prog} {found}")
        parser.exit()


def _add_command(name: str, sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    if name == "api":
        from companion import cli as api_command

        api_command.add_parser(sub)
        return
    module = importlib.import_module(f"generator.commands.{name}")
    module.add_parser(sub)


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    only = words[0] if words and words[0] in COMMANDS else None
    name = f"storefront {only}" if only else "storefront"
    try:
        # Inside: Ctrl-C while the command's modules load ends as any other Ctrl-C.
        args = build_parser(only).parse_args(words)
        code: int = args.func(args)
    except StorefrontError as exc:
        print(f"{name}: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except (KeyboardInterrupt, CancelledError):  # Ctrl-C, as asyncio may hand it back
        print(f"{name}: interrupted", file=sys.stderr)
        return 130
    return code


def entry() -> None:
    """The console script and ``python -m generator``: ``main``, then the exit.

    A build holds hundreds of thousands of objects when it returns; letting the interpreter
    free them one by one at exit costs a large store most of a second. Everything a build
    writes is closed by then, so `storefront build` flushes its output and ends the process at
    once; the other commands exit as usual."""
    words = sys.argv[1:]
    quick = bool(words) and words[0] in QUICK_EXIT
    if quick:
        ending_soon()
    code = main(words)
    if quick:
        quick_exit(code)
    raise SystemExit(code)


def quick_exit(code: int) -> None:
    """End the process now, standard output and error flushed, without finalizing objects."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
