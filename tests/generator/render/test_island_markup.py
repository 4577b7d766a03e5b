"""What the islands read in a page's markup (site-templates/islands.json): the list agrees with
the islands' code, the default theme keeps all of it, and a theme layer that drops one part is
warned of by the build and reported by the audit, naming the page type, the attribute and the
island."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import lxml.html
import pytest

from generator.render.theme import DEFAULT_THEME
from generator.summary import BuildSummary
from tests.support.fixture_site import rendered_pages
from tests.support.incremental_store import CrawledStores, build, config_for

ISLANDS = DEFAULT_THEME / "islands"
DECLARED = {
    name: island
    for name, island in json.loads((DEFAULT_THEME / "islands.json").read_text("utf-8")).items()
    if name != "about"
}

# A selector's parts: .class, #id, [attribute, a template part's name.
_TOKEN = re.compile(r"([.#][\w-]+|\[[\w-]+)")
_PART = re.compile(r"\[data-part=([\w-]+)\]")
# What a module reads: literal selectors, template parts, dataset names (and its aliases').
_SELECTOR_CALL = re.compile(r"(?:querySelector(?:All)?|closest)\('([^'$`]+)'\)")
_SELECTOR_LIST = re.compile(r"'([.#][\w-]+)'")
_ID_CALL = re.compile(r"getElementById\('([\w-]+)'\)")
_PART_CALL = re.compile(r"(?:part\(\w+, |drawn\()'([\w-]+)'[,)]")
_ALIAS = re.compile(r"(?:const|let) (\w+) = [\w.]+\.dataset\b(?!\.)")


def kebab(name: str) -> str:
    return re.sub(r"[A-Z]", lambda m: "-" + m.group(0).lower(), name)


def read_by(source: str) -> set[str]:
    """What a module reads in the markup, as tokens: .class, #id, [attribute, part:name."""
    found: set[str] = set()
    for selector in _SELECTOR_CALL.findall(source) + _SELECTOR_LIST.findall(source):
        found |= set(_TOKEN.findall(selector))
    found |= {f"#{name}" for name in _ID_CALL.findall(source)}
    found |= {f"part:{name}" for name in _PART_CALL.findall(source)}
    # A one-letter alias (``const w = dl.dataset``) is too common a name to follow.
    aliases = ["dataset", *(a for a in _ALIAS.findall(source) if len(a) > 1)]
    for alias in aliases:
        # A read: not an assignment (``li.dataset.code = ...`` is the island's own mark).
        for name in re.findall(rf"\b{alias}\.(\w+)\b(?!\s*=[^=])", source):
            if name != "dataset":
                found.add(f"[data-{kebab(name)}")
    return found


def declared_by(module: str) -> set[str]:
    found: set[str] = set()
    for island in DECLARED.values():
        if module not in (island["module"], island.get("on_use")):  # on_use: imported on use
            continue
        for selector, attributes in island["needs"].items():
            found |= set(_TOKEN.findall(selector))
            found |= {f"part:{name}" for name in _PART.findall(selector)}
            found |= {f"[{attribute}" for attribute in attributes}
        for selector in island["optional"]:
            found |= set(_TOKEN.findall(selector))
            found |= {f"part:{name}" for name in _PART.findall(selector)}
    return found


@pytest.mark.parametrize("module", sorted(p.name for p in ISLANDS.glob("*.js")))
def test_the_list_names_everything_each_island_reads(module: str) -> None:
    source = (ISLANDS / module).read_text(encoding="utf-8")
    if module == "analytics.js":
        assert read_by(source) == set()  # it reads no markup
        return
    missing = read_by(source) - declared_by(module)
    assert not missing, f"islands.json does not list what {module} reads: {sorted(missing)}"


def test_every_part_class_and_id_the_list_names_is_used_by_its_island() -> None:
    main = read_by((ISLANDS / "main.js").read_text(encoding="utf-8"))
    for name, island in DECLARED.items():
        source = (ISLANDS / island["module"]).read_text(encoding="utf-8")
        read = read_by(source)
        if "'./main.js'" in source:  # the cards it draws with main.js's card() read its parts
            read |= main
        for selector in island["needs"]:
            for token in _TOKEN.findall(selector):
                # Read by a selector, or found by its place (the coupon form: the summary's first).
                if token[0] in ".#" and token not in read:
                    assert re.search(rf"\b{token[1:]}\b", source), f"{name}: {token} is not read"
            for part in _PART.findall(selector):
                assert f"part:{part}" in read, f"{name}: part {part} is not read"


def test_the_default_theme_keeps_every_part_the_islands_read() -> None:
    from generator.render.island_markup import load_islands, markup_gaps
    from generator.render.theme import Theme

    islands = load_islands(Theme.of(DEFAULT_THEME))
    seen: set[str] = set()
    for path, page in rendered_pages().items():
        doc = lxml.html.document_fromstring(page.html)
        assert markup_gaps(doc, islands) == [], path
        seen |= {str(el.get("data-island")) for el in doc.iter() if el.get("data-island")}
    # The fixture's pages hold every island the list names (but the API's search: the
    # fallback of a theme that turns its search index off).
    assert set(DECLARED) - {"page", "search"} <= seen


def test_a_layer_that_drops_a_message_is_warned_of_and_audited(
    tmp_path: Path, crawled_stores: CrawledStores
) -> None:
    from generator.audit.runner import audit_site

    summary = _built_with_layer(
        tmp_path,
        crawled_stores,
        "cart.html",
        lambda cart: re.sub(r' data-unknown="[^"]*"', "", cart),
    )
    warned = [w for w in summary.warnings if "data-unknown" in w]
    assert len(warned) == 1, summary.warnings
    assert "cart page" in warned[0] and "cart island" in warned[0]
    assert "islands/checkout.js" in warned[0] and "form.coupon" in warned[0]
    report = audit_site(tmp_path / "themed", now=datetime(2030, 1, 1, tzinfo=UTC))
    found = [f for f in report.findings if f.check == "island-markup"]
    assert len(found) == 1 and found[0].severity == "warning"
    assert found[0].where == "gio-hang.html"
    assert "cart page" in found[0].message and "data-unknown" in found[0].message
    assert "islands/checkout.js" in found[0].message
    # The default theme's output has none.
    default = audit_site(tmp_path / "out", now=datetime(2030, 1, 1, tzinfo=UTC))
    assert "island-markup" not in default.checks()


def test_a_listing_without_the_drawn_card_is_warned_of(
    tmp_path: Path, crawled_stores: CrawledStores
) -> None:
    """A category page without ``drawn()``: the island that shows more products has no card to
    draw them with, and every one it draws would fail in the browser."""
    summary = _built_with_layer(
        tmp_path,
        crawled_stores,
        "category.html",
        lambda category: category.replace("{{ drawn() }}", ""),
    )
    warned = [w for w in summary.warnings if "template[data-part=card]" in w]
    assert len(warned) == 1, summary.warnings
    assert "load-more" in warned[0] and "islands/listing.js" in warned[0]


def _built_with_layer(
    tmp_path: Path, crawled_stores: CrawledStores, name: str, change: Callable[[str], str]
) -> BuildSummary:
    """A two-product store built into ``themed`` from its crawl, under a theme layer whose
    ``name`` is the default's changed by ``change`` (which must change it)."""
    crawled_stores.copy(tmp_path, products=2).close()
    theme = tmp_path / "theme"
    theme.mkdir()
    default = (DEFAULT_THEME / name).read_text(encoding="utf-8")
    changed = change(default)
    assert changed != default
    (theme / name).write_text(changed, encoding="utf-8")
    summary, _printed = build(
        None, config_for(tmp_path, out="themed", from_cache=True, templates=theme)
    )
    return summary
