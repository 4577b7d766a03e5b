"""A theme's settings file, ``theme.toml``: colours, fonts, logo, radius, layout, contact
details, analytics, head/body snippets and what the store's content may embed (``[embeds]``),
each checked with a one-line error naming its key.

    settings = ThemeSettings.load(theme_folder)   # ThemeSettings() when there is no file
    settings.css()                                # ':root{--accent:#c00}...' or ''

Templates see the settings as ``theme``; their CSS is appended to the published stylesheet (no
extra request, no inline style for the security policy to allow). Every value that reaches CSS
is checked against a narrow pattern, so a setting cannot close a rule or open another.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from markupsafe import Markup

from generator.errors import ConfigError
from generator.loads import Load, html_loads, url_source

SETTINGS_FILE = "theme.toml"

#: Colour settings -> the stylesheet's CSS variable (``background`` is the page's).
COLORS: Mapping[str, str] = {
    "text": "--text",
    "muted": "--muted",
    "link": "--link",
    "accent": "--accent",
    "line": "--line",
    "soft": "--soft",
    "background": "--background",
}
FONTS = ("body", "heading")
#: Where a snippet goes: the end of <head>, or the end of <body>.
PLACES = ("head", "body_end")
#: Directives a snippet may name origins for.
SNIPPET_DIRECTIVES = (
    "script-src",
    "connect-src",
    "img-src",
    "frame-src",
    "style-src",
    "font-src",
    "media-src",
)

_COLOR = re.compile(r"^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$")
_LENGTH = re.compile(r"^(?:0|\d{1,4}(?:\.\d{1,3})?(?:px|rem|em|%))$")
# A font stack: family names, quoted or not, separated by commas.
_FONT = re.compile(r"""^[A-Za-z0-9 ,'"-]{1,200}$""")
# An origin a snippet loads from: https://host[:port], the host may start with '*.'.
# The merchant's own notice on the Ministry of Industry and Trade's register (online.gov.vn).
_BCT_URL = re.compile(r"""^https?://(?:www\.)?online\.gov\.vn/[^\s"'<>]{1,300}$""")
_ORIGIN = re.compile(r"^https?://(?:\*\.)?[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?(?::\d{1,5})?$")


@dataclass(frozen=True, slots=True)
class Layout:
    #: Product cards per row on wide screens (2 on phones).
    columns: int | None = None
    #: The page column's largest width, a CSS length (72rem by default).
    width: str | None = None


@dataclass(frozen=True, slots=True)
class Contact:
    """Names of the store's custom variables that hold each detail (each merchant names its
    own); the footer shows those that are set and have a value."""

    hotline: str | None = None
    zalo: str | None = None
    hours: str | None = None


@dataclass(frozen=True, slots=True)
class Snippet:
    """Merchant HTML put in every page as it is (analytics, chat, verification tags), and the
    origins it loads from, by directive: the security policy allows exactly those."""

    place: str
    html: str
    origins: tuple[Load, ...]

    def loads(self) -> set[Load]:
        """The declared origins, and the hashes of the snippet's inline scripts (and
        ``'unsafe-inline'`` styles when it carries a style attribute)."""
        inline = {load for load in html_loads(self.html) if not _is_origin(load[1])}
        return set(self.origins) | inline


@dataclass(frozen=True, slots=True)
class Embeds:
    """What merchant HTML in the store's content (descriptions, articles, pages) may load
    beyond its images, which are always allowed: the origins declared per directive (a
    YouTube frame, a widget's script), and whether its inline scripts run. Never on the pages
    that take payment or personal data (``shells.SENSITIVE_KINDS``)."""

    origins: tuple[Load, ...] = ()
    #: Off: an inline script in content does not run (the build warns of each). On: those
    #: the build finds are allowed by hash, on every page but the sensitive ones.
    inline_scripts: bool = False

    def declares(self, load: Load) -> bool:
        """Whether an origin declared for the load's directive covers its source."""
        directive, source = load
        return any(d == directive and _covers(o, source) for d, o in self.origins)


@dataclass(frozen=True, slots=True)
class Search:
    """The product search: from the index the build publishes (``index``, on by default: no
    API request a query), else from the API's /search; and the merchant's synonyms, groups of
    words a query treats as one (``[["tee", "ao thun"], ...]``: each query word that is one of
    a group's words also finds the group's others)."""

    index: bool = True
    synonyms: tuple[tuple[str, ...], ...] = ()


@dataclass(frozen=True, slots=True)
class ThemeSettings:
    colors: Mapping[str, str] = field(default_factory=dict)
    fonts: Mapping[str, str] = field(default_factory=dict)
    radius: str | None = None
    #: A published asset name (``logo.svg`` for ``assets/logo.svg``) or an https url; in the
    #: header instead of the store's logo.
    logo: str | None = None
    layout: Layout = Layout()
    contact: Contact = Contact()
    #: The merchant's registration page on online.gov.vn when ``[bo_cong_thuong] show`` is on:
    #: the footer then shows the "Đã thông báo Bộ Công Thương" badge linking to it.
    bo_cong_thuong: str | None = None
    #: Push GA4-style ecommerce events to ``window.dataLayer`` (the islands' analytics module).
    ecommerce_events: bool = False
    snippets: tuple[Snippet, ...] = ()
    embeds: Embeds = Embeds()
    search: Search = Search()
    #: The theme interface version the theme was made for (``interface``; None: not named).
    interface: int | None = None

    @staticmethod
    def load(folder: Path) -> ThemeSettings:
        """The settings of ``folder/theme.toml``; the defaults when there is none."""
        path = folder / SETTINGS_FILE
        if not path.is_file():
            return ThemeSettings()
        import tomllib  # here: most themes have no settings file to parse

        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{SETTINGS_FILE}: not valid TOML ({exc})") from None
        return parse(data)

    def snippet_html(self, place: str) -> Markup:
        """The snippets of ``place``, one per line: trusted merchant HTML."""
        return Markup("\n".join(s.html for s in self.snippets if s.place == place))

    def loads(self) -> set[Load]:
        """What the pages load because of the settings: the snippets' declared origins and
        inline script hashes, and the logo's host."""
        found = {load for snippet in self.snippets for load in snippet.loads()}
        logo_host = url_source(self.logo) if self.logo and "://" in self.logo else None
        if logo_host:
            found.add(("img-src", logo_host))
        return found

    def css(self) -> str:
        """The settings as CSS, appended to the stylesheet; '' when none touches it."""
        rules: list[str] = []
        variables = "".join(f"{COLORS[name]}:{value};" for name, value in self.colors.items())
        if self.radius:
            variables += f"--radius:{self.radius};"
        if variables:
            rules.append(f":root{{{variables}}}")
        if "background" in self.colors:
            rules.append("body{background:var(--background)}")
        if "body" in self.fonts:
            rules.append(f"body{{font-family:{self.fonts['body']}}}")
        if "heading" in self.fonts:
            rules.append(f"h1,h2,h3,.brand{{font-family:{self.fonts['heading']}}}")
        if self.layout.width:
            rules.append(f".wrap{{max-width:{self.layout.width}}}")
        if self.layout.columns:
            rules.append(
                "@media (min-width:48rem){.grid:not(.grid-wide){grid-template-columns:"
                f"repeat({self.layout.columns},minmax(0,1fr))}}}}"
            )
        return "".join(rule + "\n" for rule in rules)


_TOP = (
    "interface",
    "colors",
    "fonts",
    "radius",
    "logo",
    "layout",
    "contact",
    "bo_cong_thuong",
    "analytics",
    "snippets",
    "embeds",
    "search",
)


def parse(data: Mapping[str, Any]) -> ThemeSettings:
    """Checked settings from the parsed file; a ConfigError names the first bad key."""
    _known(data, _TOP, "")
    interface = data.get("interface")
    if interface is not None and (type(interface) is not int or interface < 1):
        raise _error("interface", "the theme interface version, a whole number from 1", interface)
    colors = _table(data, "colors", tuple(COLORS))
    fonts = _table(data, "fonts", FONTS)
    for name, value in colors.items():
        _check(f"colors.{name}", value, _COLOR, "a hex colour such as #a31b12")
    for name, value in fonts.items():
        _check(f"fonts.{name}", value, _FONT, "a font stack such as 'Be Vietnam Pro', sans-serif")
    radius = data.get("radius")
    if radius is not None:
        _check("radius", radius, _LENGTH, "a CSS length such as 6px or .5rem")
    layout_data = _table(data, "layout", ("columns", "width"))
    columns = layout_data.get("columns")
    if columns is not None and (type(columns) is not int or not 2 <= columns <= 6):
        raise _error("layout.columns", "a whole number from 2 to 6", columns)
    width = layout_data.get("width")
    if width is not None:
        _check("layout.width", width, _LENGTH, "a CSS length such as 80rem or 1200px")
    contact_data = _table(data, "contact", ("hotline", "zalo", "hours"))
    for name, value in contact_data.items():
        if not isinstance(value, str) or not value.strip():
            raise _error(f"contact.{name}", "the name of a custom variable", value)
    analytics = _table(data, "analytics", ("ecommerce_events",))
    events = analytics.get("ecommerce_events", False)
    if type(events) is not bool:
        raise _error("analytics.ecommerce_events", "true or false", events)
    return ThemeSettings(
        colors=colors,
        fonts=fonts,
        radius=radius,
        logo=_logo(data.get("logo")),
        layout=Layout(columns=columns, width=width),
        contact=Contact(**contact_data),
        bo_cong_thuong=_bo_cong_thuong(_table(data, "bo_cong_thuong", ("show", "url"))),
        ecommerce_events=events,
        interface=interface,
        snippets=_snippets(data.get("snippets", [])),
        embeds=_embeds(_table(data, "embeds", (*SNIPPET_DIRECTIVES, "inline_scripts"))),
        search=_search(_table(data, "search", ("index", "synonyms"))),
    )


def _search(table: Mapping[str, Any]) -> Search:
    index = table.get("index", True)
    if type(index) is not bool:
        raise _error("search.index", "true or false", index)
    groups = table.get("synonyms", [])
    wanted = 'a list of word groups such as [["tee", "ao thun"]]'
    if not isinstance(groups, list):
        raise _error("search.synonyms", wanted, groups)
    synonyms = []
    for group in groups:
        if (
            not isinstance(group, list)
            or len(group) < 2
            or not all(isinstance(w, str) and w.strip() for w in group)
        ):
            raise _error("search.synonyms", wanted, group)
        synonyms.append(tuple(w.strip() for w in group))
    return Search(index=index, synonyms=tuple(synonyms))


def _embeds(table: Mapping[str, Any]) -> Embeds:
    inline = table.get("inline_scripts", False)
    if type(inline) is not bool:
        raise _error("embeds.inline_scripts", "true or false", inline)
    return Embeds(origins=_origins(table, "embeds"), inline_scripts=inline)


def _bo_cong_thuong(table: Mapping[str, Any]) -> str | None:
    """The badge's link when the merchant turns it on; its own notice's url is required (a
    badge without the registration behind it misleads shoppers)."""
    show = table.get("show", False)
    if type(show) is not bool:
        raise _error("bo_cong_thuong.show", "true or false", show)
    url = table.get("url")
    if url is not None:
        _check("bo_cong_thuong.url", url, _BCT_URL, "the store's page on http://online.gov.vn/")
    if show and url is None:
        raise ConfigError(
            f"{SETTINGS_FILE}: bo_cong_thuong.show is true but bo_cong_thuong.url is missing: "
            "set it to the store's notice on http://online.gov.vn/ (the badge links there)"
        )
    return url if show else None


def _logo(value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise _error("logo", "an asset name such as logo.svg or an https url", value)
    if "://" in value or value.startswith("//"):
        if not value.startswith("https://") or url_source(value) is None:
            raise _error("logo", "an https url or an asset name such as logo.svg", value)
    elif value.startswith("/") or ".." in value.split("/"):
        raise _error("logo", "a file under the theme's assets/, such as logo.svg", value)
    return value


def _snippets(value: object) -> tuple[Snippet, ...]:
    if not isinstance(value, list):
        raise _error("snippets", "a list of [[snippets]] tables", value)
    snippets = []
    for index, item in enumerate(value):
        key = f"snippets[{index}]"
        if not isinstance(item, dict):
            raise _error(key, "a table with place, html and origins", item)
        _known(item, ("name", "place", "html", *SNIPPET_DIRECTIVES), f"{key}.")
        place = item.get("place")
        if place not in PLACES:
            raise _error(f"{key}.place", "head or body_end", place)
        html = item.get("html")
        if not isinstance(html, str) or not html.strip():
            raise _error(f"{key}.html", "the snippet's HTML", html)
        snippet = Snippet(place=place, html=html.strip(), origins=_origins(item, key))
        _check_declared(key, snippet)
        snippets.append(snippet)
    return tuple(snippets)


def _origins(table: Mapping[str, Any], key: str) -> tuple[Load, ...]:
    """The origins ``table`` declares per directive (``script-src = [...]``), each checked."""
    origins: list[Load] = []
    for directive in SNIPPET_DIRECTIVES:
        listed = table.get(directive, [])
        if not isinstance(listed, list):
            raise _error(f"{key}.{directive}", "a list of origins", listed)
        for origin in listed:
            if not isinstance(origin, str) or not _ORIGIN.match(origin):
                raise _error(
                    f"{key}.{directive}", "origins such as https://www.googletagmanager.com", origin
                )
            origins.append((directive, origin))
    return tuple(origins)


def _check_declared(key: str, snippet: Snippet) -> None:
    """Every origin the snippet's elements fetch from must be declared for its directive."""
    for directive, source in html_loads(snippet.html):
        if not _is_origin(source):
            continue
        if directive not in SNIPPET_DIRECTIVES:
            raise ConfigError(
                f"{SETTINGS_FILE}: {key}.html uses {source} for {directive}, which a snippet "
                "may not open to other origins"
            )
        if not any(d == directive and _covers(o, source) for d, o in snippet.origins):
            raise ConfigError(
                f"{SETTINGS_FILE}: {key}.html loads from {source}: add it to {key}.{directive}"
            )


def _is_origin(source: str) -> bool:
    return source.startswith(("http:", "https:"))


def _covers(origin: str, source: str) -> bool:
    scheme, _, host = origin.partition("://")
    wanted_scheme, _, wanted = source.partition("://")
    if scheme != wanted_scheme:
        return False
    if host.startswith("*."):
        return wanted.endswith(host[1:])
    return host == wanted


def _known(data: Mapping[str, Any], known: tuple[str, ...], prefix: str) -> None:
    for key in data:
        if key not in known:
            raise ConfigError(
                f"{SETTINGS_FILE}: unknown setting {prefix}{key} (known: {', '.join(known)})"
            )


def _table(data: Mapping[str, Any], name: str, known: tuple[str, ...]) -> dict[str, Any]:
    value = data.get(name, {})
    if not isinstance(value, dict):
        raise _error(name, f"a [{name}] table", value)
    _known(value, known, f"{name}.")
    return dict(value)


def _check(key: str, value: object, pattern: re.Pattern[str], wanted: str) -> None:
    if not isinstance(value, str) or not pattern.match(value):
        raise _error(key, wanted, value)


def _error(key: str, wanted: str, got: object) -> ConfigError:
    return ConfigError(f"{SETTINGS_FILE}: {key} must be {wanted}, got {got!r}")
