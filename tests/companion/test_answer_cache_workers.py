"""Two worker processes, each keeping its own answers: a write made anywhere (another process,
or an order on the other worker) is read at once on both. On PostgreSQL when the suite runs
there (the workers learn of each other's writes through LISTEN/NOTIFY), else on SQLite."""

from __future__ import annotations

import json
import time
from itertools import count
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import update

from companion.db.engine import make_engine
from companion.db.schema import products, variants
from tests.companion.commerce.conftest import ADDRESS
from tests.companion.conftest import PREFIX
from tests.companion.databases import fresh_database
from tests.companion.test_server import running_api

_ids = count()


def workers_of(log: Path) -> dict[str, int]:
    """request id -> the worker process that answered it (from the request log; a line a
    worker is still writing is left for the next read)."""
    text = log.read_text()
    whole = text[: text.rfind("\n") + 1]
    lines = [json.loads(x) for x in whole.splitlines() if x.startswith("{")]
    return {line["request_id"]: line["worker"] for line in lines}


def on_both(base: str, log: Path, path: str) -> list[Any]:
    """GET ``path`` on new connections, eight at a time, until each worker answered it twice
    (so each had read it before, and may answer from memory); every answer's body. The log's
    lines come out up to a second later, so each batch waits for its own."""
    answers: dict[str, Any] = {}
    for _ in range(25):
        batch = [f"w-{next(_ids)}" for _ in range(8)]
        for request_id in batch:
            response = httpx.get(f"{base}{PREFIX}{path}", headers={"X-Request-Id": request_id})
            assert response.status_code == 200, response.text
            answers[request_id] = response.json()
        deadline = time.monotonic() + 5
        while not set(batch) <= workers_of(log).keys() and time.monotonic() < deadline:
            time.sleep(0.05)
        known = workers_of(log)
        served = [known[r] for r in answers if r in known]
        if len(set(served)) == 2 and all(served.count(w) >= 2 for w in set(served)):
            return list(answers.values())
    raise AssertionError("one worker answered every request")


def place_order(base: str, variant_id: int) -> None:
    with httpx.Client(base_url=f"{base}{PREFIX}") as client:  # one connection, one worker
        cart = client.put(
            "/cart/items", json={"items": [{"variant_id": variant_id, "quantity": 1}]}
        )
        assert cart.status_code == 200, cart.text
        placed = client.post(
            "/checkout/place-order",
            params={"cart_token": cart.json()["token"]},
            json={"address": ADDRESS, "payment": {"payment_method": "cod"}},
        )
        assert placed.status_code == 201, placed.text


def test_writes_are_read_at_once_on_both_workers(tmp_path: Path) -> None:
    with (
        fresh_database(tmp_path) as database,
        running_api(tmp_path, workers=2, database=database) as (base, _),
    ):
        log = tmp_path / "server.log"
        first = httpx.get(f"{base}{PREFIX}/products", params={"limit": 1}).json()["items"][0]
        pid, path = first["id"], f"/products/{first['id']}"
        assert {a["price"] for a in on_both(base, log, path)} == {first["price"]}

        # A price change by another process (an operator's script, say).
        engine = make_engine(database, pooled=False)
        with engine.begin() as conn:
            conn.execute(update(products).where(products.c.id == pid).values(price=123_000))
        assert {a["price"] for a in on_both(base, log, path)} == {123_000}

        # The product's last unit, sold by an order on one worker.
        with engine.begin() as conn:
            ids = conn.execute(variants.select().where(variants.c.product_id == pid)).all()
            conn.execute(update(variants).where(variants.c.product_id == pid).values(stock=0))
            conn.execute(
                update(variants).where(variants.c.id == ids[0].id).values(stock=1, on_sale=True)
            )
        assert {a["in_stock"] for a in on_both(base, log, path)} == {True}
        place_order(base, ids[0].id)
        assert {a["in_stock"] for a in on_both(base, log, path)} == {False}
        engine.dispose()
