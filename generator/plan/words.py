"""The words the plan gives pages (names, breadcrumbs, descriptions): the theme's
``words.toml`` ``[pages]`` table, which the build reads with the theme
(``render.words``) and hands to ``plan_site``; a caller that gives none gets the default
theme's. Python holds none of them.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from functools import cache

from generator.shipped import THEME_DIR

#: The translations file of a theme, at its top.
WORDS_FILE = "words.toml"
_PLACE = re.compile(r"\{(\w+)\}")


class PageWords:
    """``words.say("home_description", store="Shop")``: the text of a key, its ``{names}``
    put in (a name without a value stays as it is written)."""

    __slots__ = ("_texts",)

    def __init__(self, texts: Mapping[str, str]) -> None:
        self._texts = dict(texts)

    def __getitem__(self, key: str) -> str:
        return self._texts[key]

    def say(self, key: str, **values: object) -> str:
        return _PLACE.sub(lambda m: str(values.get(m[1], m[0])), self._texts[key])


@cache
def default_words() -> PageWords:
    """The default theme's ``[pages]`` words."""
    with (THEME_DIR / WORDS_FILE).open("rb") as file:
        return PageWords(tomllib.load(file)["pages"])
