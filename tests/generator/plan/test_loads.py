from __future__ import annotations

from dataclasses import replace

from generator.loads import image_loads
from generator.model import PackedProduct
from generator.plan.loads import site_loads
from generator.plan.site_plan import plan_site
from tests.support.fixture_store import SITE_URL, card, small_catalog, with_product


def test_the_loads_hold_the_image_of_every_card_the_pages_show() -> None:
    plan = plan_site(small_catalog(), SITE_URL)
    shown = {p.subject.card.image_url for p in plan.pages if type(p.subject) is PackedProduct}
    for page in plan.pages:
        shown.update(c.image_url for c in getattr(page.subject, "products", ()))
    expected = image_loads(shown)
    assert expected
    assert expected <= site_loads(plan)


def test_a_products_related_cards_bring_their_images() -> None:
    other = card(9, "Áo khác", "/ao-khac", price=100_000, image="https://anh.example.org/p/990.jpg")
    catalog = with_product(small_catalog(), 0, lambda p: replace(p, related=(other,)))
    loads = site_loads(plan_site(catalog, SITE_URL))
    assert ("img-src", "https://anh.example.org") in loads
