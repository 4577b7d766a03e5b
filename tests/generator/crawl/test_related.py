"""Related products and articles are chosen locally, without a request per page."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from generator.crawl import normalize
from generator.crawl.related import (
    CardsByCategory,
    RelatedProducts,
    articles_by_category,
    cards_by_category,
    related_articles,
    related_products,
)
from generator.model import ArticleSummary, Product, ProductCard


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


def _rule(product: Product, by_category: CardsByCategory, count: int) -> tuple[ProductCard, ...]:
    """The rule spelt out: walk the product's categories (main first), each card once, the
    product itself never; those with a page first, up to ``count``."""
    categories = dict.fromkeys(
        cid for cid in (product.card.category_id, *product.category_ids) if cid is not None
    )
    linked: list[ProductCard] = []
    plain: list[ProductCard] = []
    seen = {product.card.id}
    for category_id in categories:
        for listed in by_category.get(category_id, ()):
            if listed.id in seen:
                continue
            seen.add(listed.id)
            (linked if listed.url is not None else plain).append(listed)
    return tuple((linked + plain)[:count])


@settings(max_examples=300, deadline=None)
@given(
    listed=st.lists(st.tuples(st.integers(1, 12), st.integers(1, 4), st.booleans()), max_size=30),
    products=st.lists(
        st.tuples(st.integers(1, 14), st.lists(st.integers(1, 5), max_size=3)),
        min_size=1,
        max_size=8,
    ),
    count=st.integers(0, 5),
)
def test_choosing_for_many_products_follows_the_rule_for_each(
    listed: list[tuple[int, int, bool]], products: list[tuple[int, list[int]]], count: int
) -> None:
    cards = [card(ident, category, "/p" if linked else None) for ident, category, linked in listed]
    index = cards_by_category(cards)
    chooser = RelatedProducts(index, count)  # one for all: what it works out is shared
    for ident, categories in products:
        product = normalize.product(
            {
                "id": ident,
                "name": f"P{ident}",
                "category_id": categories[0] if categories else None,
                "category_ids": categories,
            }
        )
        assert chooser.of(product) == _rule(product, index, count)


def test_a_product_among_the_first_cards_leaves_its_place_to_the_next() -> None:
    cards = [card(1, 10, url=None), card(2, 10, url=None), card(3, 10), card(4, 10)]
    chooser = RelatedProducts(cards_by_category(cards), 1)
    first = normalize.product({"id": 1, "name": "P1", "category_id": 10, "url": None})
    third = normalize.product({"id": 3, "name": "P3", "category_id": 10})
    assert [c.id for c in chooser.of(third)] == [4]  # the next with a page
    only_plain = RelatedProducts(cards_by_category(cards[:2]), 1)
    assert [c.id for c in only_plain.of(first)] == [2]  # the next without one
    assert [c.id for c in chooser.of(first)] == [3]


def test_products_not_among_the_first_cards_of_their_category_share_one_choice() -> None:
    cards = [card(ident, 10) for ident in range(1, 8)]
    chooser = RelatedProducts(cards_by_category(cards), 2)
    later = [normalize.product({"id": i, "name": f"P{i}", "category_id": 10}) for i in (5, 6)]
    first = normalize.product({"id": 1, "name": "P1", "category_id": 10})
    assert chooser.of(later[0]) is chooser.of(later[1])  # one tuple for both
    assert [c.id for c in chooser.of(later[0])] == [1, 2]
    assert [c.id for c in chooser.of(first)] == [2, 3]  # among the first: a choice of its own


def test_no_related_products_asked_chooses_none() -> None:
    cards = [card(i, 1) for i in range(1, 6)]
    chooser = RelatedProducts(cards_by_category(cards), 0)
    product = normalize.product({"id": 1, "name": "P1", "category_id": 1, "url": "/p1"})
    assert chooser.of(product) == ()
    assert RelatedProducts(cards_by_category(cards), 2).of(product) == tuple(cards[1:3])
