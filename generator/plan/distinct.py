"""Titles and meta descriptions told apart where several indexable pages would share one.

Two products may carry the same name, and articles may open with the same sentence: search
engines then see duplicate titles and descriptions. Among the pages in the sitemap (each its
own canonical), a shared title gains a qualifier - the page's parent in its breadcrumb (its
category) when that tells the group apart, else its code (``Mã 250`` for a product: the
theme's ``product_code`` words; the last segment of its path otherwise) - before the store's
name; a shared description is prefixed with the page's name (qualified the same way when the
names are the same too).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Protocol

from generator.model import PackedProduct
from generator.plain_text import META_DESCRIPTION_LENGTH, shorten
from generator.plan.paths import page_key
from generator.plan.words import PageWords, default_words


class _Named(Protocol):
    @property
    def name(self) -> str: ...


class Page(Protocol):
    """What this module reads of a planned page (``site_plan.Page``)."""

    @property
    def path(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def canonical_path(self) -> str | None: ...
    @property
    def in_sitemap(self) -> bool: ...
    @property
    def breadcrumb(self) -> Sequence[_Named]: ...
    @property
    def subject(self) -> object: ...


def distinct_texts(
    pages: Sequence[Page], store_name: str, words: PageWords | None = None
) -> dict[int, tuple[str, str]]:
    """The (title, description) to give the pages at these indexes of ``pages`` so that no two
    indexable pages share either (a product's code in ``words``' ``product_code``)."""
    words = words or default_words()
    titles = [p.title for p in pages]
    descriptions = [p.description for p in pages]
    indexable = [i for i, p in enumerate(pages) if p.in_sitemap and p.canonical_path == p.path]
    changed: set[int] = set()
    for members in _shared(titles, indexable):
        for index, qualifier in zip(
            members, _qualifiers([pages[i] for i in members], words), strict=True
        ):
            titles[index] = _qualified_title(titles[index], qualifier, store_name)
            changed.add(index)
    for members in _shared(descriptions, indexable):
        group = [pages[i] for i in members]
        labels = [p.name for p in group]
        if len(set(labels)) < len(labels):
            labels = [
                f"{p.name} ({q})" for p, q in zip(group, _qualifiers(group, words), strict=True)
            ]
        for index, label in zip(members, labels, strict=True):
            text = f"{label}: {descriptions[index]}"
            descriptions[index] = shorten(text, META_DESCRIPTION_LENGTH)
            changed.add(index)
    return {i: (titles[i], descriptions[i]) for i in sorted(changed)}


def _shared(texts: list[str], indexable: list[int]) -> list[list[int]]:
    # Counted in C first: most texts are their page's alone, and need no group of their own.
    counts = Counter(map(texts.__getitem__, indexable))
    groups: defaultdict[str, list[int]] = defaultdict(list)
    for index in indexable:
        text = texts[index]
        if counts[text] > 1:
            groups[text].append(index)
    return list(groups.values())


def _qualifiers(group: Sequence[Page], words: PageWords) -> list[str]:
    """What tells each page of ``group`` apart: its breadcrumb parent when those differ, else
    its code."""
    parents = [p.breadcrumb[-2].name if len(p.breadcrumb) > 2 else "" for p in group]
    if all(parents) and len(set(parents)) == len(parents):
        return parents
    return [_code(p, words) for p in group]


def _code(page: Page, words: PageWords) -> str:
    if isinstance(page.subject, PackedProduct):
        return words.say("product_code", number=page.subject.card.id)
    return page_key(page.path).rstrip("/").rsplit("/", 1)[-1]


def _qualified_title(title: str, qualifier: str, store_name: str) -> str:
    tail = f" | {store_name}"
    if title.endswith(tail):
        return f"{title[: -len(tail)]} – {qualifier}{tail}"
    return f"{title} – {qualifier}"
