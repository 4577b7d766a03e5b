#!/usr/bin/env python3
"""Webhook relay: the companion's content-change webhook starts a GitHub Actions rebuild.

The companion POSTs a signed event when a product, category, collection, article, page or menu
changes (docs/webhooks.md). This small HTTP server checks the signature and its timestamp, then
asks GitHub to start the rebuild workflow (deploy/ci/github-actions.yml) with
``POST /repos/{owner}/{repo}/dispatches``, event type ``storefront-content-changed``, and the
event's type and id in ``client_payload``.

Run it where the companion can reach it (behind HTTPS in production)::

    export STOREFRONT_WEBHOOK_SECRET=whsec_...       # printed by `storefront api webhooks add`
    export GITHUB_REPOSITORY=owner/site              # the repository holding the workflow
    export GITHUB_DISPATCH_TOKEN=github_pat_...      # may create dispatch events there
    python webhook-relay.py --host 0.0.0.0 --port 8080

Optional: ``GITHUB_API_URL`` (default ``https://api.github.com``; GitHub Enterprise Server has
its own). It needs Python 3.11 and httpx, and nothing else: when storefront is installed beside
it, the signature is checked by the companion's own code, otherwise by the same check below.

Answers (the companion retries anything but a 2xx, with the same delivery id):

- 202: genuine and recent; GitHub accepted the dispatch.
- 200: a delivery id already relayed (a retry); nothing is sent again.
- 400: no ``Storefront-Signature`` header, or a body that is not an event.
- 401: a signature that does not match, or a timestamp more than 5 minutes from this clock.
- 405, 411, 413: not a POST; no ``Content-Length``; a body over 64 KB.
- 502: GitHub refused the dispatch or could not be reached; the companion will retry.

The token is sent only in the ``Authorization`` header to GitHub: it is never logged and never
part of an answer. To run this as a serverless function instead, build a ``Relay`` once and call
``relay.handle(body, signature_header, delivery_header)`` from the function's handler; it
returns the status and the JSON answer.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import logging
import os
import re
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx

EVENT_TYPE = "storefront-content-changed"
SIGNATURE_HEADER = "Storefront-Signature"
DELIVERY_HEADER = "Storefront-Delivery"
TOLERANCE_SECONDS = 300
MAX_BODY_BYTES = 64 * 1024
#: A larger body is still read (and dropped) up to this size, past which the connection closes.
DRAIN_BYTES = 1024 * 1024
#: The companion waits 10 seconds for an answer; GitHub must answer within this.
GITHUB_TIMEOUT_SECONDS = 8.0
#: Delivery ids remembered to recognise the companion's retries of an event already relayed.
REMEMBERED = 1024

log = logging.getLogger("storefront.relay")


def check_signature(
    secret: str, body: bytes, header: str, *, now: int, tolerance: int = TOLERANCE_SECONDS
) -> bool:
    """docs/webhooks.md's check: ``header`` is ``t=<unix seconds>,v1=<hex>``, where ``v1`` is
    the hex HMAC-SHA256 under ``secret`` of ``<t>.<raw body>``, and ``t`` is recent."""
    fields: dict[str, list[str]] = {}
    for part in header.split(","):
        key, sep, value = part.strip().partition("=")
        if sep:
            fields.setdefault(key, []).append(value)
    stamps = fields.get("t", [])
    if len(stamps) != 1 or not stamps[0].isdigit() or len(stamps[0]) > 12:
        return False
    timestamp = int(stamps[0])
    if abs(now - timestamp) > tolerance:
        return False
    signed = str(timestamp).encode() + b"." + body
    expected = hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()
    return any(hmac.compare_digest(expected, given) for given in fields.get("v1", []))


try:  # the companion's own check, when storefront is installed beside the relay
    from companion.webhooks.signing import verify
except ImportError:
    verify = check_signature


@dataclass(frozen=True)
class Settings:
    secret: str
    repository: str  # owner/name
    token: str
    api_url: str = "https://api.github.com"

    def __repr__(self) -> str:  # never show the secret or the token
        return f"Settings(repository={self.repository!r}, api_url={self.api_url!r})"

    @property
    def dispatch_url(self) -> str:
        return f"{self.api_url.rstrip('/')}/repos/{self.repository}/dispatches"


class SettingsError(ValueError):
    """A missing or malformed setting; the message names variables, never their values."""


def settings_from(environ: Mapping[str, str]) -> Settings:
    names = ("STOREFRONT_WEBHOOK_SECRET", "GITHUB_REPOSITORY", "GITHUB_DISPATCH_TOKEN")
    missing = [name for name in names if not environ.get(name, "").strip()]
    if missing:
        raise SettingsError("not set: " + ", ".join(missing))
    repository = environ["GITHUB_REPOSITORY"].strip()
    if not re.fullmatch(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+", repository):
        raise SettingsError(f"GITHUB_REPOSITORY must be owner/name, got {repository!r}")
    api_url = environ.get("GITHUB_API_URL", "").strip() or "https://api.github.com"
    if not api_url.startswith(("https://", "http://")):
        raise SettingsError(f"GITHUB_API_URL must be an http(s) address, got {api_url!r}")
    return Settings(
        secret=environ["STOREFRONT_WEBHOOK_SECRET"].strip(),
        repository=repository,
        token=environ["GITHUB_DISPATCH_TOKEN"].strip(),
        api_url=api_url,
    )


class Relay:
    """Checks a delivery and relays it to GitHub; ``client`` sends, ``clock`` gives unix time."""

    def __init__(
        self,
        settings: Settings,
        client: httpx.Client,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.settings = settings
        self.client = client
        self.clock = clock
        self._relayed: deque[str] = deque(maxlen=REMEMBERED)
        self._lock = threading.Lock()

    def handle(
        self, body: bytes, signature: str | None, delivery: str | None
    ) -> tuple[int, dict[str, Any]]:
        """One delivery: the HTTP status and the JSON answer for the companion."""
        if not signature:
            return self._refuse(400, f"missing {SIGNATURE_HEADER} header")
        if not verify(self.settings.secret, body, signature, now=int(self.clock())):
            return self._refuse(
                401,
                "signature does not match, or its timestamp is more than "
                f"{TOLERANCE_SECONDS} s from this clock",
            )
        try:
            event = json.loads(body)
        except (UnicodeDecodeError, json.JSONDecodeError):
            return self._refuse(400, "body is not JSON")
        kind = event.get("type") if isinstance(event, dict) else None
        if not isinstance(kind, str) or not kind:
            return self._refuse(400, "body has no event type")
        event_id = delivery or event.get("id")
        event_id = event_id if isinstance(event_id, str) else ""
        with self._lock:
            if event_id and event_id in self._relayed:
                log.info("%s %s: already relayed, not sent again", kind, event_id)
                return 200, {"status": "duplicate"}
        failure = self._dispatch(kind, event_id)
        if failure:
            log.warning("%s %s not relayed: %s", kind, event_id, failure)
            return 502, {"error": failure}
        with self._lock:
            if event_id:
                self._relayed.append(event_id)
        log.info("%s %s relayed to %s", kind, event_id, self.settings.repository)
        return 202, {"status": "dispatched"}

    def _dispatch(self, kind: str, event_id: str) -> str | None:
        """Asks GitHub to start the workflow; None, or why it did not happen (no token in it)."""
        client_payload: dict[str, Any] = {"events": [kind]}
        if event_id:
            client_payload["delivery"] = event_id
        payload = {"event_type": EVENT_TYPE, "client_payload": client_payload}
        headers = {
            "Accept": "application/vnd.github+json",
            "Authorization": f"Bearer {self.settings.token}",
            "X-GitHub-Api-Version": "2022-11-28",
            "User-Agent": "storefront-webhook-relay",
        }
        try:
            response = self.client.post(
                self.settings.dispatch_url,
                json=payload,
                headers=headers,
                timeout=GITHUB_TIMEOUT_SECONDS,
            )
        except httpx.HTTPError as exc:
            # The exception's text is not passed on: only its kind.
            return f"GitHub could not be reached ({type(exc).__name__})"
        if 200 <= response.status_code < 300:
            return None
        hint = {
            401: "the token is invalid or expired",
            403: "the token may not create dispatch events in this repository",
            404: "no such repository, or the token cannot see it",
            422: "GitHub refused the request",
        }.get(response.status_code, "")
        return f"GitHub answered {response.status_code}" + (f": {hint}" if hint else "")

    @staticmethod
    def _refuse(status: int, reason: str) -> tuple[int, dict[str, Any]]:
        log.warning("refused (%d): %s", status, reason)
        return status, {"error": reason}


class RelayServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], relay: Relay) -> None:
        super().__init__(address, RelayHandler)
        self.relay = relay


class RelayHandler(BaseHTTPRequestHandler):
    server: RelayServer
    server_version = "storefront-webhook-relay"
    sys_version = ""

    def do_POST(self) -> None:
        length = self.headers.get("Content-Length", "")
        if not length.strip().isdigit():
            self._refuse(411, "Content-Length is required")
            return
        if int(length) > MAX_BODY_BYTES:
            if int(length) <= DRAIN_BYTES:  # read it, so the sender sees the answer
                self.rfile.read(int(length))
            self.close_connection = True
            self._refuse(413, f"body larger than {MAX_BODY_BYTES} bytes")
            return
        body = self.rfile.read(int(length))
        status, answer = self.server.relay.handle(
            body, self.headers.get(SIGNATURE_HEADER), self.headers.get(DELIVERY_HEADER)
        )
        self._answer(status, answer)

    def _not_allowed(self) -> None:
        self._refuse(405, f"{self.command} is not allowed; the webhook is POST")

    do_GET = do_HEAD = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = _not_allowed

    def _refuse(self, status: int, reason: str) -> None:
        self._answer(*Relay._refuse(status, reason))

    def _answer(self, status: int, content: dict[str, Any]) -> None:
        body = json.dumps(content).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        if status == 405:
            self.send_header("Allow", "POST")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s %s", self.address_string(), format % args)


def main(argv: list[str] | None = None, environ: Mapping[str, str] = os.environ) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=8080, help="port to listen on")
    args = parser.parse_args(argv)
    try:
        settings = settings_from(environ)
    except SettingsError as exc:
        print(f"webhook-relay: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    with httpx.Client() as client:
        server = RelayServer((args.host, args.port), Relay(settings, client))
        host, port = server.server_address[:2]
        log.info("listening on http://%s:%s, relaying to %s", host, port, settings.repository)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
