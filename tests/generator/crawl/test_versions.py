"""The versions of derived answers: what a stored answer is replayed under."""

from __future__ import annotations

from dataclasses import fields, replace
from datetime import timedelta

from generator.crawl.versions import card_version, digest, listed_version
from tests.support.fixture_store import small_catalog


def test_a_listing_is_versioned_by_its_base_and_each_listed_card_now() -> None:
    cards = [product.card for product in small_catalog().products]
    now = {card.id: card_version(card) for card in cards[1:]}  # the first one is gone
    entries = [f"{card.id}:{now.get(card.id, '-')}" for card in cards]
    # The digest of the same text as ever: the versions stored by earlier builds still hold.
    assert listed_version("base", cards, now) == digest("base", *entries)
    assert listed_version("base", None, now) == digest("base", "new")
    moved = {**now, cards[1].id: "another"}
    assert listed_version("base", cards, moved) != listed_version("base", cards, now)
    assert listed_version("base", cards, now) != listed_version("other", cards, now)


def test_a_card_version_moves_with_each_of_its_fields() -> None:
    card = small_catalog().products[0].card
    assert card.updated_at is not None
    others = {
        "id": card.id + 1,
        "name": card.name + " mới",
        "slug": card.slug + "-2",
        "url": None,
        "price": (card.price or 0) + 1,
        "effective_price": (card.effective_price or 0) + 1,
        "compare_at_price": (card.compare_at_price or 0) + 1,
        "image_url": "/another.jpg",
        "in_stock": not card.in_stock,
        "category_id": (card.category_id or 0) + 1,
        "brand_id": (card.brand_id or 0) + 1,
        "updated_at": card.updated_at + timedelta(seconds=1),
    }
    assert set(others) == {f.name for f in fields(card)}  # a new field must be tried here too
    assert card_version(card) == card_version(replace(card))
    for name, value in others.items():
        assert card_version(replace(card, **{name: value})) != card_version(card), name
    assert card_version(replace(card, updated_at=None)) != card_version(card)
