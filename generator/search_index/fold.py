"""Text folded as a shopper types it: no tone marks, đ as d, lower case ("Áo thun nữ" ->
"ao thun nu"). The islands fold queries the same way (islands/find.js)."""

from __future__ import annotations

import functools
import re
import unicodedata

_MARKS = re.compile(r"[\u0300-\u036f]")
_WORD = re.compile(r"[a-z0-9]+")


def fold(text: str) -> str:
    text = unicodedata.normalize("NFD", text)
    return _MARKS.sub("", text).replace("đ", "d").replace("Đ", "D").lower()


def words(text: str | None) -> list[str]:
    """The folded words of ``text``: runs of letters and digits."""
    return list(_words(text)) if text else []


@functools.lru_cache(maxsize=4096)
def _words(text: str) -> tuple[str, ...]:
    # Cached: brands, category names and option values repeat across a store's products.
    return tuple(_WORD.findall(fold(text)))
