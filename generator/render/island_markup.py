"""What the islands read in a page's markup, and the pages that lack it.

    islands = load_islands(theme)          # the theme's islands.json, the merchant's first
    for gap in markup_gaps(doc, islands):  # doc: one page, parsed by lxml.html
        print(gap.text(page_type))

``islands.json`` beside the theme's islands lists, for each island (its ``data-island`` name),
the elements it reads (a small CSS selector: tags, ``.classes``, ``#ids``, ``[attributes]``,
descendants after a space, ``:scope`` for the island's element) and the attributes it reads on
them; a test keeps the list in step with the islands' code. A theme layer that drops one
(``data-unknown`` on the coupon form, a ``<template data-part>``) builds a page where the island
fails or says nothing: the build warns of it and ``storefront audit`` reports it.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path

from lxml import etree

from generator.errors import ConfigError
from generator.render.theme import DEFAULT_THEME, Theme

#: The list's file, at the top of a theme folder beside ``islands/`` (JSON: a build reads it, and
#: JSON, unlike TOML, is already loaded).
ISLANDS_FILE = "islands.json"
#: The list's entry that only explains it.
_ABOUT = "about"
#: The list's table of what main.js reads on every page (no ``data-island`` element).
PAGE = "page"
# One compound of a selector: a tag, then .class, #id, [attribute] or [attribute=value].
_COMPOUND = re.compile(r"^([a-z][a-z0-9-]*|\*)?((?:\.[\w-]+|#[\w-]+|\[[\w-]+(?:=[\w-]+)?\])*)$")
_SIMPLE = re.compile(r"\.([\w-]+)|#([\w-]+)|\[([\w-]+)(?:=([\w-]+))?\]")


@dataclass(frozen=True, slots=True)
class Island:
    name: str  # its data-island value, or PAGE
    module: str  # islands/<module>
    #: (selector, its XPath from the island's element, the attributes read on it)
    needs: tuple[tuple[str, str, tuple[str, ...]], ...]
    within_parent: bool = False  # the needs are looked for under the element's parent


@dataclass(frozen=True, slots=True)
class Gap:
    """One thing an island reads that a page lacks: an element, or an attribute on it."""

    island: str
    module: str
    selector: str
    attribute: str | None  # None: no element matches the selector at all

    def text(self, page_type: str, path: str | None = None) -> str:
        """One line naming the page type (and a page of it), the island and what it lacks."""
        what = (
            f"{self.attribute} on {self.selector}"
            if self.attribute is not None
            else f"an element {self.selector}"
        )
        who = "every page's script" if self.island == PAGE else f"the {self.island} island"
        page = f"{page_type} page {path}" if path else f"{page_type} page"
        return (
            f"{page}: {who} (islands/{self.module}) reads {what}, which the page lacks "
            f"(see {ISLANDS_FILE} in the default theme)"
        )


def load_islands(theme: Theme) -> tuple[Island, ...]:
    """The islands' needs from the first layer of ``theme`` that has the list; () when none."""
    for folder in theme.folders:
        listed = folder / ISLANDS_FILE
        if listed.is_file():
            return _parsed(listed)
    return ()


def default_islands() -> tuple[Island, ...]:
    """The default theme's list: what the islands shipped with the generator read."""
    return load_islands(Theme((DEFAULT_THEME,)))


@functools.cache
def _parsed(listed: Path) -> tuple[Island, ...]:
    try:
        data = json.loads(listed.read_text(encoding="utf-8"))
        return tuple(
            Island(
                name=name,
                module=str(table["module"]),
                needs=tuple(
                    (selector, xpath_of(selector), tuple(str(a) for a in attributes))
                    for selector, attributes in dict(table.get("needs", {})).items()
                ),
                within_parent=table.get("within") == "parent",
            )
            for name, table in data.items()
            if name != _ABOUT
        )
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ConfigError(f"{listed}: not a list of the islands' needs ({exc})") from None


def xpath_of(selector: str) -> str:
    """The XPath of a selector, searched from (and including) the element it starts from."""
    steps: list[str] = []
    for compound in selector.split():
        if compound == ":scope":
            steps.append("self::*")
            continue
        match = _COMPOUND.match(compound)
        if match is None:
            raise ValueError(f"selector {selector!r}: {compound!r} is not supported")
        test = "".join(_predicate(m) for m in _SIMPLE.finditer(match.group(2)))
        axis = "descendant-or-self::" if not steps else "descendant::"
        steps.append(f"{axis}{match.group(1) or '*'}{test}")
    return "/".join(steps)


def _predicate(simple: re.Match[str]) -> str:
    cls, ident, attribute, value = simple.groups()
    if cls is not None:
        return f"[contains(concat(' ', normalize-space(@class), ' '), ' {cls} ')]"
    if ident is not None:
        return f"[@id='{ident}']"
    return f"[@{attribute}='{value}']" if value is not None else f"[@{attribute}]"


def markup_gaps(doc: etree._Element, islands: tuple[Island, ...]) -> list[Gap]:
    """What the islands on the page ``doc`` read and it lacks, in document order."""
    by_name = {island.name: island for island in islands}
    found: list[Gap] = []
    page = by_name.get(PAGE)
    if page is not None:
        found += _gaps(doc, page)
    holders = doc.xpath("//*[@data-island]")
    for element in holders if isinstance(holders, list) else []:
        if not isinstance(element, etree._Element):
            continue
        name = element.get("data-island")
        island = by_name.get(name) if name and name != PAGE else None
        if island is None:
            continue
        root = element.getparent() if island.within_parent else element
        found += _gaps(root if root is not None else element, island)
    return list(dict.fromkeys(found))  # two islands of a kind on one page: said once


def _gaps(root: etree._Element, island: Island) -> list[Gap]:
    found: list[Gap] = []
    for selector, xpath, attributes in island.needs:
        matches = root.xpath(xpath)
        elements = (
            [m for m in matches if isinstance(m, etree._Element)]
            if isinstance(matches, list)
            else []
        )
        if not elements:
            found.append(Gap(island.name, island.module, selector, None))
            continue
        for attribute in attributes:
            if not any(attribute in el.attrib for el in elements):
                found.append(Gap(island.name, island.module, selector, attribute))
    return found


def page_type(doc: etree._Element) -> str | None:
    """The page's type as the default theme marks it (``<body class="page-cart">``)."""
    for body in doc.iter("body"):
        for cls in (body.get("class") or "").split():
            if cls.startswith("page-"):
                return cls.removeprefix("page-")
    return None
