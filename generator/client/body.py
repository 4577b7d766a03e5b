"""Reading an answer's body within a size limit, while it streams.

Does: count the body as it arrives, decompressed (``aiter_bytes`` undoes any Content-Encoding),
and stop at the first byte past the limit; refuse at once a body whose declared length already
is. So neither a huge list page, an endless chunked body nor a small gzip body that expands a
thousandfold is ever held whole, and past a few MiB one answer at a time reads on.

Does NOT: decode JSON or name endpoints in errors (``request`` does); the caller maps
httpx's exceptions.
"""

from __future__ import annotations

import anyio
import httpx

_IDENTITY = frozenset({"", "identity"})


#: Past this many decoded bytes an answer reads on only in its client's one large-answer slot
#: (``large``), so several large answers at once hold at most this much each but one: with 8
#: requests in flight, 8 endless bodies hold 7 x 4 + 32 MiB, not 8 x 32.
LARGE_ANSWER_BYTES = 4 * 1024 * 1024


async def read_limited(
    response: httpx.Response, limit: int, large: anyio.Semaphore | None = None
) -> bytearray | None:
    """The whole decoded body, or None as soon as it is longer than ``limit`` bytes (the rest
    is left unread; the caller closes the response). Past ``LARGE_ANSWER_BYTES`` it waits for
    the ``large`` slot (when given) before it reads on."""
    if _declared_length(response) > limit:
        return None
    body = bytearray()
    holding = False
    try:
        async for chunk in response.aiter_bytes():
            body += chunk
            if len(body) > limit:
                return None
            if large is not None and not holding and len(body) > LARGE_ANSWER_BYTES:
                await large.acquire()
                holding = True
        return body
    finally:
        if holding:
            assert large is not None
            large.release()


def _declared_length(response: httpx.Response) -> int:
    """The length the server declares for the decoded body; 0 when it declares none (or only
    that of a compressed body, which says nothing of the decoded size)."""
    encoding = response.headers.get("Content-Encoding", "").strip().lower()
    length = response.headers.get("Content-Length", "").strip()
    if encoding not in _IDENTITY or not length.isdigit():
        return 0
    return int(length)


def describe_size(size: int) -> str:
    """``32 MiB``, ``512 KiB`` or ``1,000 bytes``: a limit as a person reads it."""
    for unit, factor in (("MiB", 1024 * 1024), ("KiB", 1024)):
        if size >= factor and size % factor == 0:
            return f"{size // factor:,} {unit}"
    return f"{size:,} bytes"
