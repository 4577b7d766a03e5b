"""What the pages of a plan make a browser load from elsewhere: ``site_loads(plan)``.

The loads (``generator.loads``) of every image url and merchant ``*_html`` field the pages
show: a walk over the site context and each page's subject, down through their records. A
packed product brings the loads worked out when it was packed, so its blob stays closed; a
record shared by many pages (a card, a category) is walked once.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

from generator.loads import Load, html_loads, url_source
from generator.model import Image, PackedProduct
from generator.plan.site_plan import SitePlan

#: Fields that hold an image url the templates show (``Image.url`` is handled by its type).
_IMAGE_FIELDS = frozenset({"image_url", "cover_image_url", "logo_url"})


def site_loads(plan: SitePlan) -> frozenset[Load]:
    walk = _Walk()
    walk.visit(plan.site)
    for page in plan.pages:
        walk.visit(page.subject)
    return frozenset(walk.loads)


class _Walk:
    def __init__(self) -> None:
        self.loads: set[Load] = set()
        self._seen: set[int] = set()
        self._fields: dict[type, tuple[str, ...]] = {}

    def visit(self, value: object) -> None:
        if isinstance(value, tuple):
            for item in value:
                self.visit(item)
            return
        if not dataclasses.is_dataclass(value) or isinstance(value, type):
            return
        if id(value) in self._seen:
            return
        self._seen.add(id(value))
        if isinstance(value, PackedProduct):
            self.loads.update(value.head.loads)
            self.visit(value.head.card)
            self.visit(value.related)
            return
        if isinstance(value, Image):
            self._image(value.url)
            return
        for name, field_value in self._values(value):
            if isinstance(field_value, str):
                if name in _IMAGE_FIELDS:
                    self._image(field_value)
                elif name.endswith("_html"):
                    self.loads.update(html_loads(field_value))
            else:
                self.visit(field_value)

    def _values(self, record: object) -> Iterator[tuple[str, object]]:
        names = self._fields.get(type(record))
        if names is None:
            names = self._fields[type(record)] = tuple(
                f.name for f in dataclasses.fields(record)  # type: ignore[arg-type]
            )
        for name in names:
            yield name, getattr(record, name)

    def _image(self, url: str) -> None:
        source = url_source(url)
        if source is not None:
            self.loads.add(("img-src", source))
