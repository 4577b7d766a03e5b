"""Readings as the crawl cache keeps them: the records of an answer, its product cards apart."""

from __future__ import annotations

import dataclasses
import marshal
import pickle

import pytest

from generator.client.paging import Page
from generator.model import ProductCard
from generator.replay.cache_values import (
    _SHAPING,
    CardTable,
    card_digest,
    dump_readings,
    load_readings,
)
from tests.support.fixture_store import small_catalog


def _cards() -> list[ProductCard]:
    return [product.card for product in small_catalog().products]


def _listing(cards: list[ProductCard]) -> dict[str, object]:
    return {"page listing": ("/products?limit=100", Page(tuple(cards), "next", True))}


def test_readings_read_back_are_the_readings_written() -> None:
    products = small_catalog().products
    readings: dict[str, object] = {
        "packed product": (products[0], ("/products/1/variants",)),
        **_listing(_cards()),
        "plain": [1, "hai", None],
    }
    assert load_readings(dump_readings(readings)) == readings
    assert load_readings(dump_readings({})) == {}


def test_a_card_read_before_is_taken_as_it_is_not_decoded_again() -> None:
    cards = _cards()
    known: CardTable = {}
    first = load_readings(dump_readings(_listing(cards)), known)
    again = load_readings(dump_readings(_listing(cards[::-1])), known)
    first_cards = first["page listing"][1].items  # type: ignore[index]
    again_cards = again["page listing"][1].items  # type: ignore[index]
    assert len(known) == len(set(cards)) > 1
    assert all(a is b for a, b in zip(again_cards, first_cards[::-1], strict=True))
    assert list(again_cards) == cards[::-1]


def test_a_card_of_other_values_is_read_as_its_own() -> None:
    cards = _cards()
    known: CardTable = {}
    load_readings(dump_readings(_listing(cards)), known)
    moved = dataclasses.replace(cards[0], price=(cards[0].price or 0) + 1_000)
    found = load_readings(dump_readings(_listing([moved, *cards[1:]])), known)
    read = found["page listing"][1].items  # type: ignore[index]
    assert read[0] == moved and read[0] is not cards[0]
    assert read[0].price == moved.price
    assert known[card_digest(moved)] is read[0]  # known from now on
    assert all(card is known[card_digest(card)] for card in read)


def test_a_card_that_appears_twice_in_a_reading_is_kept_once() -> None:
    card = _cards()[0]
    blob = dump_readings(_listing([card, card]))
    items = load_readings(blob)["page listing"][1].items  # type: ignore[index]
    assert items[0] is items[1] and items[0] == card


def test_a_damaged_or_foreign_blob_reads_as_no_readings() -> None:
    blob = dump_readings(_listing(_cards()))
    assert load_readings(blob[: len(blob) // 2]) == {}
    assert load_readings(b"not a reading") == {}
    # A reading of the earlier layout (one pickle) is not taken for this one.
    assert load_readings(pickle.dumps(_listing(_cards()))) == {}


def test_the_rest_of_a_reading_does_not_read_without_its_cards() -> None:
    _, _, rest = marshal.loads(dump_readings(_listing(_cards())))
    with pytest.raises(pickle.UnpicklingError, match="without its cards"):
        pickle.loads(rest)


def test_the_layout_of_readings_is_part_of_the_code_that_validates_them() -> None:
    # A cache written with another layout has its readings ignored, never misread.
    assert "generator.replay.cache_values" in _SHAPING
