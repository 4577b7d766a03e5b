"""How the sandbox gateway delivers its server-to-server notification (IPN).

Injectable: ``create_app`` (or a test) may put an ``IpnSender`` on ``app.state.ipn_sender``;
otherwise the notification is an HTTP GET to the companion's public URL, as a real gateway
would make it. Tests pass ``HttpIpnSender(httpx.ASGITransport(app=app))``.
"""

from __future__ import annotations

import ssl
from functools import cache
from typing import Protocol

import httpx


class IpnSender(Protocol):
    async def __call__(self, url: str) -> str:
        """Send the notification to ``url``; the merchant's RspCode, or "" if none came."""
        ...


@cache
def _tls() -> ssl.SSLContext:
    """Built once per process: loading the CA bundle is too dear to do for every IPN."""
    return httpx.create_ssl_context()


class HttpIpnSender:
    def __init__(
        self, transport: httpx.AsyncBaseTransport | None = None, *, timeout: float = 10.0
    ) -> None:
        self._transport = transport
        self._timeout = timeout

    async def __call__(self, url: str) -> str:
        try:
            async with httpx.AsyncClient(
                transport=self._transport, timeout=self._timeout, verify=_tls()
            ) as client:
                response = await client.get(url)
            answer = response.json()
        except (httpx.HTTPError, ValueError):
            return ""
        code = answer.get("RspCode") if isinstance(answer, dict) else None
        return code if isinstance(code, str) else ""
