"""`storefront serve`: the built output and the API on one origin, for previews and islands."""

from __future__ import annotations

import argparse
import html
import os
import re
from pathlib import Path

import uvicorn
from starlette.types import ASGIApp

from companion.embedding import browsable_origin
from generator.config import output_folder, read_setting, versioned_api_url
from generator.errors import ConfigError, UnsafePath
from generator.plan.paths import base_path
from generator.serve.api_proxy import serve_log_config
from generator.serve.app import mounted
from generator.serve.listen import listening_socket
from generator.serve.stack import embedded_stack, proxy_stack

_DATA_BASE = re.compile(r'<html[^>]*\sdata-base="([^"]*)"')


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="serve the output with the API on the same origin",
        description="Serve the built site by the output layout's rules (/a/b from a/b.html, "
        "404.html with status 404) and, under /public/, the embedded companion on the demo "
        "store or a proxy to --api-url; under /session/, the customer session the islands use "
        "(login into an httpOnly cookie, API calls with the visitor's cookies).",
    )
    parser.add_argument(
        "--out",
        default=None,
        help="folder to serve [env STOREFRONT_OUT; storefront.toml out; default: xstore.json "
        "staticDir, else output]",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=8000, help="port (default: 8000)")
    parser.add_argument(
        "--api-url",
        default=None,
        help="proxy /public/ to this API (its base, ending in /public/v1) instead of running "
        "the embedded companion [env STOREFRONT_API_URL; storefront.toml api-url]",
    )
    parser.add_argument(
        "--key",
        default=None,
        help="publishable key sent to --api-url on session calls [env STOREFRONT_API_KEY]",
    )
    parser.add_argument(
        "--site-url",
        default=None,
        help="the site url the output was built for; a path prefix in it "
        "(https://user.github.io/shop) is where it is served [env STOREFRONT_SITE_URL; "
        "storefront.toml site-url; default: the prefix the output was built with]",
    )
    parser.add_argument(
        "--db",
        default=".storefront-cache/companion.sqlite3",
        help="database of the embedded companion (seeded with the demo store when new)",
    )
    parser.add_argument(
        "--demo-products", type=int, default=300, help="size of the demo store when seeded"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    out = output_folder(args.out, os.environ)
    if not (out / "index.html").is_file():
        raise ConfigError(f"{out}: no built site here; run `storefront build --out {out}` first")
    with listening_socket(args.host, args.port) as listening:  # before the demo store starts
        site_url = read_setting("site_url", args.site_url, os.environ)
        base = _base_path(site_url) if site_url else _built_base(out)
        app = mounted(_stack(args, out.resolve(), base), base)
        print(f"Serving {out} and the API at http://{args.host}:{args.port}{base}/ (Ctrl+C stops)")
        config = uvicorn.Config(
            app, host=args.host, port=args.port, log_level="info", log_config=serve_log_config()
        )
        try:
            uvicorn.Server(config).run(sockets=[listening])
        except KeyboardInterrupt:
            return 0
    return 0


def _built_base(out: Path) -> str:
    """The path prefix the output was built for, as its home page says (``<html data-base>``)."""
    head = (out / "index.html").read_bytes()[:4096].decode("utf-8", errors="replace")
    found = _DATA_BASE.search(head)
    return _base_path("http://localhost" + html.unescape(found.group(1))) if found else ""


def _base_path(site_url: str) -> str:
    try:
        return base_path(site_url.rstrip("/"))
    except UnsafePath as exc:
        raise ConfigError(f"--site-url: its path prefix is not usable ({exc})") from None


def _stack(args: argparse.Namespace, root: Path, base: str) -> ASGIApp:
    api_url = read_setting("api_url", args.api_url, os.environ)
    if api_url:
        key = args.key or os.environ.get("STOREFRONT_API_KEY") or None
        return proxy_stack(root, api_url=versioned_api_url(api_url), key=key)
    Path(args.db).parent.mkdir(parents=True, exist_ok=True)
    return embedded_stack(
        root,
        database=args.db,
        public_url=browsable_origin(args.host, args.port) + base,
        seed_products=args.demo_products,
    )
