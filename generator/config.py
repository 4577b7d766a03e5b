"""Build settings: each declared once, with its flag, environment variable, default and help.

Precedence: command-line flag, then environment variable, then storefront.toml (the project's
settings, keyed by the flags' names; never the key), then xstore.json (``staticDir`` is the
default output folder), then the default below.
"""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import SplitResult, urlsplit

from generator.errors import ConfigError, UnsafePath
from generator.plan.paths import base_path
from generator.project_file import PROJECT_FILE, load_project_settings
from generator.render.theme import DEFAULT_THEME, check_theme
from generator.xstore import Descriptor, load_descriptor

DEFAULT_SITE_URL = "http://127.0.0.1:8000"
#: Where the public API lives under its host (the spec: the base address ends in it).
API_PATH = "/public/v1"
#: Where an --api-url names the API in another version or below its base (/public/v2/products).
_API_PLACE = re.compile(r"/public(/v\d+)?(/.*)?$")
#: The default theme, shipped in the package (every theme folder is layered over it).
BUNDLED_THEME = DEFAULT_THEME


@dataclass(frozen=True, slots=True)
class Setting:
    name: str
    flag: str
    env: str | None
    default: str | None
    help: str
    #: A switch takes no value on the command line; its variable is on when "1"/"true"/"yes".
    switch: bool = False
    #: Earlier names still accepted: flags, then environment variables (read after ``env``).
    old_flags: tuple[str, ...] = ()
    old_env: tuple[str, ...] = ()


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
        "session_url",
        "--session-url",
        "STOREFRONT_SESSION_URL",
        None,
        "Address of the session service (`storefront session`, https://session.example.vn) "
        "that the site's /session/* is proxied to; writes Netlify's _redirects rule.",
    ),
    Setting(
        "out",
        "--out",
        "STOREFRONT_OUT",
        "output",
        "Output folder (default: storefront.toml out, else xstore.json staticDir, else output).",
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
        "--theme",
        "STOREFRONT_THEME",
        "site-templates",
        "Theme folder layered over the default theme: its templates, partials, assets, islands "
        "and theme.toml replace the default's one file at a time (`storefront theme new DIR` "
        "starts one). --templates / STOREFRONT_TEMPLATES are older names.",
        old_flags=("--templates",),
        old_env=("STOREFRONT_TEMPLATES",),
    ),
    Setting(
        "concurrency",
        "--concurrency",
        "STOREFRONT_CONCURRENCY",
        "8",
        "Requests in flight at once.",
    ),
    Setting(
        "related_products",
        "--related-products",
        "STOREFRONT_RELATED_PRODUCTS",
        "4",
        "Related products written into each product page's HTML, chosen from its category "
        "(0: none; the page asks the API for none either).",
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
        "event",
        "--event",
        "STOREFRONT_EVENT",
        None,
        "A JSON file holding the content-change webhook payload(s) that started this build: "
        "a product update then asks only the pages it can move (see docs/webhooks.md).",
    ),
    Setting(
        "schedule_horizon",
        "--schedule-horizon",
        "STOREFRONT_SCHEDULE_HORIZON",
        "31d",
        "How far ahead the build records the moments its pages change by time alone (a flash "
        "sale's start or end, a banner's end), for `watch` and `build --if-due` (45m, 12h, 7d).",
    ),
    Setting(
        "schedule_limit",
        "--schedule-limit",
        "STOREFRONT_SCHEDULE_LIMIT",
        "20",
        "Most moments the build records (the earliest ones).",
    ),
    Setting(
        "max_requests",
        "--max-requests",
        "STOREFRONT_MAX_REQUESTS",
        None,
        "Stop the crawl after this many requests (exit status 75); the next build continues "
        "from what it fetched.",
    ),
    Setting(
        "deadline",
        "--deadline",
        "STOREFRONT_DEADLINE",
        None,
        "Stop the crawl after this long (90s, 45m, 5h; exit status 75), for a CI job's time "
        "limit; the next build continues from what it fetched.",
    ),
    Setting(
        "workers",
        "--workers",
        "STOREFRONT_WORKERS",
        "auto",
        "Processes that render pages (auto: one per CPU); large stores only.",
    ),
    Setting(
        "max_answer_mb",
        "--max-answer-mb",
        "STOREFRONT_MAX_ANSWER_MB",
        "32",
        "Largest API answer the build reads, in MiB once decompressed; a larger one fails it.",
    ),
    Setting(
        "request_deadline",
        "--request-deadline",
        "STOREFRONT_REQUEST_DEADLINE",
        "60",
        "Seconds one API request may take, its body included, however slowly it trickles in.",
    ),
    Setting(
        "max_retry_after",
        "--max-retry-after",
        "STOREFRONT_MAX_RETRY_AFTER",
        "900",
        "Longest wait, in seconds, a 429 may ask of the build (Retry-After); longer fails it.",
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
    Setting(
        "schedule_delay",
        "--schedule-delay",
        "STOREFRONT_SCHEDULE_DELAY",
        "30",
        "Seconds after a recorded moment (a flash sale's start or end) at which watch "
        "rebuilds, so that the API has switched.",
    ),
)


@dataclass(frozen=True, slots=True)
class WatchConfig:
    webhook_secret: str | None = None
    schedule_delay: float = 30.0


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
    max_requests: int | None = None
    deadline: float | None = None  # seconds
    max_answer_bytes: int = 32 * 1024 * 1024
    request_deadline: float = 60.0
    max_retry_after: float = 900.0
    #: Related products rendered into each product page (0: none).
    related_products: int = 4
    #: Where the session service lives (its /session/ beneath); None: not proxied by the build.
    session_url: str | None = None
    #: The webhook payload(s) that started this build (``--event``); None: walk every list.
    event: Path | None = None
    #: Seconds ahead within which the build records its rebuild moments (``plan.moments``).
    schedule_horizon: float = 31 * 86400.0
    #: Most rebuild moments recorded.
    schedule_limit: int = 20

    @property
    def embedded(self) -> bool:
        """True when the build runs the companion in-process on the demo store."""
        return self.api_url is None


def add_setting_flags(
    parser: argparse.ArgumentParser, settings: tuple[Setting, ...] = SETTINGS
) -> None:
    for s in settings:
        env = f" [env {s.env}]" if s.env else ""
        if s.default is not None and "default" not in s.help:
            env = f" (default {s.default}){env}"
        if s.switch:
            parser.add_argument(
                s.flag,
                *s.old_flags,
                dest=s.name,
                action="store_const",
                const="1",
                help=f"{s.help}{env}",
            )
        else:
            parser.add_argument(
                s.flag,
                *s.old_flags,
                dest=s.name,
                default=None,
                metavar=s.flag.removeprefix("--").upper().replace("-", "_"),
                help=f"{s.help}{env}",
            )


def project_keys() -> dict[str, str]:
    """storefront.toml's keys (the flags' names, old ones too) -> the settings they set."""
    keys: dict[str, str] = {}
    for s in SETTINGS:
        if s.name != "api_key":  # a key is never kept in a committed file
            for flag in (s.flag, *s.old_flags):
                keys[flag.removeprefix("--")] = s.name
    return keys


def project_settings(path: Path | None = None) -> dict[str, str]:
    """The settings of storefront.toml (of the folder the command runs in by default)."""
    return load_project_settings(path or Path(PROJECT_FILE), project_keys())


def read_setting(name: str, flag: str | None, environ: Mapping[str, str]) -> str | None:
    """A build setting as another command (``serve``, ``audit``) reads it, as a build does:
    its flag, else its environment variable, else storefront.toml; None when none sets it."""
    if flag:
        return flag
    setting = next(s for s in SETTINGS if s.name == name)
    for variable in (setting.env, *setting.old_env) if setting.env else ():
        if environ.get(variable):
            return environ[variable]
    return project_settings().get(name) if name != "api_key" else None


def output_folder(flag: str | None, environ: Mapping[str, str]) -> Path:
    """The output folder a command reads (``serve``, ``audit``), found as a build finds the one
    it writes: ``--out``, else STOREFRONT_OUT, else storefront.toml's ``out``, else xstore.json
    ``staticDir``, else output."""
    return Path(
        read_setting("out", flag, environ)
        or load_descriptor(Path("xstore.json")).static_dir
        or "output"
    )


def resolve(
    args: argparse.Namespace,
    *,
    environ: Mapping[str, str],
    descriptor: Descriptor,
    project: Mapping[str, str] | None = None,
) -> BuildConfig:
    """Merge flags, environment, the project's storefront.toml (read from the folder the
    command runs in unless given) and the descriptor into one checked BuildConfig."""
    if project is None:
        project = project_settings()
    raw: dict[str, str | None] = {}
    #: Where each value came from, as its error names it: the flag, the variable or the file's key.
    named: dict[str, str] = {}
    for s in SETTINGS:
        value, source = getattr(args, s.name, None), s.flag
        for name in (s.env, *s.old_env) if s.env else ():
            if value is None:
                value, source = environ.get(name) or None, name
        if value is None:
            value, source = project.get(s.name), f"{PROJECT_FILE}: {s.flag.removeprefix('--')}"
        if value is None and s.name == "out" and descriptor.static_dir:
            value = descriptor.static_dir
        raw[s.name] = value if value is not None else s.default
        named[s.name] = source if value is not None else s.flag

    missing = [name for name in descriptor.required_env if not environ.get(name)]
    if missing:
        raise ConfigError(
            f"{descriptor.source} requiredEnv names variables that are not set: "
            + ", ".join(missing)
        )

    api_url = _api_url(raw["api_url"])
    if api_url is None and raw["api_key"]:
        # A mistyped or unset variable: never the demo store built for the merchant's site.
        raise ConfigError(
            "a key is set (--key or STOREFRONT_API_KEY) but no API url: set --api-url, "
            "STOREFRONT_API_URL or api-url in storefront.toml (without a key the build makes "
            "the demo store)"
        )
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
        concurrency=_positive_int(raw["concurrency"], named["concurrency"]),
        demo_products=_positive_int(raw["demo_products"], named["demo_products"]),
        descriptor=descriptor,
        full=switch_on(raw["full"]),
        from_cache=switch_on(raw["from_cache"]),
        workers=_workers(raw["workers"]),
        max_requests=_optional(raw["max_requests"], named["max_requests"]),
        deadline=_duration(raw["deadline"], named["deadline"]),
        schedule_horizon=_duration(raw["schedule_horizon"], named["schedule_horizon"]) or 0.0,
        schedule_limit=_count(raw["schedule_limit"], named["schedule_limit"]),
        max_answer_bytes=int(_positive(raw["max_answer_mb"], named["max_answer_mb"]) * 1024 * 1024),
        request_deadline=_positive(raw["request_deadline"], named["request_deadline"]),
        max_retry_after=_positive(raw["max_retry_after"], named["max_retry_after"]),
        related_products=_count(raw["related_products"], named["related_products"]),
        session_url=_session_url(raw["session_url"]),
        event=Path(raw["event"]) if raw["event"] else None,
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
    delay = raw["schedule_delay"] or "30"
    try:
        schedule_delay = float(delay)
    except ValueError:
        schedule_delay = -1.0
    if not 0 <= schedule_delay <= 86400:
        raise ConfigError(f"--schedule-delay: expected seconds from 0 to 86400, got {delay!r}")
    return WatchConfig(webhook_secret=secret, schedule_delay=schedule_delay)


def _api_url(value: str | None) -> str | None:
    if value is None:
        return None
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError(f"--api-url must be an http(s) address, got {value!r}")
    return versioned_api_url(value)


def versioned_api_url(value: str) -> str:
    """An --api-url (http or https) without its trailing slash, refused unless it ends in the
    API's versioned path: without it every request answers 404."""
    url = value.rstrip("/")
    if not urlsplit(url).path.endswith(API_PATH):
        # Another version of the API, or another place under it: the guess keeps the host.
        found = _API_PLACE.search(url)
        meant = (url[: found.start()] if found else url) + API_PATH
        raise ConfigError(
            f"--api-url is the API's base address, ending in {API_PATH}; got {value!r} "
            f"(did you mean {meant}?)"
        )
    return url


def _optional(value: str | None, flag: str) -> int | None:
    return None if value is None else _positive_int(value, flag)


_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def _duration(value: str | None, flag: str = "--deadline") -> float | None:
    """``90``, ``90s``, ``45m``, ``5h``, ``1.5h`` or ``7d`` as seconds; None when not set."""
    if value is None:
        return None
    text = value.strip().lower()
    unit = _UNITS.get(text[-1:], None)
    number = text[:-1] if unit is not None else text
    try:
        seconds = float(number) * (unit or 1)
    except ValueError:
        seconds = -1.0
    if not seconds > 0 or seconds == float("inf"):
        raise ConfigError(f"{flag} must be a duration such as 90s, 45m or 5h, got {value!r}")
    return seconds


def _site_url(value: str) -> str:
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError(
            f"--site-url must be an absolute http(s) url such as https://shop.example.vn, "
            f"got {value!r}"
        )
    if parts.query or parts.fragment:
        raise ConfigError(f"--site-url must not carry a query or fragment, got {value!r}")
    _check_host(parts, value)
    site_url = value.rstrip("/")
    try:
        base_path(site_url)
    except UnsafePath as exc:
        raise ConfigError(f"--site-url: its path prefix is not usable ({exc})") from None
    return site_url


#: A host name (its labels: letters, digits, hyphens; IDNA's xn-- included) or an IPv4 address;
#: an IPv6 address comes in brackets.
_HOST = re.compile(r"(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))*\.?", re.IGNORECASE)


def _check_host(parts: SplitResult, value: str) -> None:
    """A site url whose host no browser reaches (a space, an underscore, a port past 65535)
    would be in every canonical link and sitemap loc: refused here instead."""
    try:
        port = parts.port
    except ValueError:
        port = -1
    host = parts.hostname or ""
    if port == -1 or parts.username is not None or parts.password is not None:
        raise ConfigError(f"--site-url: its host and port are not usable, got {value!r}")
    if host.startswith("[") or ":" in host:
        return  # urlsplit has checked an IPv6 address's brackets
    try:
        host.encode("ascii")
    except UnicodeEncodeError:
        try:
            ascii_form = host.encode("idna").decode("ascii")
        except UnicodeError:
            raise ConfigError(f"--site-url: {host!r} is not a host name, got {value!r}") from None
        raise ConfigError(
            f"--site-url: write its host as links carry it, {ascii_form}, got {value!r}"
        ) from None
    if not _HOST.fullmatch(host):
        raise ConfigError(f"--site-url: {host!r} is not a host name, got {value!r}")


def _session_url(value: str | None) -> str | None:
    if value is None:
        return None
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
        raise ConfigError(
            f"--session-url must be the session service's http(s) address such as "
            f"https://session.example.vn, got {value!r}"
        )
    base = value.rstrip("/")
    return base[: -len("/session")] if base.endswith("/session") else base


def _whole_number(value: str | None, flag: str) -> int:
    try:
        return int(value or "")
    except ValueError:
        raise ConfigError(f"{flag} must be a whole number, got {value!r}") from None


def _positive_int(value: str | None, flag: str) -> int:
    number = _whole_number(value, flag)
    if number < 1:
        raise ConfigError(f"{flag} must be at least 1, got {number}")
    return number


def _count(value: str | None, flag: str) -> int:
    """A whole number, 0 allowed."""
    number = _whole_number(value, flag)
    if number < 0:
        raise ConfigError(f"{flag} must be 0 or more, got {number}")
    return number


def _positive(value: str | None, flag: str) -> float:
    """A number above 0 (fractions allowed: tests ask for small limits)."""
    try:
        number = float(value or "")
    except ValueError:
        raise ConfigError(f"{flag} must be a number, got {value!r}") from None
    if not 0 < number < float("inf"):
        raise ConfigError(f"{flag} must be more than 0, got {value}")
    return number


def switch_on(value: str | None) -> bool:
    """A switch's environment variable (or storefront.toml value) turned on."""
    return (value or "").strip().lower() in ("1", "true", "yes", "on")


def _workers(value: str | None) -> int:
    if value in (None, "", "auto"):
        return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1)
    return _positive_int(value, "--workers")


def _theme_dir(value: str | None) -> Path:
    """The theme folder, its settings, logo and stylesheets checked now (before any request);
    the default theme shipped in the package when none is given."""
    path = Path(value or "site-templates")
    if not path.is_dir() and value in (None, "site-templates") and BUNDLED_THEME.is_dir():
        path = BUNDLED_THEME
    if not path.is_dir():
        raise ConfigError(
            f"--theme: no theme folder at {path} (`storefront theme new {path}` starts one)"
        )
    check_theme(path)
    return path


def environment() -> Mapping[str, str]:
    """The process environment; a function so commands pass it down instead of reading globals."""
    return os.environ
