"""Counters of one client's traffic, for the build summary and progress display.

``ClientStats`` is plain mutable data filled in by the client layers; it computes nothing on
its own except ``endpoint_group``, which folds ids and slugs out of a path so per-endpoint
counts stay readable (``/products/12/variants`` -> ``/products/{id}/variants``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field


def endpoint_group(path: str) -> str:
    """The endpoint template of a request path: numeric segments and slugs become placeholders."""
    segments = path.strip("/").split("/")
    grouped: list[str] = []
    for index, segment in enumerate(segments):
        if segment.isdigit():
            grouped.append("{id}")
        elif index > 0 and segments[index - 1] == "by-slug":
            grouped.append("{slug}")
        else:
            grouped.append(segment)
    return "/" + "/".join(grouped)


@dataclass(slots=True)
class ClientStats:
    #: HTTP requests actually sent (every attempt counts, including failed ones).
    requests: int = 0
    #: Requests sent per endpoint group (see ``endpoint_group``).
    by_group: Counter[str] = field(default_factory=Counter)
    #: Attempts repeated after a 5xx, a timeout or a connection error.
    retries: int = 0
    #: 429 answers received.
    rate_limited: int = 0
    #: Seconds requests were held back by the client-side rate windows.
    limiter_wait_seconds: float = 0.0
    #: Seconds requests were held back because a 429 asked to retry later.
    retry_after_wait_seconds: float = 0.0
    #: 304 answers to a conditional request (a crawl cache hit).
    not_modified: int = 0

    def count_request(self, path: str) -> None:
        self.requests += 1
        self.by_group[endpoint_group(path)] += 1
