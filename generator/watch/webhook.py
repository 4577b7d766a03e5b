"""The content-change webhook of `storefront watch`: the companion's signed POST starts a rebuild.

Subscribe ``http(s)://<watch host>:<port>/_storefront/webhook`` (``WEBHOOK_PATH``) with
`storefront api webhooks add` and give watch the subscription's secret (``--webhook-secret``).
Each request is checked as docs/webhooks.md specifies: ``Storefront-Signature: t=<unix
seconds>,v1=<hex>``, where ``v1`` is the hex HMAC-SHA256 under the secret of ``<t>.<raw body>``,
compared in constant time, and ``t`` at most ``TOLERANCE_SECONDS`` from this clock. A genuine
event answers 202 and sends one trigger into the rebuild queue (debounced there with the other
triggers); a delivery id already seen (a retry) answers 200 and triggers nothing. Anything else
is refused with a 4xx whose body and log line say why.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from collections import deque
from collections.abc import Callable

from starlette.types import ASGIApp, Receive, Scope, Send

WEBHOOK_PATH = "/_storefront/webhook"
SIGNATURE_HEADER = b"storefront-signature"
DELIVERY_HEADER = b"storefront-delivery"
#: Seconds between the signature's ``t`` and this clock beyond which a delivery is a replay.
TOLERANCE_SECONDS = 300
#: The companion's payload is a few hundred bytes; anything much larger is not one.
MAX_BODY_BYTES = 64 * 1024
#: Delivery ids remembered to recognise retries of an event already acted on.
_REMEMBERED = 256


class Refused(Exception):
    """A request that is not a genuine delivery: its status and the reason, for the sender."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


def check_signature(secret: str, body: bytes, header: str | None, *, now: float) -> None:
    """Raises ``Refused`` unless ``header`` signs ``body`` under ``secret``, recently."""
    if not header:
        raise Refused(400, "missing Storefront-Signature header")
    fields: dict[str, list[str]] = {}
    for part in header.split(","):
        key, sep, value = part.strip().partition("=")
        if sep:
            fields.setdefault(key, []).append(value)
    stamps, macs = fields.get("t", []), fields.get("v1", [])
    if len(stamps) != 1 or not stamps[0].isdigit() or len(stamps[0]) > 12 or not macs:
        raise Refused(400, "malformed Storefront-Signature header (expected t=<unix>,v1=<hex>)")
    timestamp = int(stamps[0])
    if abs(now - timestamp) > TOLERANCE_SECONDS:
        raise Refused(
            401,
            f"signature timestamp is {abs(now - timestamp):.0f} s from this clock "
            f"(at most {TOLERANCE_SECONDS} s)",
        )
    signed = str(timestamp).encode() + b"." + body
    expected = hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()
    if not any(hmac.compare_digest(expected, given) for given in macs):
        raise Refused(401, "signature does not match (is --webhook-secret this subscription's?)")


def event_of(body: bytes) -> str:
    """The event type of a verified body, e.g. ``product.updated``."""
    try:
        data = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise Refused(400, "body is not JSON") from None
    kind = data.get("type") if isinstance(data, dict) else None
    if not isinstance(kind, str) or not kind:
        raise Refused(400, "body has no event type")
    return kind


class WebhookReceiver:
    """ASGI app answering ``POST WEBHOOK_PATH``; ``trigger`` starts a rebuild, ``report``
    prints one line per request, ``clock`` gives unix seconds."""

    def __init__(
        self,
        secret: str,
        trigger: Callable[[str], None],
        report: Callable[[str], None],
        *,
        clock: Callable[[], float] = time.time,
        collect: Callable[[object], None] | None = None,
    ) -> None:
        """``collect`` is handed each accepted event's payload (the rebuild it starts asks only
        what the event can move)."""
        self.secret = secret
        self.collect = collect
        self.trigger = trigger
        self.report = report
        self.clock = clock
        self._seen: deque[str] = deque(maxlen=_REMEMBERED)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        client = (scope.get("client") or ("unknown",))[0]
        try:
            if scope.get("method") != "POST":
                raise Refused(405, f"{scope.get('method')} is not allowed; the webhook is POST")
            body = await _read_body(receive)
            headers = dict(scope.get("headers") or [])
            signature = headers.get(SIGNATURE_HEADER, b"").decode("latin-1") or None
            check_signature(self.secret, body, signature, now=self.clock())
            kind = event_of(body)
        except Refused as refused:
            self.report(f"webhook refused ({refused.status}) from {client}: {refused.reason}")
            await _answer(send, refused.status, {"error": refused.reason})
            return
        delivery = headers.get(DELIVERY_HEADER, b"").decode("latin-1")
        if delivery and delivery in self._seen:
            self.report(f"webhook {kind} {delivery}: already received, no rebuild")
            await _answer(send, 200, {"status": "duplicate"})
            return
        if delivery:
            self._seen.append(delivery)
        self.report(f"webhook {kind} {delivery}".rstrip())
        if self.collect is not None:
            self.collect(json.loads(body))  # before the trigger: the rebuild finds it
        self.trigger(f"webhook {kind}")
        await _answer(send, 202, {"status": "rebuild queued"})


class WithWebhook:
    """Serves ``WEBHOOK_PATH`` from the receiver and everything else from ``app``."""

    def __init__(self, app: ASGIApp, receiver: WebhookReceiver) -> None:
        self.app = app
        self.receiver = receiver

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("path") == WEBHOOK_PATH:
            await self.receiver(scope, receive, send)
        else:
            await self.app(scope, receive, send)


async def _read_body(receive: Receive) -> bytes:
    body = bytearray()
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise Refused(400, "the sender went away before the body ended")
        body += message.get("body", b"")
        if len(body) > MAX_BODY_BYTES:
            raise Refused(413, f"body larger than {MAX_BODY_BYTES} bytes")
        if not message.get("more_body", False):
            return bytes(body)


async def _answer(send: Send, status: int, content: dict[str, str]) -> None:
    body = json.dumps(content).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if status == 405:
        headers.append((b"allow", b"POST"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
