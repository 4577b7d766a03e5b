"""The webhook relay (deploy/ci/webhook-relay.py): a genuine delivery from the companion starts
one GitHub dispatch, with the token in its Authorization header; anything else relays nothing;
the token never shows in an answer or a log line.

GitHub is an httpx.MockTransport that records what it receives. Deliveries are signed by the
companion's own code; the end-to-end test has the companion's delivery worker POST a real
catalogue change to the relay served over loopback.
"""

from __future__ import annotations

import json
import logging
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from companion.db.commerce_schema import webhook_deliveries
from companion.webhooks.events import Entity
from companion.webhooks.signing import sign, verify
from companion.webhooks.subscriptions import add_subscription
from companion.webhooks.worker import deliver_due
from tests.deploy.recipes import load_relay
from tests.support.incremental_store import DemoStore

relay_module = load_relay()

SECRET = "whsec_relay-test-secret"
TOKEN = "github_pat_11TESTTOKEN0000_do-not-leak-this-value"
REPOSITORY = "shop-owner/shop-site"
DISPATCH_URL = f"https://api.github.com/repos/{REPOSITORY}/dispatches"
BODY = json.dumps(
    {
        "id": "evt_0123456789abcdef01234567",
        "type": "product.updated",
        "created_at": "2026-11-20T03:04:05",
        "store_id": 1,
        "data": {"entity": "product", "id": 12, "action": "updated", "changed": ["price"]},
    },
    separators=(",", ":"),
).encode()
DELIVERY = "evt_0123456789abcdef01234567"


class FakeGitHub:
    """Records each request; answers with the next of ``answers`` (default 204, as GitHub does).
    An answer may be an exception to raise, as a network failure would."""

    def __init__(self, *answers: int | Exception, echo_token: bool = False) -> None:
        self.answers = list(answers)
        self.echo_token = echo_token
        self.received: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.received.append(request)
        answer = self.answers.pop(0) if self.answers else 204
        if isinstance(answer, Exception):
            raise answer
        if answer == 204:
            return httpx.Response(204)
        # A careless upstream error that repeats the credentials it was sent.
        text = request.headers.get("Authorization", "") if self.echo_token else ""
        return httpx.Response(answer, json={"message": f"Bad credentials {text}"})

    def client(self) -> httpx.Client:
        return httpx.Client(transport=httpx.MockTransport(self))


def _settings() -> Any:
    return relay_module.Settings(secret=SECRET, repository=REPOSITORY, token=TOKEN)


@contextmanager
def _relay(github: FakeGitHub, clock: Callable[[], float] = time.time) -> Iterator[Any]:
    with github.client() as client:
        yield relay_module.Relay(_settings(), client, clock=clock)


@pytest.fixture
def logs(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.DEBUG)  # every logger, httpx's included
    return caplog


def _no_token_anywhere(logs: pytest.LogCaptureFixture, *answers: object) -> None:
    assert logs.records, "nothing was logged"
    for record in logs.records:
        assert TOKEN not in record.getMessage()
    assert TOKEN not in logs.text
    for answer in answers:
        assert TOKEN not in json.dumps(answer)


def test_a_genuine_delivery_is_dispatched_once_with_the_token(
    logs: pytest.LogCaptureFixture,
) -> None:
    github = FakeGitHub()
    now = int(time.time())
    with _relay(github) as relay:
        status, answer = relay.handle(BODY, sign(SECRET, BODY, timestamp=now), DELIVERY)
        assert (status, answer) == (202, {"status": "dispatched"})
        # The companion retries with the same delivery id (say its answer was lost): no resend.
        retried = relay.handle(BODY, sign(SECRET, BODY, timestamp=now + 30), DELIVERY)
        assert retried == (200, {"status": "duplicate"})
    [request] = github.received
    assert request.method == "POST"
    assert str(request.url) == DISPATCH_URL
    assert request.headers["Authorization"] == f"Bearer {TOKEN}"
    assert request.headers["Accept"] == "application/vnd.github+json"
    assert json.loads(request.content) == {
        "event_type": "storefront-content-changed",
        "client_payload": {"events": ["product.updated"], "delivery": DELIVERY},
    }
    _no_token_anywhere(logs, answer, retried)


@pytest.mark.parametrize(
    ("signature", "body", "status"),
    [
        pytest.param(lambda now: sign("whsec_another", BODY, timestamp=now), BODY, 401, id="key"),
        pytest.param(lambda now: sign(SECRET, BODY, timestamp=now - 301), BODY, 401, id="stale"),
        pytest.param(lambda now: sign(SECRET, BODY, timestamp=now + 301), BODY, 401, id="future"),
        pytest.param(
            lambda now: sign(SECRET, BODY, timestamp=now),
            BODY.replace(b'"id":12', b'"id":13'),
            401,
            id="changed-body",
        ),
        pytest.param(lambda now: "t=abc,v1=00", BODY, 401, id="malformed"),
        pytest.param(lambda now: None, BODY, 400, id="missing"),
        pytest.param(lambda now: sign(SECRET, b"[]", timestamp=now), b"[]", 400, id="no-event"),
    ],
)
def test_anything_but_a_genuine_recent_event_is_refused_and_relays_nothing(
    logs: pytest.LogCaptureFixture,
    signature: Callable[[int], str | None],
    body: bytes,
    status: int,
) -> None:
    github = FakeGitHub()
    now = int(time.time())
    with _relay(github, clock=lambda: now) as relay:
        got, answer = relay.handle(body, signature(now), DELIVERY)
    assert got == status
    assert "error" in answer
    assert github.received == []
    _no_token_anywhere(logs, answer)


def test_a_signature_at_the_edge_of_the_window_is_accepted() -> None:
    github = FakeGitHub()
    now = int(time.time())
    with _relay(github, clock=lambda: now) as relay:
        status, _ = relay.handle(BODY, sign(SECRET, BODY, timestamp=now - 300), DELIVERY)
    assert status == 202 and len(github.received) == 1


@pytest.mark.parametrize(
    "failure",
    [401, 404, httpx.ConnectError("connection refused")],
    ids=["401", "404", "unreachable"],
)
def test_a_failed_dispatch_answers_502_so_the_companion_retries(
    logs: pytest.LogCaptureFixture, failure: int | Exception
) -> None:
    github = FakeGitHub(failure, echo_token=True)
    now = int(time.time())
    with _relay(github) as relay:
        status, answer = relay.handle(BODY, sign(SECRET, BODY, timestamp=now), DELIVERY)
        assert status == 502
        # GitHub is back: the companion's retry of the same delivery goes through.
        retried = relay.handle(BODY, sign(SECRET, BODY, timestamp=now + 30), DELIVERY)
        assert retried == (202, {"status": "dispatched"})
    assert len(github.received) == 2
    _no_token_anywhere(logs, answer, retried)


def test_settings_name_what_is_missing_but_never_a_value() -> None:
    with pytest.raises(relay_module.SettingsError) as missing:
        relay_module.settings_from({"GITHUB_DISPATCH_TOKEN": TOKEN})
    assert str(missing.value) == "not set: STOREFRONT_WEBHOOK_SECRET, GITHUB_REPOSITORY"
    settings = relay_module.settings_from(
        {
            "STOREFRONT_WEBHOOK_SECRET": SECRET,
            "GITHUB_REPOSITORY": REPOSITORY,
            "GITHUB_DISPATCH_TOKEN": TOKEN,
        }
    )
    assert settings.dispatch_url == DISPATCH_URL
    assert TOKEN not in repr(settings) and SECRET not in repr(settings)
    with pytest.raises(relay_module.SettingsError, match="owner/name"):
        relay_module.settings_from(
            {
                "STOREFRONT_WEBHOOK_SECRET": SECRET,
                "GITHUB_REPOSITORY": "just-a-name",
                "GITHUB_DISPATCH_TOKEN": TOKEN,
            }
        )


def _signature_cases(now: int) -> list[tuple[bytes, str]]:
    good = sign(SECRET, BODY, timestamp=now)
    return [
        (BODY, good),
        (BODY, sign("whsec_another", BODY, timestamp=now)),
        (BODY, sign(SECRET, BODY, timestamp=now - 300)),
        (BODY, sign(SECRET, BODY, timestamp=now - 301)),
        (BODY, sign(SECRET, BODY, timestamp=now + 301)),
        (BODY + b" ", good),
        (BODY, good.replace("t=", "t=0")),
        (BODY, f"{good},t={now}"),
        (BODY, f"{good},v1=00"),
        (BODY, f"v1=00,{good}"),
        (BODY, " " + good.replace(",", " , ")),
        (BODY, good.split(",")[1]),
        (BODY, good.split(",")[0]),
        (BODY, "t=-5,v1=00"),
        (BODY, f"t={now}0000000000,v1=00"),
        (BODY, ""),
    ]


def test_the_relays_own_check_agrees_with_the_companions() -> None:
    """Where storefront is not installed the relay checks signatures itself: same answers."""
    now = int(time.time())
    answers = [
        (
            relay_module.check_signature(SECRET, body, header, now=now),
            verify(SECRET, body, header, now=now),
        )
        for body, header in _signature_cases(now)
    ]
    assert [own for own, _ in answers] == [theirs for _, theirs in answers]
    assert [own for own, _ in answers].count(True) >= 3  # the cases are not all refusals
    assert relay_module.verify is verify  # here storefront is installed: the companion's check


def test_without_storefront_installed_the_relay_checks_signatures_itself(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "companion.webhooks.signing", None)  # import fails
    monkeypatch.delitem(sys.modules, "standalone_relay", raising=False)
    standalone = load_relay("standalone_relay")
    monkeypatch.delitem(sys.modules, "standalone_relay")
    assert standalone.verify is standalone.check_signature
    github = FakeGitHub()
    now = int(time.time())
    with github.client() as client:
        relay = standalone.Relay(_settings(), client, clock=lambda: now)
        forged = relay.handle(BODY, sign("whsec_another", BODY, timestamp=now), DELIVERY)
        stale = relay.handle(BODY, sign(SECRET, BODY, timestamp=now - 301), DELIVERY)
        genuine = relay.handle(BODY, sign(SECRET, BODY, timestamp=now), DELIVERY)
    assert [forged[0], stale[0], genuine[0]] == [401, 401, 202]
    assert len(github.received) == 1


def test_the_command_stops_on_missing_settings_naming_them_only(
    capsys: pytest.CaptureFixture[str],
) -> None:
    environ = {"GITHUB_DISPATCH_TOKEN": TOKEN, "GITHUB_REPOSITORY": REPOSITORY}
    assert relay_module.main(["--port", "0"], environ=environ) == 2
    printed = capsys.readouterr()
    assert printed.err == "webhook-relay: not set: STOREFRONT_WEBHOOK_SECRET\n"
    assert TOKEN not in printed.out + printed.err


@contextmanager
def _served(relay: Any) -> Iterator[str]:
    server = relay_module.RelayServer(("127.0.0.1", 0), relay)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        host, port = server.server_address[:2]
        yield f"http://{host}:{port}/storefront"
    finally:
        server.shutdown()
        thread.join(timeout=10)
        server.server_close()


def test_a_catalogue_change_delivered_by_the_companion_is_relayed_once(
    tmp_path: Path, logs: pytest.LogCaptureFixture
) -> None:
    store = DemoStore(tmp_path, products=2)
    github = FakeGitHub()
    try:
        with _relay(github) as relay, _served(relay) as url:
            with store.engine.begin() as conn:
                add_subscription(
                    conn,
                    store_id=store.store_id,
                    url=url,
                    events=[],
                    now=store.now,
                    secret=SECRET,
                )
            product = store.ids(Entity.PRODUCT)[0]
            store.update(Entity.PRODUCT, product, {"name": "Áo đổi tên"})
            with httpx.Client() as client:
                report = deliver_due(store.engine, client, store.clock)
                assert report.delivered == 1
                assert deliver_due(store.engine, client, store.clock).delivered == 0
        with store.engine.connect() as conn:
            rows = conn.execute(
                select(
                    webhook_deliveries.c.event_id,
                    webhook_deliveries.c.status,
                    webhook_deliveries.c.last_status,
                )
            ).all()
    finally:
        store.close()
    [(event_id, status, last_status)] = rows
    assert (status, last_status) == ("delivered", 202)
    [request] = github.received
    assert request.headers["Authorization"] == f"Bearer {TOKEN}"
    assert json.loads(request.content)["client_payload"] == {
        "events": ["product.updated"],
        "delivery": event_id,
    }
    _no_token_anywhere(logs)


def test_the_server_refuses_other_methods_oversized_and_unsigned_bodies(
    logs: pytest.LogCaptureFixture,
) -> None:
    github = FakeGitHub()
    with _relay(github) as relay, _served(relay) as url, httpx.Client() as client:
        got = client.get(url)
        assert (got.status_code, got.headers["Allow"]) == (405, "POST")
        big = client.post(url, content=b"x" * (64 * 1024 + 1))
        assert big.status_code == 413
        unsigned = client.post(url, content=BODY)
        assert unsigned.status_code == 400
        forged_signature = sign("whsec_another", BODY, timestamp=int(time.time()))
        forged = client.post(url, content=BODY, headers={"Storefront-Signature": forged_signature})
        assert forged.status_code == 401
        assert forged.json()["error"].startswith("signature does not match")
        answers = [r.text for r in (got, big, unsigned, forged)]
    assert github.received == []
    _no_token_anywhere(logs, *answers)
