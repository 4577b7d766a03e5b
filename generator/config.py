"""Build settings: each declared once, with its flag, environment variable, default and help.

Precedence: command-line flag, then environment variable, then xstore.json (``staticDir`` is the
default output folder), then the default below.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from generator.errors import ConfigError, UnsafePath
from generator.plan.paths import base_path
from generator.xstore import Descriptor

DEFAULT_SITE_URL = "http://127.0.0.1:8000"
BUNDLED_THEME = Path(__file__).resolve().parents[1] / "site-templates"


@dataclass(frozen=True, slots=True)
class Setting:
    name: str
    flag: str
    env: str | None
    default: str | None
    help: str
    #: A switch takes no value on the command line; its variable is on when "1"/"true"/"yes".
    switch: bool = False


SETTINGS: tuple[Setting, ...] = (
    Setting(
        "api_url",
        "--api-url",
        "STOREFRONT_API_URL",
        None,
        "Base address of the store's public API, ending in /public/v1. "
        "Without it the embedded companion serves the demo store.",
    ),
    Setting(
        "api_key",
        "--key",
        "STOREFRONT_API_KEY",
        None,
        "Publishable key (pk_live_...) sent as X-Service-Key.",
    ),
    Setting(
        "site_url",
        "--site-url",
        "STOREFRONT_SITE_URL",
        None,
        "Absolute url of the published site, for links, canonicals and sitemap locs; may end "
        "in a path prefix (https://user.github.io/shop). Required with --api-url; the embedded "
        f"demo defaults to {DEFAULT_SITE_URL}.",
    ),
    Setting(
        "out",
        "--out",
        "STOREFRONT_OUT",
        "output",
        "Output folder (default: xstore.json staticDir, else output).",
    ),
    Setting(
        "cache_dir",
        "--cache-dir",
        "STOREFRONT_CACHE_DIR",
        ".storefront-cache",
        "Build state between builds; never deployed.",
    ),
    Setting(
        "templates",
        "--templates",
        "STOREFRONT_TEMPLATES",
        "site-templates",
        "Theme folder: Jinja2 templates, CSS and island JS.",
    ),
    Setting(
        "concurrency",
        "--concurrency",
        "STOREFRONT_CONCURRENCY",
        "8",
        "Requests in flight at once.",
    ),
    Setting(
        "demo_products",
        "--demo-products",
        "STOREFRONT_DEMO_PRODUCTS",
        "300",
        "Products in the embedded demo store (only without --api-url).",
    ),
    Setting(
        "full",
        "--full",
        "STOREFRONT_FULL",
        None,
        "Ignore the crawl cache and the page records: fetch and render everything.",
        switch=True,
    ),
    Setting(
        "from_cache",
        "--from-cache",
        "STOREFRONT_FROM_CACHE",
        None,
        "No network: render from the last crawl (template work, re-theming in CI).",
        switch=True,
    ),
    Setting(
        "workers",
        "--workers",
        "STOREFRONT_WORKERS",
        "auto",
        "Processes that render pages (auto: one per CPU); large stores only.",
    ),
)


#: Settings of `storefront watch` alone, declared like the build's (flag, variable, default).
#: The secret has no xstore.json key: that file is committed, a secret must not be.
WATCH_SETTINGS: tuple[Setting, ...] = (
    Setting(
        "webhook_secret",
        "--webhook-secret",
        "STOREFRONT_WEBHOOK_SECRET",
        None,
        "Signing secret (whsec_...) of the companion's content-change webhook subscribed to "
        "watch's /_storefront/webhook; with it, watch rebuilds on the webhook instead of polling.",
    ),
)


@dataclass(frozen=True, slots=True)
class WatchConfig:
    webhook_secret: str | None = None


@dataclass(frozen=True, slots=True)
class BuildConfig:
    api_url: str | None
    api_key: str | None
    site_url: str
    out: Path
    cache_dir: Path
    templates: Path
    concurrency: int
    demo_products: int
    descriptor: Descriptor
    full: bool = False
    from_cache: bool = False
    workers: int = 1

    @property
    def embedded(self) -> bool:
        """True when the build runs the companion in-process on the demo store."""
        return self.api_url is None


def add_setting_flags(
    parser: argparse.ArgumentParser, settings: tuple[Setting, ...] = SETTINGS
) -> None:
    for s in settings:
        env = f" [env {s.env}]" if s.env else ""
        if s.switch:
            parser.add_argument(
                s.flag, dest=s.name, action="store_const", const="1", help=f"{s.help}{env}"
            )
        else:
            parser.add_argument(s.flag, dest=s.name, default=None, help=f"{s.help}{env}")


def resolve(
    args: argparse.Namespace, *, environ: Mapping[str, str], descriptor: Descriptor
) -> BuildConfig:
    """Merge flags, environment and the descriptor into one checked BuildConfig."""
    raw: dict[str, str | None] = {}
    for s in SETTINGS:
        value = getattr(args, s.name, None)
        if value is None and s.env:
            value = environ.get(s.env) or None
        if value is None and s.name == "out" and descriptor.static_dir:
            value = descriptor.static_dir
        raw[s.name] = value if value is not None else s.default

    missing = [name for name in descriptor.required_env if not environ.get(name)]
    if missing:
        raise ConfigError(
            "xstore.json requiredEnv names variables that are not set: " + ", ".join(missing)
        )

    api_url = _api_url(raw["api_url"])
    if raw["site_url"] is None and api_url is not None:
        raise ConfigError(
            "a build against --api-url needs the published site's url: set --site-url or "
            "STOREFRONT_SITE_URL (for example https://shop.example.vn)"
        )
    return BuildConfig(
        api_url=api_url,
        api_key=raw["api_key"],
        site_url=_site_url(raw["site_url"] or DEFAULT_SITE_URL),
        out=Path(raw["out"] or "output"),
        cache_dir=Path(raw["cache_dir"] or ".storefront-cache"),
        templates=_theme_dir(raw["templates"]),
        concurrency=_positive_int(raw["concurrency"], "--concurrency"),
        demo_products=_positive_int(raw["demo_products"], "--demo-products"),
        descriptor=descriptor,
        full=_switch(raw["full"]),
        from_cache=_switch(raw["from_cache"]),
        workers=_workers(raw["workers"]),
    )


def resolve_watch(args: argparse.Namespace, *, environ: Mapping[str, str]) -> WatchConfig:
    """The watch settings: flag, then environment variable, then default."""
    raw: dict[str, str | None] = {}
    for s in WATCH_SETTINGS:
        value = getattr(args, s.name, None)
        if value is None and s.env:
            value = environ.get(s.env) or None
        raw[s.name] = value if value is not None else s.default
    secret = raw["webhook_secret"]
    if secret is not None and not secret.strip():
        raise ConfigError("--webhook-secret must not be blank")
    return WatchConfig(webhook_secret=secret)


def _api_url(value: str | None) -> str | None:
    if value is None:
        return None
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError(f"--api-url must be an http(s) address, got {value!r}")
    return value.rstrip("/")


def _site_url(value: str) -> str:
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError(
            f"--site-url must be an absolute http(s) url such as https://shop.example.vn, "
            f"got {value!r}"
        )
    if parts.query or parts.fragment:
        raise ConfigError(f"--site-url must not carry a query or fragment, got {value!r}")
    site_url = value.rstrip("/")
    try:
        base_path(site_url)
    except UnsafePath as exc:
        raise ConfigError(f"--site-url: its path prefix is not usable ({exc})") from None
    return site_url


def _positive_int(value: str | None, flag: str) -> int:
    try:
        number = int(value or "")
    except ValueError:
        raise ConfigError(f"{flag} must be a whole number, got {value!r}") from None
    if number < 1:
        raise ConfigError(f"{flag} must be at least 1, got {number}")
    return number


def _switch(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "true", "yes", "on")


def _workers(value: str | None) -> int:
    if value in (None, "", "auto"):
        return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1)
    return _positive_int(value, "--workers")


def _theme_dir(value: str | None) -> Path:
    """The theme folder; the default theme ships beside the package when none is given."""
    path = Path(value or "site-templates")
    if path.is_dir():
        return path
    if value in (None, "site-templates") and BUNDLED_THEME.is_dir():
        return BUNDLED_THEME
    raise ConfigError(f"--templates: no theme folder at {path} (copy site-templates/ to start one)")


def environment() -> Mapping[str, str]:
    """The process environment; a function so commands pass it down instead of reading globals."""
    return os.environ
