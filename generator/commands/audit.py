"""`storefront audit`: SEO and integrity report of a built output folder.

Exit status: 0 when the audit passes, 1 on any error (or any warning under ``--strict``),
2 for a usage problem (no such folder, a bad url).
"""

from __future__ import annotations

import argparse
import os
import sys
from datetime import UTC, datetime
from pathlib import Path

import anyio
import httpx

from generator.audit import audit_site
from generator.audit.api_sections import ApiSection, fetch_api_sections
from generator.audit.reachability import MAX_DEPTH
from generator.audit.report_html import report_to_html
from generator.audit.report_json import report_to_json
from generator.audit.report_text import print_report
from generator.audit.urls import origin_of
from generator.client.api import ApiClient
from generator.config import output_folder, read_setting, versioned_api_url
from generator.errors import ConfigError, StorefrontError, WriteError

_API_TIMEOUT = 30.0


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "audit",
        help="SEO and integrity report of a built output folder",
        description=(
            "Check the sitemap, every page (title, description, canonical, lang, image alt, "
            "JSON-LD) and every internal link of a built site. Exits non-zero on errors, "
            "and on warnings too under --strict."
        ),
    )
    parser.add_argument(
        "--out",
        default=None,
        help="Output folder to audit [env STOREFRONT_OUT; storefront.toml out; default: "
        "xstore.json staticDir, else output]",
    )
    parser.add_argument(
        "folder", nargs="?", default=None, help="the output folder, as --out names it"
    )
    parser.add_argument(
        "--site-url",
        default=None,
        help="Origin the site is published at [env STOREFRONT_SITE_URL; storefront.toml "
        "site-url; default: the origin of the sitemap's locs]",
    )
    parser.add_argument(
        "--api-url",
        default=None,
        help="Also compare the sitemap with GET /sitemap of this API (base ending in "
        "/public/v1) [env STOREFRONT_API_URL; storefront.toml api-url]",
    )
    parser.add_argument(
        "--key", default=None, help="Publishable key for --api-url [env STOREFRONT_API_KEY]"
    )
    parser.add_argument("--json", type=Path, default=None, metavar="FILE", help="Write JSON here")
    parser.add_argument("--html", type=Path, default=None, metavar="FILE", help="Write HTML here")
    parser.add_argument(
        "--strict", action="store_true", help="Fail on warnings as well as errors (for CI)"
    )
    parser.add_argument(
        "--max-depth",
        type=int,
        default=MAX_DEPTH,
        metavar="N",
        help=f"Most clicks from the home page a page may be (default {MAX_DEPTH})",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    environ = os.environ
    if args.out is not None and args.folder is not None and args.out != args.folder:
        raise ConfigError(f"two output folders given: --out {args.out} and {args.folder}")
    out = _out_dir(output_folder(args.out or args.folder, environ))
    if args.max_depth < 1:
        raise ConfigError(f"--max-depth must be at least 1, got {args.max_depth}")
    site_url = read_setting("site_url", args.site_url, environ)
    if site_url is not None and origin_of(site_url) is None:
        raise ConfigError(f"--site-url must be an absolute http(s) origin, got {site_url!r}")
    for path, flag in ((args.json, "--json"), (args.html, "--html")):
        if path is not None and not path.parent.is_dir():  # before the audit, not after it
            raise WriteError(f"{flag}: cannot write {path} (no folder {path.parent})")
    api_url = read_setting("api_url", args.api_url, environ)
    key = args.key or environ.get("STOREFRONT_API_KEY") or ""
    sections = None
    if api_url is not None and not key and not (args.api_url or environ.get("STOREFRONT_API_URL")):
        # storefront.toml names the API, but this shell has no key for it: audit the files.
        print(
            "not comparing the sitemap with the API's: set STOREFRONT_API_KEY for "
            f"{api_url} (storefront.toml api-url)",
            file=sys.stderr,
        )
    elif api_url is not None:
        if origin_of(api_url) is None:
            raise ConfigError(f"--api-url must be an http(s) address, got {api_url!r}")
        sections = anyio.run(_fetch_sections, versioned_api_url(api_url), key)

    try:
        report = audit_site(
            out,
            now=datetime.now(UTC),
            site_url=site_url,
            api_sections=sections,
            max_depth=args.max_depth,
        )
    except OSError as exc:
        raise StorefrontError(
            f"cannot read {exc.filename or out}: {exc.strerror or exc} (check the permissions)"
        ) from None
    print_report(report, sys.stdout, strict=args.strict)
    if args.json is not None:
        _write(args.json, report_to_json(report, strict=args.strict), "--json")
    if args.html is not None:
        _write(args.html, report_to_html(report, strict=args.strict), "--html")
    return report.exit_code(strict=args.strict)


def _out_dir(out: Path) -> Path:
    if not out.is_dir():
        raise ConfigError(f"no output folder at {out} (run `storefront build` first)")
    return out


async def _fetch_sections(api_url: str, key: str) -> tuple[ApiSection, ...]:
    async with httpx.AsyncClient(base_url=api_url + "/", timeout=_API_TIMEOUT) as http:
        return await fetch_api_sections(ApiClient(http, key=key))


def _write(path: Path, text: str, flag: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise WriteError(f"{flag}: cannot write {path} ({exc.strerror or exc})") from None
