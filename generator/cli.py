"""The `storefront` command: build | serve | watch | audit | api.

Every failure ends with one clear line and a non-zero exit, never a traceback for a user error.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from generator.errors import StorefrontError


def build_parser() -> argparse.ArgumentParser:
    from companion import cli as api_command
    from generator.commands import audit, build, serve, watch

    parser = argparse.ArgumentParser(
        prog="storefront",
        description="Static storefronts from a store's public API.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    build.add_parser(sub)
    serve.add_parser(sub)
    watch.add_parser(sub)
    audit.add_parser(sub)
    api_command.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        code: int = args.func(args)
    except StorefrontError as exc:
        print(f"storefront {args.command}: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print(f"storefront {args.command}: interrupted", file=sys.stderr)
        return 130
    return code
