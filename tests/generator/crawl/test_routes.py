"""Which paths a crawl must resolve: internal, unexplained, once per spelling."""

from __future__ import annotations

import dataclasses

import pytest

from generator.crawl.routes import internal_path, path_key, unexplained_paths
from generator.crawl.versions import ListedPaths
from generator.model import ProductCard
from tests.support.fixture_store import CAP, JEAN, SHIRT


@pytest.mark.parametrize(
    ("link", "path"),
    [
        ("/khuyen-mai?utm=menu#top", "/khuyen-mai"),
        ("/", "/"),
        ("https://example.com/a", None),
        ("//cdn.example.com/a", None),
        ("mailto:a@b.c", None),
        ("", None),
        (None, None),
    ],
)
def test_internal_path_keeps_only_same_site_paths(link: str | None, path: str | None) -> None:
    assert internal_path(link) == path


def test_path_key_joins_spellings_of_one_path() -> None:
    assert path_key("/%C3%A1o-thun/") == path_key("/a\u0301o-thun") == "/áo-thun"
    assert path_key("/ao-thun/") == path_key("/ao-thun") == path_key("/ao%2Dthun") == "/ao-thun"
    assert path_key("/") == path_key("//") == "/"


def test_unexplained_paths_are_new_internal_paths_in_first_seen_order() -> None:
    candidates = ["/ao", "/trang/a?x=1", "https://x.test/", "/trang/a", "/%C3%A1o", "/b"]
    assert unexplained_paths(candidates, known=["/ao", "/áo", "/"]) == ["/trang/a", "/b"]


def _listed_paths(*cards: ProductCard) -> str:
    paths = ListedPaths()
    for card in cards:
        paths.add(card)
    return paths.digest()


def test_listed_paths_move_with_a_url_or_slug_never_with_a_price_or_the_order() -> None:
    """What the product list gives the version of route resolutions (``paths_version``)."""
    first = _listed_paths(SHIRT, JEAN, CAP)
    assert _listed_paths(CAP, SHIRT, JEAN) == first  # a price change may reorder the list
    assert _listed_paths(dataclasses.replace(SHIRT, price=1), JEAN, CAP) == first
    assert _listed_paths(dataclasses.replace(SHIRT, url="/ao-moi"), JEAN, CAP) != first
    assert _listed_paths(dataclasses.replace(CAP, slug="mu-moi"), JEAN, SHIRT) != first
    assert _listed_paths(SHIRT, JEAN) != first  # a product gone
    assert _listed_paths(SHIRT, JEAN, CAP, CAP) != first  # listed twice counts twice
