"""Related products and articles are chosen locally, without a request per page."""

from __future__ import annotations

from generator import normalize
from generator.crawl_related import (
    articles_by_category,
    cards_by_category,
    related_articles,
    related_products,
)
from generator.model import ArticleSummary, ProductCard


def card(ident: int, category: int | None, url: str | None = "/p") -> ProductCard:
    return normalize.product_card(
        {"id": ident, "name": f"P{ident}", "category_id": category, "url": url and f"{url}{ident}"}
    )


def summary(ident: int, *categories: int) -> ArticleSummary:
    return normalize.article_summary(
        {
            "id": ident,
            "title": f"A{ident}",
            "slug": f"a-{ident}",
            "categories": [{"id": c, "name": f"C{c}", "slug": f"c{c}"} for c in categories],
        }
    )


def test_related_products_share_the_category_and_exclude_the_product_itself() -> None:
    cards = [card(1, 10), card(2, 20), card(3, 10), card(4, 10), card(5, 10)]
    product = normalize.product({"id": 1, "name": "P1", "category_id": 10})
    related = related_products(product, cards_by_category(cards), 2)
    assert [c.id for c in related] == [3, 4]


def test_products_with_a_page_come_before_plain_text_ones() -> None:
    cards = [card(1, 10), card(2, 10, url=None), card(3, 10)]
    product = normalize.product({"id": 1, "name": "P1", "category_id": 10})
    assert [c.id for c in related_products(product, cards_by_category(cards), 2)] == [3, 2]


def test_main_category_comes_before_the_other_categories() -> None:
    cards = [card(2, 30), card(3, 10)]
    product = normalize.product(
        {"id": 1, "name": "P1", "category_id": 10, "category_ids": [30, 10]}
    )
    assert [c.id for c in related_products(product, cards_by_category(cards), 4)] == [3, 2]


def test_a_product_without_category_has_no_related_products() -> None:
    product = normalize.product({"id": 1, "name": "P1"})
    assert related_products(product, cards_by_category([card(2, 10)]), 4) == ()


def test_related_articles_share_a_category_newest_first() -> None:
    summaries = [summary(1, 7), summary(2, 8), summary(3, 7, 8), summary(4, 7)]
    index = articles_by_category(summaries)
    assert [a.id for a in related_articles(summaries[0], index, 3)] == [3, 4]
    assert [a.id for a in related_articles(summaries[2], index, 2)] == [1, 4]
    assert related_articles(summary(9), index, 3) == ()
