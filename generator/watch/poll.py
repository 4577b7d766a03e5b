"""Content polling of `storefront watch`: a digest of the first list pages, asked every N s.

A merchant's edit moves at least one first page (a new or updated product or article comes
first, a price shows in its card, a category renames in the tree); when the digest of those
answers changes, the site is rebuilt. The incremental build then fetches only what moved.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable

import anyio

from generator.client.api import ApiClient
from generator.errors import StorefrontError

#: The first page of each of these is asked; their answers make the digest.
POLLED_PATHS = ("/products", "/articles", "/categories/tree")

Trigger = Callable[[str], None]
Report = Callable[[str], None]


async def content_digest(client: ApiClient) -> str:
    """sha256 over the first pages of ``POLLED_PATHS``, in canonical JSON."""
    digest = hashlib.sha256()
    for path in POLLED_PATHS:
        data = await client.json(path)
        digest.update(path.encode() + b"\n")
        digest.update(json.dumps(data, sort_keys=True, separators=(",", ":")).encode() + b"\n")
    return digest.hexdigest()


async def poll_content(
    digest: Callable[[], Awaitable[str]],
    *,
    every: float,
    trigger: Trigger,
    report: Report,
    paused: Callable[[], bool] = lambda: False,
) -> None:
    """Forever: every ``every`` seconds compute ``digest``; a change calls ``trigger``.

    Not while ``paused`` (a build is running: it spends the key's requests, and reads the
    content itself). An unreachable or failing API is reported in one line and asked again next
    time; the watcher keeps running.
    """
    last: str | None = None
    while True:
        if paused():
            await anyio.sleep(every)
            continue
        try:
            current: str | None = await digest()
        except StorefrontError as exc:
            report(f"content poll failed: {exc}")
            current = None
        if current is not None:
            if last is not None and current != last:
                trigger("content changed")
            last = current
        await anyio.sleep(every)
