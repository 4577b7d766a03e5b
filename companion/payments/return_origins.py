"""Where a payment may send the shopper back: the store's own site origins, and a strict reading
of the address a checkout names.

A browser and a lenient parser may read one address two ways (``https://evil.test\\@shop.vn``
is evil.test to a browser and shop.vn to ``urlsplit``), so only a plain spelling that both read
alike is accepted: printable ASCII (a host name in its xn-- form) without a backslash, an http
or https scheme and ``//``, a host of letters, digits, dots and hyphens or a bracketed IPv6
address, no user info, no percent sign before the path, a decimal port without leading zeros,
and no fragment (the gateway adds its result to the query).
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import Connection, select

from companion.db.schema import store_hosts
from companion.settings import CompanionSettings

#: Longest return address accepted.
MAX_URL = 2000
_DEFAULT_PORTS = {"http": 80, "https": 443}
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):")
_AUTHORITY = re.compile(
    r"(?P<host>[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::(?P<port>[1-9][0-9]{0,4}))?"
)
_AUTHORITY_END = re.compile(r"[/?]")


@dataclass(frozen=True, slots=True)
class Origin:
    scheme: str  # http or https
    host: str  # lower case; an IPv6 address in brackets
    port: int


class NotPlain(ValueError):
    """Not a plain absolute http(s) address; the message says why (after the field's name)."""


def read_url(text: str) -> tuple[Origin, str]:
    """The origin of a plain absolute http(s) address, and what follows its authority."""
    if not text:
        raise NotPlain("is empty")
    if len(text) > MAX_URL:
        raise NotPlain(f"is longer than {MAX_URL} characters")
    if any(not "!" <= char <= "~" for char in text):
        raise NotPlain(
            "holds a space, a control character or a character outside ASCII "
            "(a host name is written in its xn-- form)"
        )
    if "\\" in text:
        raise NotPlain("holds a backslash")
    if "#" in text:
        raise NotPlain("holds a fragment (#); the gateway adds its result to the query")
    scheme = _SCHEME.match(text)
    if scheme is None:
        raise NotPlain("is not an absolute address (scheme://host/...)")
    name = scheme.group(1).lower()
    if name not in _DEFAULT_PORTS:
        raise NotPlain("is not an http or https address")
    after = text[scheme.end() :]
    if not after.startswith("//"):
        raise NotPlain("has no // after its scheme")
    after = after[2:]
    end = _AUTHORITY_END.search(after)
    authority, rest = (after[: end.start()], after[end.start() :]) if end else (after, "")
    if "@" in authority:
        raise NotPlain("holds user info (@) before its host")
    if "%" in authority:
        raise NotPlain("holds a percent-encoded host")
    found = _AUTHORITY.fullmatch(authority)
    if found is None:
        raise NotPlain("has a host or port that is not plain")
    host = found.group("host").lower()
    if host.startswith("["):
        try:
            ipaddress.IPv6Address(host[1:-1])
        except ValueError:
            raise NotPlain("has a bracketed host that is not an IPv6 address") from None
    elif "" in host.split("."):
        raise NotPlain("has an empty label in its host (a trailing dot included)")
    port = int(found.group("port") or _DEFAULT_PORTS[name])
    if port > 65535:
        raise NotPlain("has a port past 65535")
    return Origin(name, host, port), rest


def read_origin(text: str) -> Origin:
    """An origin as a setting names it (``https://shop.example.vn``, a final ``/`` allowed)."""
    origin, rest = read_url(text)
    if rest not in ("", "/"):
        raise NotPlain("is not an origin: it has a path or a query")
    return origin


@dataclass(frozen=True, slots=True)
class SiteOrigins:
    """The origins a store's pages are served from."""

    exact: frozenset[Origin]
    #: The store's host names on this machine (the demo's ``localhost``, ``127.0.0.1``): a
    #: browser reaches them only on its own machine, on whatever port a preview listens on.
    loopback: frozenset[str] = frozenset()

    def __contains__(self, origin: Origin) -> bool:
        return origin in self.exact or origin.host in self.loopback


def _is_loopback(host: str) -> bool:
    return host in ("localhost", "127.0.0.1", "[::1]") or host.endswith(".localhost")


def store_origins(conn: Connection, settings: CompanionSettings, *, store_id: int) -> SiteOrigins:
    """The store's own site origins: ``site_origins``, ``session_origins``, ``public_url``'s
    origin, https on the store's host names and any port of its loopback host names (any of
    them not plain is left out)."""
    hosts = conn.execute(select(store_hosts.c.host).where(store_hosts.c.store_id == store_id))
    on_hosts = _plain_origins(f"https://{host}" for host in hosts.scalars())
    named = _plain_origins([*settings.site_origins, *settings.session_origins])
    try:
        named.add(read_url(settings.public_url)[0])
    except NotPlain:
        pass
    loopback = frozenset(o.host for o in on_hosts if _is_loopback(o.host))
    return SiteOrigins(frozenset(named | on_hosts), loopback)


def _plain_origins(texts: Iterable[str]) -> set[Origin]:
    found: set[Origin] = set()
    for text in texts:
        try:
            found.add(read_origin(text))
        except NotPlain:
            continue
    return found


def return_url_refusal(url: str, allowed: SiteOrigins) -> str | None:
    """Why ``url`` is no address to send the shopper back to, or None when it is one."""
    try:
        origin, _ = read_url(url)
    except NotPlain as exc:
        return str(exc)
    if origin not in allowed:
        return "is not on one of the store's own site origins"
    return None
