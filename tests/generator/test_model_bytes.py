"""Fingerprint bytes: equal pages give equal bytes, any field change gives other bytes."""

from __future__ import annotations

import dataclasses
import pickle

from generator.model import Product
from generator.model_bytes import model_bytes
from generator.site_plan import Page
from tests.generator.fixture_site import fixture_plan


def _product_page_and_product() -> tuple[Page, Product]:
    plan = fixture_plan()
    page = next(page for page in plan.pages if isinstance(page.subject, Product))
    assert isinstance(page.subject, Product)
    return page, page.subject


def test_equal_pages_give_equal_bytes() -> None:
    page, _ = _product_page_and_product()
    copy = pickle.loads(pickle.dumps(page))
    assert copy is not page
    assert model_bytes(copy) == model_bytes(page)


def test_every_field_of_a_nested_dataclass_counts() -> None:
    page, product = _product_page_and_product()
    before = model_bytes(page)
    card = product.card
    changes = {
        "price": (card.price or 0) + 1000,
        "name": card.name + " mới",
        "in_stock": not card.in_stock,
        "updated_at": None,
    }
    for name, value in changes.items():
        moved_card = dataclasses.replace(card, **{name: value})
        moved = dataclasses.replace(page, subject=dataclasses.replace(product, card=moved_card))
        assert model_bytes(moved) != before, name
    assert model_bytes(dataclasses.replace(page, title=page.title + "!")) != before
