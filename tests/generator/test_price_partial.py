"""One price partial: a theme layer's ``partials/price.html`` is the price of the product page,
of every static product card and of the cards and prices the islands draw (the page carries
them, rendered from the same partial, for the islands to fill in)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.support.incremental_store import CrawledStores, build, config_for

PRICE = """{% macro price(item, save=False) -%}
{% set p = price_of(item) %}
<p class="price">PRICE-MARK {{ p.now | vnd }}
{%- if p.was is not none %} WAS-MARK {{ p.was | vnd }}
{%- if save %} SAVE-MARK {{ p.off }}{% endif %}{% endif %}</p>
{%- endmacro %}
"""
DEFAULT_PRICE = re.compile(r'class="?price-now')
PRODUCT_CARD = re.compile(r"<li class=card><img [^>]*><h3>")


def test_a_price_partial_override_reaches_cards_and_the_islands_parts(
    tmp_path: Path, crawled_stores: CrawledStores
) -> None:
    crawled_stores.copy(tmp_path, products=6).close()
    theme = tmp_path / "theme"
    (theme / "partials").mkdir(parents=True)
    (theme / "partials" / "price.html").write_text(PRICE, encoding="utf-8")
    build(None, config_for(tmp_path, out="themed", from_cache=True, templates=theme))
    out = tmp_path / "themed"
    pages = {p: p.read_text(encoding="utf-8") for p in out.rglob("*.html")}
    listings = [html for html in pages.values() if PRODUCT_CARD.search(html)]
    assert listings
    for page, html in pages.items():
        assert not DEFAULT_PRICE.search(html), page
    for html in listings:
        assert "PRICE-MARK" in html
    # What the islands draw: the price and card parts they clone, from the same partial.
    drawing = [html for html in pages.values() if 'data-part="price-now"' in html]
    assert drawing
    for html in drawing:
        parts = re.findall(r'<template data-part="?(?:card|price-\w+)"?>.*?</template>', html)
        # Every page has the three prices (the header's suggestions); listings the card too.
        assert len(parts) >= 3 and all("PRICE-MARK" in part for part in parts)
