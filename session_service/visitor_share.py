"""A fair share of the key per visitor: so many requests a minute through /session/*.

A visitor is the client address as the trusted-proxy reader resolved it
(``request.client.host``), read as one host is given it (``visitor_of``): an IPv6 address by
its /64 (a host may use any address of its network), an IPv4 address mapped into IPv6 as the
IPv4 address. Each has a bucket of ``per_minute`` requests, refilled evenly over
the minute: a purchase and a browse fit, a client sending hundreds a minute gets 429 with
``Retry-After`` from the session service, spending nothing of the key. At most
``max_visitors`` buckets are kept, the least recently seen dropped first (a dropped visitor
starts again with a full bucket, which is what a quiet visitor would have anyway).
"""

from __future__ import annotations

import ipaddress
import math
import time
from collections import OrderedDict

from session_service.budget import Clock

#: Default requests a visitor may send a minute, and visitors tracked at most.
PER_MINUTE = 60
MAX_VISITORS = 10_000
#: The refusal's code (problem JSON).
SPENT = "visitor_share_spent"
#: An IPv6 host is given a /64 at least: its addresses are one visitor.
IPV6_PREFIX = 64


class VisitorShare:
    def __init__(
        self,
        per_minute: int | None = PER_MINUTE,
        *,
        max_visitors: int = MAX_VISITORS,
        clock: Clock = time.monotonic,
    ) -> None:
        self.per_minute = per_minute  # None: no share per visitor
        self.max_visitors = max_visitors
        self.clock = clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()  # tokens, when

    def take(self, visitor: str | None) -> int | None:
        """Spend one of ``visitor``'s requests: None when it may go on, else the whole seconds
        until it may."""
        if self.per_minute is None or visitor is None:
            return None
        visitor = visitor_of(visitor)
        now, rate = self.clock(), self.per_minute / 60.0
        tokens, then = self._buckets.pop(visitor, (float(self.per_minute), now))
        tokens = min(float(self.per_minute), tokens + (now - then) * rate)
        if tokens >= 1.0:
            tokens -= 1.0
            wait = None
        else:
            wait = max(1, math.ceil((1.0 - tokens) / rate))
        self._buckets[visitor] = (tokens, now)
        while len(self._buckets) > self.max_visitors:
            self._buckets.popitem(last=False)
        return wait

    def tracked(self) -> int:
        return len(self._buckets)


def visitor_of(address: str) -> str:
    """The share ``address`` spends: its IPv6 /64, or its IPv4 address however spelled (one
    that is not an address, from a proxy, stands for itself)."""
    try:
        ip = ipaddress.ip_address(address.strip())
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, IPV6_PREFIX), strict=False))
    return str(ip)
