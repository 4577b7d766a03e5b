"""Small conversions from stored values to wire values, shared by the routes and product cards."""

from __future__ import annotations

from datetime import datetime

from companion.clock import wire_timestamp


def clean_url(url: str | None) -> str | None:
    """A stored url as served: an empty or blank one means no page, which the wire says as null."""
    if url is None or not url.strip():
        return None
    return url


def wire(when: datetime) -> str:
    """A non-null timestamp in wire form."""
    return wire_timestamp(when) or ""


def article_path(slug: str) -> str:
    """Articles have no url column: their page is always /bai-viet/<slug>."""
    return f"/bai-viet/{slug}"
