"""Static pagination of a listing: where its pages live and which numbers each page links to.

Page 1 of a listing stays at the listing's own path; page ``n`` lives at ``<path>/trang/<n>``
(``/danh-muc/ao`` -> ``/danh-muc/ao/trang/2``; a path ending in ``/`` drops it first). That is
a plain page path like any other, so every host recipe serves it (``a/trang/2.html``), and the
plan's collision check refuses it when an entity already has that path.

Each page links to the previous and the next page and to numbered pages: all of them for a
short listing; for a long one, the first page of every block of ``step`` pages (``step`` about
the square root of the count) and every page of its own block, so any page is at most two
clicks from any other with about ``2 * sqrt(count)`` links.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TypeVar

from generator.model import Pager, listing_page_path

T = TypeVar("T")

#: Up to this many pages, every page links to every other.
ALL_NUMBERS_UP_TO = 20


#: The path of page ``number`` (1-based) of the listing at ``listing_path``.
page_path = listing_page_path


def chunks(items: Sequence[T], per_page: int) -> list[Sequence[T]]:
    """The items page by page; an empty listing still has its first (empty) page."""
    if not items:
        return [items]
    return [items[start : start + per_page] for start in range(0, len(items), per_page)]


def pager(listing_path: str, number: int, count: int) -> Pager:
    """Page ``number`` of ``count``: its previous, next and numbered links."""
    return Pager(number, count, listing_path, shown_numbers(number, count))


def shown_numbers(number: int, count: int) -> tuple[int, ...]:
    """The page numbers page ``number`` links to (itself included), ascending."""
    if count <= ALL_NUMBERS_UP_TO:
        return tuple(range(1, count + 1))
    step = math.isqrt(count - 1) + 1
    block = (number - 1) // step * step + 1
    shown = set(range(1, count + 1, step))
    shown.update(range(block, min(block + step, count + 1)))
    shown.add(count)
    return tuple(sorted(shown))
