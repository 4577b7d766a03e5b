"""Cursor walking: every page of a list endpoint, the cursor sent back verbatim.

Does: check each answer is the list envelope ``{items, next_cursor, has_more}``, then ask for
the next page with ``cursor=<next_cursor>`` exactly as received (httpx URL-encodes it, so
cursors with ``|``, ``:``, ``+`` or spaces survive), until ``has_more`` is false or
``next_cursor`` is null. A cursor that comes back a second time is an ``ApiPayloadError``
rather than an endless loop; so is a walk longer than ``max_pages``, or past its ``ListBound``
(what the caller knows of the list's size from elsewhere, the sitemap's counts for the crawl).

Does NOT: send, retry or wait - it is given a ``fetch`` for one page, so the caller chooses the
layers (the crawler passes one that waits out 429s, and a walk resumes where it stopped).
Nor does it look inside the items.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass

from generator.client.answer import ApiResponse, Params
from generator.errors import ApiPayloadError

#: Fetches one page of the walk: the list endpoint with these query parameters.
FetchPage = Callable[[Params], Awaitable[ApiResponse]]


@dataclass(frozen=True, slots=True)
class Page:
    items: tuple[object, ...]
    next_cursor: str | None
    has_more: bool


def parse_page(data: object, *, endpoint: str) -> Page:
    """The list envelope of one answer. A bare JSON array is taken as one complete page."""
    if isinstance(data, list):
        return Page(tuple(data), None, False)
    if not isinstance(data, dict):
        raise ApiPayloadError(
            f"expected a list envelope {{items, next_cursor, has_more}}, got {_kind(data)}",
            endpoint=endpoint,
        )
    items = data.get("items")
    if not isinstance(items, list):
        raise ApiPayloadError(
            f"the list envelope's items is {_kind(items)}, not an array", endpoint=endpoint
        )
    cursor = data.get("next_cursor")
    if isinstance(cursor, int) and not isinstance(cursor, bool):
        cursor = str(cursor)
    if cursor is not None and not isinstance(cursor, str):
        raise ApiPayloadError(
            f"next_cursor is {_kind(cursor)}, not a string or null", endpoint=endpoint
        )
    next_cursor = cursor or None
    has_more = data.get("has_more", next_cursor is not None)
    if not isinstance(has_more, bool):
        raise ApiPayloadError(f"has_more is {_kind(has_more)}, not a boolean", endpoint=endpoint)
    return Page(tuple(items), next_cursor, has_more)


@dataclass(frozen=True, slots=True)
class ListBound:
    """The most items a list may hold, and why, for the message of a walk that goes past it.

    A walk stops after as many pages too: a list of empty pages ends as well."""

    items: int
    #: e.g. "more than twice the 120 rows the sitemap counts for products, plus 1,000"
    why: str


#: Fetches one page of the walk and reads its envelope: (endpoint, page).
FetchParsedPage = Callable[[Params], Awaitable[tuple[str, Page]]]


async def walk_pages(
    fetch: FetchPage,
    params: Params | None = None,
    *,
    max_pages: int = 100_000,
    bound: ListBound | None = None,
) -> AsyncIterator[Page]:
    """Every page of one list, first to last."""

    async def parsed(page_params: Params) -> tuple[str, Page]:
        response = await fetch(page_params)
        return response.endpoint, parse_page(response.data, endpoint=response.endpoint)

    async for page in walk_parsed_pages(parsed, params, max_pages=max_pages, bound=bound):
        yield page


async def walk_parsed_pages(
    fetch: FetchParsedPage,
    params: Params | None = None,
    *,
    max_pages: int = 100_000,
    bound: ListBound | None = None,
) -> AsyncIterator[Page]:
    """Every page of one list, first to last, for a ``fetch`` that reads each envelope itself
    (the crawler does, so that it can reuse what it read from a cached answer)."""
    base = dict(params or {})
    sent: set[str] = set()
    cursor: str | None = None
    endpoint = ""
    items = pages = 0
    for _ in range(max_pages):
        page_params = base if cursor is None else {**base, "cursor": cursor}
        endpoint, page = await fetch(page_params)
        items += len(page.items)
        pages += 1
        if bound is not None and max(items, pages) > bound.items:
            unit = "items" if items > bound.items else "pages"
            raise ApiPayloadError(
                f"the list went on past {bound.items:,} {unit}, {bound.why}; "
                "stopped instead of walking on",
                endpoint=endpoint,
            )
        yield page
        if not page.has_more or page.next_cursor is None:
            return
        if cursor is not None:
            sent.add(cursor)
        if page.next_cursor in sent or page.next_cursor == cursor:
            raise ApiPayloadError(
                f"next_cursor {_short(page.next_cursor)} repeats an earlier cursor; "
                "stopped instead of looping",
                endpoint=endpoint,
            )
        cursor = page.next_cursor
    raise ApiPayloadError(
        f"the list did not end after {max_pages:,} pages, the most the client reads of one "
        "list; stopped instead of walking on",
        endpoint=endpoint,
    )


async def walk_items(
    fetch: FetchPage,
    params: Params | None = None,
    *,
    max_pages: int = 100_000,
    bound: ListBound | None = None,
) -> AsyncIterator[object]:
    """Every item of one list, in order."""
    async for page in walk_pages(fetch, params, max_pages=max_pages, bound=bound):
        for item in page.items:
            yield item


def _short(cursor: str) -> str:
    """A cursor as messages quote it: whole when short, its start when not."""
    text = repr(cursor)
    return text if len(text) <= 60 else f"{text[:59]}… ({len(cursor):,} characters)"


def _kind(value: object) -> str:
    if value is None:
        return "null"
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}.get(
        type(value), "a number" if isinstance(value, int | float) else type(value).__name__
    )
