"""A theme: the merchant's folder layered over the default theme, and where its static files
land in the output.

    theme = Theme.of(Path("my-theme"))   # (my-theme, the default theme), my-theme's settings

A theme folder holds Jinja2 templates at its top, ``assets/`` (CSS, images, fonts),
``islands/`` (ES modules) and an optional ``theme.toml`` (``theme_settings``). Any file of the
merchant's folder replaces the default theme's file of the same path; every other file comes
from the default theme. Both asset folders are published under ``/_assets/``:
``assets/style.css`` -> ``/_assets/style.css``, ``islands/cart.js`` -> ``/_assets/islands/cart.js``.
The published stylesheet is the theme's ``style.css``, then the settings' CSS, then the
merchant's ``assets/overrides.css`` if any: one file, so overriding costs no request.
The islands are also published under a folder named by their combined digest
(``/_assets/islands/<digest>/main.js``): a page loads ``main.js`` from there and every module it
imports by a relative url comes from the same folder, so the islands' urls change with their
content without an import map in every page. The renderer's ``asset_url`` and
``island_url`` and the writer all read this one mapping. Islands are published minified
(``rjsmin``: comments and spaces go, names stay): the theme keeps the readable source, the
browser gets the smaller file, no source map needed.
A stylesheet's relative ``url(...)`` (a self-hosted font, a background image) is published with
its target's digest (``url(fonts/a.woff2?v=<digest>)``), as pages link the stylesheet, so a
file replaced under the same name reaches visitors despite the year-long cache; a url that
names no file of the theme stops the build before its first request (``check_theme``).
"""

from __future__ import annotations

import hashlib
import posixpath
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import rjsmin

from generator.css_urls import CSS_URL, split_url, url_in
from generator.errors import ConfigError
from generator.render.theme_settings import ThemeSettings
from generator.render.words import island_words, layered_words
from generator.shipped import THEME_DIR

ASSETS_URL_PREFIX = "/_assets/"
ASSETS_OUTPUT_FOLDER = "_assets"
# theme sub-folder -> folder under /_assets/
ASSET_FOLDERS: tuple[tuple[str, str], ...] = (("assets", ""), ("islands", "islands"))
#: The default theme, shipped in the package.
DEFAULT_THEME = THEME_DIR
#: The default theme's interface: what its templates are given and what its islands expect of
#: the markup. It moves when a theme layer must change to keep working (CHANGELOG.md, "Theme
#: interface", lists what each version asks of theme authors).
THEME_INTERFACE = 1
#: The published stylesheet the settings' CSS and the overrides are appended to.
STYLESHEET = PurePosixPath("style.css")
#: A merchant's CSS appended to the stylesheet (not published on its own).
OVERRIDES = PurePosixPath("overrides.css")
#: The islands' folder under /_assets/.
ISLANDS = "islands"
#: The island the theme's words (``words.island_words``) are published in, in place of its
#: empty ``words``.
WORDS_ISLAND = "main.js"
WORDS_SLOT = b"export const words = {}"


@dataclass(frozen=True, slots=True)
class Asset:
    """One published static file: its source, and what the build appends to it."""

    source: Path
    appended: bytes = b""
    minified: bool = False
    #: What is published instead of the source, when the build rewrote it (a stylesheet).
    content: bytes | None = None
    #: The theme's words, put in the island's ``WORDS_SLOT``.
    words: bytes | None = None

    def read_bytes(self) -> bytes:
        if self.content is not None:
            return self.content
        data = self.source.read_bytes()
        if self.words is not None:
            data = data.replace(WORDS_SLOT, WORDS_SLOT[:-2] + self.words, 1)
        if self.minified:
            data = minify_js(data)
        return data + self.appended if self.appended else data


def minify_js(source: bytes) -> bytes:
    """An island as published: rjsmin keeps the code and its names, drops comments and spaces
    (licence comments ``/*! */`` stay)."""
    minified: str = rjsmin.jsmin(source.decode("utf-8"), keep_bang_comments=True)
    return minified.encode("utf-8")


def _is_island(published: PurePosixPath) -> bool:
    return published.parts[0] == ISLANDS and published.suffix == ".js"


@dataclass(frozen=True, slots=True)
class Theme:
    #: The layers, the merchant's first: the first that has a file gives it.
    folders: tuple[Path, ...]
    settings: ThemeSettings = ThemeSettings()

    @staticmethod
    def of(theme: Theme | Path) -> Theme:
        """``theme`` over the default theme (alone when it is the default), with its settings."""
        if isinstance(theme, Theme):
            return theme
        folder = theme.resolve()
        default = DEFAULT_THEME
        folders = (folder,) if folder == default or not default.is_dir() else (folder, default)
        return Theme(folders, ThemeSettings.load(folder))

    @property
    def folder(self) -> Path:
        """The merchant's folder (the default theme's when it is used alone)."""
        return self.folders[0]


def asset_files(theme: Theme | Path) -> Iterator[tuple[PurePosixPath, Asset]]:
    """(path under /_assets/, its content) for every static file of the theme, sorted: each
    published path from the first layer that has it."""
    layered = Theme.of(theme)
    found = _layered_sources(layered)
    overrides = found.pop(OVERRIDES, None)
    extra = layered.settings.css().encode("utf-8")
    if overrides is not None:
        extra += versioned_css(
            overrides.read_bytes(), STYLESHEET, found, _named(layered, overrides)
        )
    islands = _islands_of(found)
    words = island_words(layered_words(layered.folders))
    versioned = PurePosixPath(ISLANDS, islands_digest(islands, words))
    for published, source in islands.items():
        found[versioned.joinpath(*published.parts[1:])] = source
    for published in sorted(found):
        source = found[published]
        appended = extra if published == STYLESHEET else b""
        if published.suffix == ".css":
            own = versioned_css(source.read_bytes(), published, found, _named(layered, source))
            yield published, Asset(source, appended, content=own + appended)
        elif _is_island(published) and published.name == WORDS_ISLAND:
            yield published, Asset(source, minified=True, words=words)
        else:
            yield published, Asset(source, appended, _is_island(published))


def interface_warning(folder: Path, *, current: int | None = None) -> str | None:
    """A warning when the theme layer ``folder`` was made for an older theme interface than
    the default theme's (``current``); None when it is current or names none."""
    current = THEME_INTERFACE if current is None else current
    made_for = ThemeSettings.load(folder).interface
    if made_for is None or made_for >= current or folder.resolve() == DEFAULT_THEME:
        return None
    return (
        f"{folder}/theme.toml: made for theme interface {made_for}; the default theme is at "
        f'{current}: see CHANGELOG.md, "Theme interface", then set interface = {current}'
    )


def check_theme(theme: Theme | Path) -> None:
    """Check the theme: ``theme.toml`` (``theme_settings``), a ``logo`` that names a file of
    the theme, and every stylesheet's relative ``url()``."""
    layered = Theme.of(theme)
    published = {p for p, _ in asset_files(layered)}  # raises for a stylesheet's missing url
    logo = layered.settings.logo
    if logo and "://" not in logo and PurePosixPath(logo) not in published:
        raise ConfigError(
            f"theme.toml: logo = {logo!r} names no file of the theme: put it at "
            f"{layered.folder / 'assets' / logo}, or give an https url"
        )


def versioned_css(
    css: bytes, published: PurePosixPath, found: Mapping[PurePosixPath, Path], named: str
) -> bytes:
    """``css`` (published at ``published``) with each relative ``url()`` carrying its target's
    digest; a ConfigError naming ``named`` and the url when the theme has no such file."""

    def version(match: re.Match[bytes]) -> bytes:
        url = url_in(match)
        if url is None or url.startswith("/"):  # not a file of the theme's assets
            return match.group(0)
        path, query, fragment = split_url(url)
        target = posixpath.normpath(posixpath.join(published.parent.as_posix(), path))
        source = found.get(PurePosixPath(target)) if not target.startswith("..") else None
        if source is None:
            raise ConfigError(
                f"{named}: url({url}) names no file of the theme's assets/ "
                f"(looked for assets/{target})"
            )
        if query:  # the theme versions it itself
            return match.group(0)
        digest = hashlib.sha256(source.read_bytes()).hexdigest()[:10]
        return f'url("{path}?v={digest}{fragment}")'.encode()

    return CSS_URL.sub(version, css)


def _named(layered: Theme, source: Path) -> str:
    """A theme file as an error names it: relative to its theme folder."""
    for folder in layered.folders:
        if source.is_relative_to(folder):
            return source.relative_to(folder).as_posix()
    return source.as_posix()


def islands_digest(islands: dict[PurePosixPath, Path], words: bytes = b"") -> str:
    """The digest naming the islands' versioned folder: of every island's path and content,
    and the words published in them."""
    digest = hashlib.sha256(words)
    for published in sorted(islands):
        digest.update(f"{published}\0".encode())
        digest.update(hashlib.sha256(islands[published].read_bytes()).digest())
    return digest.hexdigest()[:10]


def islands_folder(theme: Theme | Path) -> str:
    """``islands/<digest>``: where ``island_url`` points."""
    layered = Theme.of(theme)
    words = island_words(layered_words(layered.folders))
    return f"{ISLANDS}/{islands_digest(_islands_of(_layered_sources(layered)), words)}"


def _layered_sources(layered: Theme) -> dict[PurePosixPath, Path]:
    """Each published path's source file: from the first layer that has it."""
    found: dict[PurePosixPath, Path] = {}
    for folder in reversed(layered.folders):
        for published, source in _folder_assets(folder):
            found[published] = source
    return found


def _islands_of(found: dict[PurePosixPath, Path]) -> dict[PurePosixPath, Path]:
    return {path: source for path, source in found.items() if path.parts[0] == ISLANDS}


def _folder_assets(theme_dir: Path) -> Iterator[tuple[PurePosixPath, Path]]:
    for source_folder, target_folder in ASSET_FOLDERS:
        root = theme_dir / source_folder
        if not root.is_dir():
            continue
        for source in sorted(root.rglob("*")):
            relative = source.relative_to(root)
            if source.is_file() and not any(p.startswith(".") for p in relative.parts):
                yield PurePosixPath(target_folder, *relative.parts), source


def asset_source(theme: Theme | Path, name: str) -> Asset | None:
    """The theme file published as ``/_assets/<name>``, or None."""
    wanted = PurePosixPath(name)
    for published, source in asset_files(theme):
        if published == wanted:
            return source
    return None


#: What all the islands may weigh together: their gzipped sizes (``island_sizes``) summed. 12 KB,
#: and what the buying pages' own islands carry (checkout.js, account.js: loaded by the cart,
#: checkout, payment result and account pages only, never while browsing): the order summary and
#: the coupon held in every tab, the order this device placed and its joining (docs/islands.md).
ISLANDS_BUDGET = 14 * 1024
#: Islands no page loads until the shopper uses them, outside ISLANDS_BUDGET, each with a
#: budget of its own: filters.js, a listing's filters and sorts, imported on a first choice;
#: find.js, the search, imported when the header's search field is first used or on the
#: search page (under a tenth of what a first query fetches).
ON_DEMAND_BUDGETS: dict[str, int] = {"islands/filters.js": 3 * 1024, "islands/find.js": 3 * 1024}


def island_sizes(theme: Theme | Path, *, on_demand: bool = False) -> dict[str, int]:
    """Gzipped size (level 9, one file at a time, as a server sends them) of every island as
    the build publishes it (minified), the merchant's islands over the default's. Each island
    counts once: its copy in the versioned folder is the same bytes. ``on_demand``: those of
    ``ON_DEMAND_BUDGETS`` instead of the others."""
    import gzip  # here: a build never weighs the islands

    return {
        published.as_posix(): len(gzip.compress(asset.read_bytes(), 9, mtime=0))
        for published, asset in asset_files(theme)
        if _is_island(published)
        and len(published.parts) == 2
        and (published.as_posix() in ON_DEMAND_BUDGETS) == on_demand
    }
