"""The versions of derived answers: what a stored answer is replayed under."""

from __future__ import annotations

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
