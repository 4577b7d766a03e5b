"""What the pages of a plan make a browser load from elsewhere: ``site_loads(plan)``; which
pages carry some given loads: ``pages_loading(plan, loads)``.

The loads (``generator.loads``) of every image url and merchant ``*_html`` field the pages
show: a walk over the site context and each page's subject, down through their records. A
packed product brings the loads worked out when it was packed (``crawl.pack.facts``), so its
blob stays closed; a record shared by many pages (a card, a category) is walked once.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Set

from generator.crawl.pack import facts
from generator.loads import Load, html_loads, url_source
from generator.model import Image, PackedProduct, ProductCard
from generator.plan.site_plan import SitePlan

#: Fields that hold an image url the templates show (``Image.url`` is handled by its type).
_IMAGE_FIELDS = frozenset({"image_url", "cover_image_url", "logo_url"})


def site_loads(plan: SitePlan) -> frozenset[Load]:
    walk = _Walk()
    walk.visit(plan.site)
    seen = walk.seen
    for page in plan.pages:
        subject = page.subject
        if type(subject) is PackedProduct:  # most pages: their pack's loads, directly
            walk.loads.update(facts(subject).loads)
            # Its card's image is among them: the listings showing that card skip it.
            seen.add(id(subject.head.card))
            if subject.related:
                walk.visit(subject.related)
        else:
            walk.visit(subject)
    return frozenset(walk.loads)


def pages_loading(plan: SitePlan, wanted: Set[Load]) -> dict[Load, list[str]]:
    """For each of ``wanted``, the paths of the pages whose own content carries it, in the
    plan's order; one found in no page's own content is the site's (``[]``): every page
    shows it. A walk per page: for the build's warnings, when some load was refused."""
    found: dict[Load, list[str]] = {load: [] for load in wanted}
    for page in plan.pages:
        subject = page.subject
        if type(subject) is PackedProduct:
            loads: set[Load] = set(facts(subject).loads)
        else:
            walk = _Walk()
            walk.visit(subject)
            loads = walk.loads
        for load in loads & found.keys():
            found[load].append(page.path)
    return found


class _Walk:
    def __init__(self) -> None:
        self.loads: set[Load] = set()
        self.seen: set[int] = set()  # the records and tuples walked (by id), or not needed
        #: Per type: (image fields, html fields, other fields); () for a type that is no record.
        self._fields: dict[type, tuple[tuple[str, ...], ...]] = {}
        #: The source of each scheme-and-host prefix met (cards repeat a few hosts many times).
        self._sources: dict[str, str | None] = {}

    def visit(self, value: object) -> None:
        kind = type(value)
        if kind is tuple:
            # Walked once too: most products share their related cards' tuple.
            if id(value) in self.seen:
                return
            seen = self.seen
            seen.add(id(value))
            for item in value:  # type: ignore[attr-defined]
                if id(item) not in seen:  # listings repeat the cards of other pages
                    self.visit(item)
            return
        fields = self._fields.get(kind)
        if fields is None:
            fields = self._fields[kind] = _fields_of(kind)
        if not fields or id(value) in self.seen:
            return
        self.seen.add(id(value))
        if kind is PackedProduct:
            assert isinstance(value, PackedProduct)
            self.loads.update(facts(value).loads)  # its card's image included
            self.visit(value.related)
            return
        if kind is Image:
            assert isinstance(value, Image)
            self._image(value.url)
            return
        if kind is ProductCard:  # the most common record by far: its one load, directly
            assert isinstance(value, ProductCard)
            if value.image_url is not None:
                self._image(value.image_url)
            return
        images, htmls, others = fields
        for name in images:
            url = getattr(value, name)
            if isinstance(url, str):
                self._image(url)
        for name in htmls:
            html = getattr(value, name)
            if isinstance(html, str):
                self.loads.update(html_loads(html))
        for name in others:
            self.visit(getattr(value, name))

    def _image(self, url: str) -> None:
        end = url.find("/", 8)  # the path's slash, past "https://"
        prefix = url if end < 0 else url[:end]
        if prefix not in self._sources:
            self._sources[prefix] = url_source(prefix)
        source = self._sources[prefix]
        if source is not None:
            self.loads.add(("img-src", source))


def _fields_of(kind: type) -> tuple[tuple[str, ...], ...]:
    if not dataclasses.is_dataclass(kind):
        return ()
    names = [field.name for field in dataclasses.fields(kind)]
    images = tuple(name for name in names if name in _IMAGE_FIELDS)
    htmls = tuple(name for name in names if name.endswith("_html"))
    others = tuple(name for name in names if name not in images and name not in htmls)
    return (images, htmls, others)
