"""Related products and articles are chosen locally, without a request per page."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator import normalize
from generator.crawl_related import (
    CardsByCategory,
    GrowingRelated,
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


@pytest.mark.slow
@settings(max_examples=1000, deadline=None)
@given(
    listed=st.lists(st.tuples(st.integers(1, 12), st.integers(1, 4), st.booleans()), max_size=40),
    products=st.lists(
        st.tuples(st.integers(1, 14), st.lists(st.integers(1, 5), max_size=3)),
        min_size=1,
        max_size=6,
    ),
    count=st.integers(0, 4),
)
def test_a_choice_made_while_the_list_is_walked_is_the_one_made_after_it(
    listed: list[tuple[int, int, bool]], products: list[tuple[int, list[int]]], count: int
) -> None:
    """Whatever ``GrowingRelated`` settles after any prefix of the walk is what choosing from
    the whole list gives; once the walk is over it settles at least every product whose main
    category lists more than ``count`` products with a page (each id counted by its first
    card)."""
    cards = [card(ident, category, "/p" if linked else None) for ident, category, linked in listed]
    entries = [
        normalize.product(
            {
                "id": ident,
                "name": f"P{ident}",
                "category_id": categories[0] if categories else None,
                "category_ids": categories,
            }
        )
        for ident, categories in products
    ]
    whole = RelatedProducts(cards_by_category(cards), count)
    growing = GrowingRelated(count)
    for listed_card in [None, *cards]:
        if listed_card is not None:
            growing.add(listed_card)
        for product in entries:
            settled = growing.final_of(product)
            if settled is not None:
                assert settled == whole.of(product)
    for product in entries:
        main = product.card.category_id
        first: dict[int, ProductCard] = {}  # each id by its first card, as the choice counts it
        for listed_card in cards:
            if listed_card.category_id == main:
                first.setdefault(listed_card.id, listed_card)
        linked = {ident for ident, c in first.items() if c.url is not None}
        if main is None or len(linked) > count:
            assert growing.final_of(product) is not None


def test_a_choice_is_not_settled_while_a_card_to_come_could_still_take_a_place() -> None:
    growing = GrowingRelated(2)
    product = normalize.product({"id": 9, "name": "P9", "category_id": 10})
    for ident in (1, 2):
        growing.add(card(ident, 10))
    assert growing.final_of(product) is None  # a third card with a page may still come
    growing.add(card(3, 10, url=None))
    assert growing.final_of(product) is None  # one without a page takes no place first
    growing.add(card(4, 10))
    assert [c.id for c in growing.final_of(product) or ()] == [1, 2]


def test_products_not_among_the_first_cards_of_their_category_share_one_choice() -> None:
    cards = [card(ident, 10) for ident in range(1, 8)]
    chooser = RelatedProducts(cards_by_category(cards), 2)
    later = [normalize.product({"id": i, "name": f"P{i}", "category_id": 10}) for i in (5, 6)]
    first = normalize.product({"id": 1, "name": "P1", "category_id": 10})
    assert chooser.of(later[0]) is chooser.of(later[1])  # one tuple for both
    assert [c.id for c in chooser.of(later[0])] == [1, 2]
    assert [c.id for c in chooser.of(first)] == [2, 3]  # among the first: a choice of its own


def test_an_id_listed_again_with_a_page_counts_as_its_first_card_did() -> None:
    """A list walked while it changes may repeat a product: the choice counts the id by its
    first card, so a later card of it with a page does not settle a choice early."""
    growing = GrowingRelated(1)
    product = normalize.product({"id": 9, "name": "P9", "category_id": 1})
    growing.add(card(2, 1, url=None))
    growing.add(card(2, 1))  # the same product again, now with a page
    growing.add(card(3, 1))
    assert growing.final_of(product) is None  # one product with a page so far, not two
    growing.add(card(4, 1))
    cards = [card(2, 1, url=None), card(2, 1), card(3, 1), card(4, 1)]
    assert growing.final_of(product) == RelatedProducts(cards_by_category(cards), 1).of(product)
