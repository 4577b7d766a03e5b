"""Slugs of the demo store: the accent-folded name, hyphenated ("Áo dài" -> "ao-dai")."""

from __future__ import annotations

import re

from companion.text import fold

_NOT_SLUG = re.compile(r"[^a-z0-9]+")


def slugify(text: str) -> str:
    return _NOT_SLUG.sub("-", fold(text)).strip("-")
