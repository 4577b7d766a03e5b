"""Accent folding for Vietnamese search: "Áo thun" and "ao thun" fold to the same key."""

from __future__ import annotations

import unicodedata

_SPECIAL = str.maketrans({"đ": "d", "Đ": "d"})


def fold(text: str) -> str:
    """Lower-case, strip diacritics (đ -> d) and collapse white space."""
    decomposed = unicodedata.normalize("NFD", text.translate(_SPECIAL))
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(stripped.lower().split())
