"""X-Forwarded-* read from configured proxies only.

Behind nginx or a load balancer, the session service sees the proxy's address, plain http and
its own host name; the shopper's scheme and host arrive in ``X-Forwarded-Proto`` and
``X-Forwarded-Host``. Those headers are believed only when the connection comes from a
configured proxy (``--trusted-proxy``, an address or a network): from anyone else they are
exactly what a forger would send. A trusted request gets the shopper's scheme, host and address
in its scope, so the Origin check and ``Secure`` cookies see the site the shopper sees.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Iterable

from starlette.types import ASGIApp, Receive, Scope, Send

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


class ProxyConfigError(ValueError):
    """A --trusted-proxy value that is not an address or a network."""


def parse_networks(values: Iterable[str]) -> tuple[Network, ...]:
    networks = []
    for value in values:
        try:
            networks.append(ipaddress.ip_network(value.strip(), strict=False))
        except ValueError:
            raise ProxyConfigError(
                f"--trusted-proxy {value!r} is not an IP address or network (10.0.0.0/8)"
            ) from None
    return tuple(networks)


class TrustedProxies:
    def __init__(self, app: ASGIApp, networks: tuple[Network, ...]) -> None:
        self.app = app
        self.networks = networks

    def trusts(self, address: str) -> bool:
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in network for network in self.networks)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        client = scope.get("client")
        if scope["type"] == "http" and self.networks and client and self.trusts(client[0]):
            scope = _forwarded_scope(scope, self.trusts)
        await self.app(scope, receive, send)


def _forwarded_scope(scope: Scope, trusts: Callable[[str], bool]) -> Scope:
    headers = {k.lower(): v for k, v in scope.get("headers", [])}
    scope = dict(scope)
    proto = _first(headers.get(b"x-forwarded-proto"))
    if proto in ("http", "https"):
        scope["scheme"] = proto
    host = _first(headers.get(b"x-forwarded-host"))
    if host and host.isascii() and host.isprintable() and " " not in host:
        kept = [(k, v) for k, v in scope["headers"] if k.lower() != b"host"]
        scope["headers"] = [*kept, (b"host", host.encode("ascii"))]
    # Each proxy appends the address it saw: the shopper is the right-most one not a proxy of
    # ours (anything left of it was written by the shopper's own client).
    chain = (headers.get(b"x-forwarded-for") or b"").decode("latin-1").split(",")
    for address in reversed([a.strip() for a in chain if a.strip()]):
        if not trusts(address):
            scope["client"] = (address, 0)
            break
    return scope


def _first(value: bytes | None) -> str:
    if not value:
        return ""
    return value.decode("latin-1").split(",", 1)[0].strip().lower()
