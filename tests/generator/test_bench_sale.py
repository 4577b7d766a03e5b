"""The sale benchmark of `make bench BENCH_ARGS=--sale` (benchmarks/sale*.py): its schedule,
the replay's substitutions, what it counts at the API, and its report; and a short replay of a
small recording against the real companion and session service (slow)."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from benchmarks import sale, sale_record, sale_replay


def test_views_leave_at_the_rate_and_the_other_pages_at_their_share() -> None:
    views = sale_replay.schedule(600, 60.0, {"home": 0.3, "article": 0.05})
    kinds = Counter(kind for _, kind in views)
    assert kinds == {"product": 600, "home": 180, "article": 30}
    times = [at for at, _ in views]
    assert times == sorted(times) and 0 < times[0] and times[-1] < 60
    products = [at for at, kind in views if kind == "product"]
    gaps = {round(b - a, 6) for a, b in zip(products, products[1:], strict=False)}
    assert gaps == {0.1}  # evenly spaced: 600 a minute
    # Two types never leave at the same instant.
    assert len(set(times)) == len(times)


def test_activity_calls_are_told_from_showing_ones() -> None:
    activity = sale_record.is_activity
    assert activity("/session/api/analytics/entity-view")
    assert activity("/session/api/banners/7/click")
    assert activity("/public/v1/recommendations/view?x=1")
    assert activity("/session/api/customer/product-views")
    assert not activity("/session/api/recommendations/product/3?limit=5")
    assert not activity("/session/api/products/3/variants")
    assert not activity("/public/v1/cart/items")


def test_a_replayed_call_takes_its_own_tokens_and_ids() -> None:
    call = {
        "path": "/session/api/checkout/chk_OLD12345/shipping?cart_token=TOKENOLD1&limit=1",
        "body": json.dumps({"items": [{"variant_id": 1, "quantity": 1}], "note": "TOKENOLD1"}),
    }
    tokens = {"chk_OLD12345": "chk_NEW", "TOKENOLD1": "TOKENNEW"}
    path, body = sale_replay.substitute(call, tokens, {"1": "57"})
    assert path == "/session/api/checkout/chk_NEW/shipping?cart_token=TOKENNEW&limit=1"
    # The variant id is replaced, the quantity of the same value is not.
    assert body == {"items": [{"variant_id": 57, "quantity": 1}], "note": "TOKENNEW"}
    # A product id in a path after products/ or product/, not anywhere else.
    view = {"path": "/session/api/products/1/variants", "body": None}
    assert sale_replay.substitute(view, {}, {"1": "9"}) == (
        "/session/api/products/9/variants",
        None,
    )
    recs = {"path": "/session/api/recommendations/product/1?limit=1", "body": None}
    assert sale_replay.substitute(recs, {}, {"1": "9"})[0] == (
        "/session/api/recommendations/product/9?limit=1"
    )


def test_the_answers_teach_the_tokens_later_calls_send() -> None:
    tokens: dict[str, str] = {}
    recorded = {"checkout_id": "chk_OLD12345", "total": "100", "lines": [{"token": "abcdefgh1"}]}
    answered = {"checkout_id": "chk_NEW67890", "total": "200", "lines": [{"token": "zyxwvuts1"}]}
    sale_replay.learn(recorded, answered, tokens)
    # Short values (an amount) are not tokens; the first value learnt stays.
    assert tokens == {"chk_OLD12345": "chk_NEW67890", "abcdefgh1": "zyxwvuts1"}
    sale_replay.learn(recorded, {"checkout_id": "chk_OTHER"}, tokens)
    assert tokens["chk_OLD12345"] == "chk_NEW67890"


def test_each_view_sends_a_visitor_token_of_its_own() -> None:
    old = "3dea9aed-f9f4-4774-9fcd-05fd3bccf448"
    calls = [
        {"path": f"/x?session_token={old}&limit=5", "body": None},
        {"path": "/y", "body": json.dumps({"product_id": 1, "session_token": old})},
    ]
    first = sale_replay.fresh_visitor_tokens(calls)
    second = sale_replay.fresh_visitor_tokens(calls)
    assert set(first) == {old} and first[old] != old and first[old] != second[old]


def test_the_api_log_is_counted_by_what_sent_each_request() -> None:
    lines: list[dict[str, Any]] = [
        {"request_id": "v.product.4.0", "path": "/public/v1/products/3/variants", "status": 200},
        {"request_id": "v.product.4.1", "path": "/public/v1/analytics/entity-view", "status": 429},
        {"request_id": "p.2.0.0", "path": "/public/v1/cart/items", "status": 200},
        {"request_id": "p.2.5", "path": "/public/v1/analytics/entity-view", "status": 204},
        {"request_id": "g.17", "path": "/public/v1/products/3/variants", "status": 429},
        {"request_id": "0beae491e8354f9b", "path": "/public/v1/recommendations/view"},
    ]
    counts = sale_replay.attribute(lines)
    assert counts == {
        "product": Counter({"showing": 1, "activity": 1, "429": 1}),
        "purchase": Counter({"showing": 1, "activity": 1}),
        "greedy": Counter({"showing": 1, "429": 1}),
        "unnamed": Counter({"activity": 1}),
    }


def _replay() -> Any:
    replay_module = sale_replay
    replay = replay_module.Replay(seconds=95.0, rate_limit="600")
    product = replay_module.Tally(Counter({200: 280, 429: 20}), activity_calls=200, units=100)
    home = replay_module.Tally(Counter(), activity_calls=0, units=30)
    product.unanswered = 7
    product.activity_answered = 180  # the other 20 left unanswered
    replay.views = {"product": product, "home": home}
    replay.buying = replay_module.Tally(Counter({200: 36, 429: 4}), activity_calls=0, units=4)
    replay.greedy = replay_module.Tally(Counter({200: 10, 429: 90}), units=100)
    done = replay_module.PurchaseResult
    replay.purchases = [
        done(True, 2.0, 0),
        done(True, 4.0, 1),
        done(True, 3.0, 3),
        done(False, 9.0, 0, "PUT /session/api/cart/items 429"),
    ]
    return replay


def test_a_rows_figures_per_view_per_purchase_and_per_sender() -> None:
    api = {
        "product": Counter({"showing": 300, "activity": 50, "429": 20}),
        "purchase": Counter({"showing": 36, "429": 4}),
        "greedy": Counter({"showing": 100, "429": 90}),
        "unnamed": Counter({"activity": 100}),  # forwarded later under the service's own ids
    }
    row = sale.figures(_replay(), api, {"status": "ok"}, rate=600, seconds=90.0)
    assert row["per_view"]["product"] == {
        "units": 100,
        "api_showing": 3.0,
        "api_activity": 1.5,  # its 50, and the unnamed 100: it sent every activity call
        "session_calls": 300,
        "refused": 20,
    }
    assert row["per_view"]["home"]["api_showing"] == 0.0
    assert row["per_view"]["purchase"]["api_showing"] == 9.0
    assert row["product_views_per_minute"] == 67  # 100 views in the run's 90 s
    # Without counts in /session/health: what reached the API, and the rest of those the
    # service answered dropped (not those it never answered).
    assert (row["activity_sent"], row["activity_answered"]) == (200, 180)
    assert (row["activity_forwarded"], row["activity_dropped"]) == (150, 30)
    assert row["activity_source"] == "the API's count"
    assert (row["purchases"], row["purchases_complete"], row["purchase_429"]) == (4, 3, 4)
    assert row["purchase_p95_seconds"] == 4.0
    assert row["purchase_failures"] == [("PUT /session/api/cart/items 429", 1)]
    assert (row["greedy_requests"], row["greedy_429"], row["greedy_api"]) == (100, 90, 100)
    assert row["greedy_statuses"] == {200: 10, 429: 90}
    assert (row["view_calls"], row["view_429"], row["view_unanswered"]) == (300, 20, 7)
    assert (row["api_requests"], row["api_429"]) == (586, 114)
    # The service's own counts when its health shows them.
    health = {"status": "ok", "activity": {"queued": 3, "forwarded": 140, "dropped": 57}}
    row = sale.figures(_replay(), api, health, rate=600, seconds=90.0)
    assert (row["activity_forwarded"], row["activity_dropped"]) == (140, 57)
    assert row["activity_source"] == "/session/health"


def test_p95_is_the_nearest_rank() -> None:
    assert sale.p95([]) is None
    assert sale.p95([5.0]) == 5.0
    assert sale.p95([float(n) for n in range(1, 21)]) == 19.0  # 20 purchases: the 19th
    assert sale.p95([float(n) for n in range(100, 0, -1)]) == 95.0


def test_the_report_puts_each_figure_beside_its_target() -> None:
    row = sale.figures(_replay(), {}, {}, rate=3000, seconds=90.0)
    call = {"method": "GET", "path": "/session/api/products/1/variants", "activity": False}
    page = {"calls": [call, {**call, "activity": True}], "api": {"showing": 1, "activity": 1}}
    recording = {"pages": {"product": page}, "purchase": {**page, "api": page["api"]}}
    result = {
        "recorded": sale.recorded_counts(recording),
        "rows": [row],
        "seconds": 90.0,
        "run_minutes": 6.5,
    }
    text = sale.sale_report(result, "2 CPUs")
    assert text.startswith(sale.SECTION + " (run of ")
    assert "| figure | target | 3,000 product views/min |" in text
    assert "| purchases complete | 20/20 | 3/4 |" in text
    assert "| the greedy client's answers by status |  | 200: 10, 429: 90 |" in text
    assert "| 429 answers seen by purchases | 0 | 4 |" in text
    assert "| 429 answers seen by the greedy client (of its requests) |  | 90 of 100 |" in text
    assert "| API requests per purchase (showing + activity) | at most 9 | 0 + 0 (4) |" in text
    assert "| product | 1 + 1 | 1 + 1 | 0 + at most 1 activity |" in text
    assert "3,000/min: PUT /session/api/cart/items 429 (1)." in text
    assert result["recorded"]["product"]["calls"] == ["GET /session/api/products/{id}/variants"]


@pytest.mark.slow
def test_a_short_replay_buys_and_counts_what_reached_the_api(tmp_path: Path) -> None:
    """A small recording (a product view; a purchase by add to cart, checkout and a COD order)
    replayed for a few seconds against `storefront api` and `storefront session`: both
    purchases complete with carts of their own, and the API's log names each call's sender."""
    from companion.seed.demo import DEMO_KEY
    from tests.support.processes import running_companion, running_session

    token, checkout = "RECORDEDCARTTOKEN", "chk_RECORDEDCHECKOUT"
    address = {"city": "Thành phố Hà Nội", "full_name": "An", "phone": "0901234567",
               "ward": "Phường Ba Đình", "street": "12 Lê Lợi"}  # fmt: skip
    product_view = [
        {"method": "GET", "path": "/session/api/products/1/variants", "body": None,
         "activity": False, "idempotent": False, "status": 200, "answer": None},
        {"method": "POST", "path": "/session/api/analytics/entity-view",
         "body": json.dumps({"entity_type": "product", "entity_id": 1,
                             "session_token": "3dea9aed-f9f4-4774-9fcd-05fd3bccf448"}),
         "activity": True, "idempotent": False, "status": 204, "answer": None},
    ]  # fmt: skip

    def call(method: str, path: str, body: Any = None, answer: Any = None) -> dict[str, Any]:
        return {"method": method, "path": path, "body": body and json.dumps(body),
                "activity": False, "idempotent": method == "POST", "status": 200,
                "answer": answer}  # fmt: skip

    purchase = [
        call("PUT", "/session/api/cart/items", {"items": [{"variant_id": 1, "quantity": 1}]},
             {"token": token}),
        call("POST", f"/session/api/checkout?cart_token={token}", {"email": None},
             {"checkout_id": checkout}),
        call("PUT", f"/session/api/checkout/{checkout}/shipping", {"shipping_method": "standard"}),
        call("POST", f"/session/api/checkout/place-order?cart_token={token}",
             {"address": address, "payment": {"payment_method": "cod"}}),
    ]  # fmt: skip
    recording = {
        "pages": {"product": {"entity_id": "1", "calls": product_view}},
        "purchase": {"variant_id": "1", "cart_token": token, "calls": purchase},
    }
    with (
        running_companion(tmp_path, products=30) as api_url,
        running_session(
            tmp_path, api_url=api_url, key=DEMO_KEY, extra=["--trusted-proxy", "127.0.0.1"]
        ) as (session, _),
    ):
        variants = sale.buyable_variants(tmp_path / "shop.db", 2)
        replay = asyncio.run(
            sale_replay.replay_sale(
                session, recording, rate=60, seconds=4.0, product_ids=["1", "2"],
                variants=variants, purchases=2, mix={}, greedy_concurrency=1,
            )
        )  # fmt: skip
        sale_record.settle(tmp_path / "api.log", 0)
    lines = sale.api_lines(tmp_path / "api.log")
    counts = sale_replay.attribute(lines)
    assert [p.complete for p in replay.purchases] == [True, True], replay.purchases
    assert counts["purchase"]["showing"] == 2 * len(purchase)
    orders = [line for line in lines if str(line["path"]).endswith("/checkout/place-order")]
    assert [line["status"] for line in orders] == [201, 201]
    views = replay.views["product"].units
    assert 3 <= views <= 4  # one a second for 4 s
    assert counts["product"]["showing"] == views
    assert counts["product"]["activity"] + counts.get("unnamed", Counter())["activity"] == views
    # The greedy client's calls past its share are answered 429 by the session service: only
    # the others reach the API.
    assert replay.greedy.units - replay.greedy.calls[429] == counts["greedy"]["showing"] > 0
    assert replay.rate_limit == "600"  # the companion as `storefront api` runs it
