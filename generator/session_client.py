"""One visitor's API client, built anew for every request from its two cookies.

The platform's rule: a server holding a customer JWT, cart token or coupon code beyond one
request leaks sessions between visitors. So the only shared piece is the connection pool
(``SessionUpstream.http``, with the API base as its ``base_url``); the credentials live in a
``VisitorClient`` that exists for one request and is dropped with it.
"""

from __future__ import annotations

from dataclasses import dataclass

import httpx

from generator.session_cookies import VisitorCookies

SERVICE_KEY_HEADER = "X-Service-Key"


@dataclass(frozen=True, slots=True)
class SessionUpstream:
    """Where the session endpoints send API calls: a pooled client and the publishable key."""

    http: httpx.AsyncClient  # base_url: the API base, ending in /public/v1
    key: str | None  # None: unkeyed calls (the API finds the store by its host)


@dataclass(frozen=True, slots=True)
class VisitorClient:
    upstream: SessionUpstream
    cookies: VisitorCookies

    def headers(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        headers = {"Accept": "application/json", **(extra or {})}
        if self.upstream.key:
            headers[SERVICE_KEY_HEADER] = self.upstream.key
        if self.cookies.customer_jwt:
            headers["Authorization"] = f"Bearer {self.cookies.customer_jwt}"
        return headers

    async def send(
        self,
        method: str,
        path: str,
        *,
        query: str = "",
        content: bytes | None = None,
        json: object = None,
        headers: dict[str, str] | None = None,
    ) -> httpx.Response:
        """``path`` is relative to the API base (``/cart/items``); ``query`` is sent as is."""
        url = path + (f"?{query}" if query else "")
        return await self.upstream.http.request(
            method, url, content=content, json=json, headers=self.headers(headers)
        )
