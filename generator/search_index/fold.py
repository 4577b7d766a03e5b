"""Text folded as a shopper types it: no tone marks, đ as d, lower case ("Áo thun nữ" ->
"ao thun nu"). The islands fold queries the same way (islands/find.js)."""

from __future__ import annotations

import re
import unicodedata

_MARKS = re.compile(r"[\u0300-\u036f]")
_WORD = re.compile(r"[a-z0-9]+")


def fold(text: str) -> str:
    text = unicodedata.normalize("NFD", text)
    return _MARKS.sub("", text).replace("đ", "d").replace("Đ", "D").lower()


def words(text: str | None) -> list[str]:
    """The folded words of ``text``: runs of letters and digits."""
    return _WORD.findall(fold(text)) if text else []
