"""`make bench BENCH_ARGS=--sale`: a sale on one key, at 600 and 3,000 product views a minute.

The demo store is built, then served as a merchant serves it: `storefront api` (the spec's 600
requests a minute and 20,000 an hour per key, enforced), `storefront session` on the store's
key (the only one the run spends), nginx with the shipped config in front of the files. First
Chromium records what a real view of each page type and a purchase send to /session/*
(``sale_record``); then, for each rate, a fresh store replays page views at that rate, a
greedy client and ``PURCHASES`` purchases at once for ``--sale-seconds``, past the minute
window (``sale_replay``). The figures come from the replay's own answers and from the
companion's request log (what reached the key, by the request id each call carried); the
activity calls forwarded and dropped from /session/health when it shows them, else from the
API's count. Figures only, no pass/fail; the issue's targets are printed beside them.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import sqlite3
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from benchmarks.sale_record import PAGE_TYPES, entity_id, page_of_each_type, record, settle
from benchmarks.sale_replay import (
    GRACE_SECONDS,
    GREEDY_PATH,
    MIX,
    PURCHASES,
    Replay,
    attribute,
    replay_sale,
    shape,
)
from benchmarks.sale_stack import api_lines, build_site, nginx, stack

SECTION = "## A sale on one key"
RATES = (600, 3_000)
SECONDS = 90.0


def measure_sale(
    folder: Path,
    *,
    rates: tuple[int, ...] = RATES,
    seconds: float = SECONDS,
    grace: float = GRACE_SECONDS,
    session_workers: int = 1,
) -> dict[str, Any]:
    """The recording, then one replay per rate, each on a fresh store; their figures."""
    from companion.seed.demo import DEMO_KEY

    started = time.monotonic()
    out = build_site(folder)
    with (
        stack(folder / "record", key=DEMO_KEY) as running,
        nginx(out, folder / "record" / "nginx", session=running.session) as site,
    ):
        recording = record(out, site, running.api_log)
    (folder / "recording.json").write_text(json.dumps(recording, ensure_ascii=False, indent=1))
    print(json.dumps(recorded_counts(recording)), flush=True)
    products = [i for p in page_of_each_type(out)["product"] if (i := _entity(out, p))]
    rows = []
    for rate in rates:
        with stack(
            folder / f"rate-{rate}", key=DEMO_KEY, session_workers=session_workers
        ) as running:
            variants = buyable_variants(running.database, PURCHASES)
            replay = asyncio.run(
                replay_sale(
                    running.session,
                    recording,
                    rate=rate,
                    seconds=seconds,
                    product_ids=products,
                    variants=variants,
                    grace=grace,
                )
            )
            settle(running.api_log, 0)  # the queue's last activity calls, the log's last lines
            health = session_health(running.session)
            lines = api_lines(running.api_log)
        rows.append(figures(replay, attribute(lines), health, rate=rate, seconds=seconds))
        print(json.dumps(rows[-1]), flush=True)
    return {
        "recorded": recorded_counts(recording),
        "rows": rows,
        "seconds": seconds,
        "grace": grace,
        "session_workers": session_workers,
        "run_minutes": round((time.monotonic() - started) / 60, 1),
    }


def session_health(origin: str) -> Any:
    """/session/health's answer; {} when the service, still working through what the replay
    left it, does not answer within a minute."""
    try:
        return httpx.get(origin + "/session/health", timeout=60).json()
    except (httpx.HTTPError, ValueError):
        return {}


def _entity(out: Path, path: str) -> str | None:
    return entity_id(out, path)


def buyable_variants(database: Path, count: int) -> list[str]:
    """One variant on sale of each of ``count`` published products, stock untracked or ample:
    each purchase buys its own, so none runs out of stock."""
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as db:
        rows = db.execute(
            "SELECT MIN(v.id) FROM variants v JOIN products p ON p.id = v.product_id "
            "WHERE p.status = 'published' AND p.url IS NOT NULL AND p.url != '' "
            "AND v.on_sale AND (v.stock IS NULL OR v.stock >= 20) "
            "AND COALESCE(v.price, p.price) IS NOT NULL "
            "GROUP BY v.product_id ORDER BY v.product_id LIMIT ?",
            (count,),
        ).fetchall()
    if len(rows) < count:
        raise SystemExit(f"bench: the demo store has {len(rows)} buyable products, not {count}")
    return [str(row[0]) for row in rows]


def recorded_counts(recording: dict[str, Any]) -> dict[str, Any]:
    """Per page type and for the purchase: calls to /session/* (showing, activity) and what the
    companion received for one view in Chromium, the store otherwise quiet."""
    counts: dict[str, Any] = {}
    for kind, page in [*recording["pages"].items(), ("purchase", recording["purchase"])]:
        calls = page["calls"]
        activity = sum(1 for call in calls if call["activity"])
        counts[kind] = {
            "session_showing": len(calls) - activity,
            "session_activity": activity,
            "api_showing": page["api"]["showing"],
            "api_activity": page["api"]["activity"],
            "calls": sorted({f"{c['method']} {shape(c['path'])}" for c in calls}),
        }
    return counts


def p95(values: list[float]) -> float | None:
    """The nearest-rank 95th percentile."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(math.ceil(0.95 * len(ordered)) - 1, 0)]


def activity_counts(health: Any) -> tuple[int, int] | None:
    """(forwarded, dropped) activity calls when /session/health shows them."""
    found: dict[str, int] = {}

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                for name in ("forwarded", "dropped"):
                    if name in key and isinstance(item, int) and name not in found:
                        found[name] = item
                walk(item)

    walk(health)
    if "forwarded" in found and "dropped" in found:
        return found["forwarded"], found["dropped"]
    return None


def figures(
    replay: Replay, api: dict[str, Counter[str]], health: Any, *, rate: int, seconds: float
) -> dict[str, Any]:
    """One rate's row: what reached the API per view by page type (showing and activity apart;
    activity calls that reached it under an id of the service's own shared among the senders by
    the activity calls each sent), per purchase, and what each sender saw."""
    senders = {**{kind: tally for kind, tally in replay.views.items()}, "purchase": replay.buying}
    sent_activity = sum(t.activity_calls for t in senders.values())
    answered_activity = sum(t.activity_answered for t in senders.values())
    unnamed = api.get("unnamed", Counter())
    per_view: dict[str, Any] = {}
    for kind, tally in senders.items():
        counted = api.get(kind, Counter())
        share = tally.activity_calls / sent_activity if sent_activity else 0.0
        activity = counted["activity"] + unnamed["activity"] * share
        units = max(tally.units, 1)
        per_view[kind] = {
            "units": tally.units,
            "api_showing": round(counted["showing"] / units, 2),
            "api_activity": round(activity / units, 2),
            "session_calls": sum(tally.calls.values()),
            "refused": tally.refused,
        }
    api_activity = sum(c["activity"] for c in api.values())
    shown = activity_counts(health)
    if shown is not None:
        forwarded, dropped, source = shown[0], shown[1], "/session/health"
    else:
        forwarded = api_activity
        # Answered by the service and never sent on (one left unanswered was not dropped).
        dropped, source = max(answered_activity - api_activity, 0), "the API's count"
    done = [p for p in replay.purchases if p.complete]
    greedy = api.get("greedy", Counter())
    product_views = replay.views.get("product")
    return {
        "rate": rate,
        "seconds": round(replay.seconds, 1),
        "product_views_per_minute": round(
            (product_views.units if product_views else 0) / max(seconds, 1e-9) * 60
        ),
        "late_views": replay.late_views,
        "per_view": per_view,
        "activity_sent": sent_activity,
        "activity_answered": answered_activity,
        "activity_forwarded": forwarded,
        "activity_dropped": dropped,
        "activity_source": source,
        "purchases": len(replay.purchases),
        "purchases_complete": len(done),
        "purchase_p95_seconds": _rounded(p95([p.seconds for p in done])),
        "purchase_failures": sorted(
            Counter(p.failed_at for p in replay.purchases if p.failed_at).items()
        ),  # fmt: skip
        "purchase_429": sum(p.refused for p in replay.purchases),
        "greedy_requests": replay.greedy.units,
        "greedy_429": replay.greedy.refused,
        "greedy_statuses": dict(sorted(replay.greedy.calls.items())),
        "view_calls": sum(t.calls.total() for t in replay.views.values()),
        "view_429": sum(t.refused for t in replay.views.values()),
        "view_unanswered": sum(t.unanswered for t in replay.views.values()),
        "api_requests": sum(c["showing"] + c["activity"] for c in api.values()),
        "api_429": sum(c["429"] for c in api.values()),
        "greedy_api": greedy["showing"] + greedy["activity"],
        "rate_limit": replay.rate_limit,
    }


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def sale_report(result: dict[str, Any], machine: str) -> str:
    rows: list[dict[str, Any]] = result["rows"]
    recorded: dict[str, Any] = result["recorded"]
    head = " | ".join(f"{r['rate']:,} product views/min" for r in rows)
    lines = [
        SECTION + f" (run of {datetime.now(UTC):%Y-%m-%d %H:%M} UTC)",
        "",
        "`make bench BENCH_ARGS=--sale` (`benchmarks/sale.py`): the demo store served as a "
        "merchant serves it (`storefront api` enforcing 600 requests a minute and 20,000 an "
        "hour per key; `storefront session` on the store's key, the only one spent, "
        f"{result.get('session_workers', 1)} worker(s); nginx with "
        "the shipped config). Chromium first records what one view of each page type and one "
        "purchase (add to cart, cart page with the coupon GIAM10, checkout, COD order) send to "
        "/session/*; then, on a fresh store for each rate, for "
        f"{result['seconds']:g} s: product views at the rate, the other pages at their share "
        f"of it ({', '.join(f'{k} {v:g}' for k, v in MIX.items())} per product view), "
        "each replaying its recorded calls from its own visitor address (five views a visitor); "
        f"one greedy client reading `{GREEDY_PATH}` from one address as fast as it is answered; "
        f"{PURCHASES} purchases spread over the run, each replaying the recorded purchase with "
        "its own cart (a 429 or 503 tried again after its Retry-After, three times at most); "
        f"{result.get('grace', GRACE_SECONDS):g} s after the last view left, what still waited "
        "for an answer was given up. "
        f"Machine: {machine}; load average (1 min) when the run ended: "
        f"{os.getloadavg()[0]:.1f}. The whole run took {result['run_minutes']:g} minutes.",
        "",
        "Recorded in Chromium (calls to /session/*, showing + activity; what the API received "
        "for that one view, the store otherwise quiet):",
        "",
        "| page | calls to /session/* | reaching the API | target at the API |",
        "|---|---:|---:|---|",
    ]
    for kind in [*PAGE_TYPES, "purchase"]:
        if kind not in recorded:
            continue
        c = recorded[kind]
        target = "at most 9" if kind == "purchase" else "0 + at most 1 activity"
        lines.append(
            f"| {kind} | {c['session_showing']} + {c['session_activity']} | "
            f"{c['api_showing']} + {c['api_activity']} | {target} |"
        )
    lines += [
        "",
        "The purchase is recorded on a session service that has just started: it pays the reads "
        "every shopper shares (provinces, wards, payment methods), which the service then keeps "
        "for its other shoppers; the replay's purchases show what one costs on a running store.",
        "",
        "The replay:",
        "",
        f"| figure | target | {head} |",
        "|---|---|" + "---:|" * len(rows),
    ]

    def row(label: str, target: str, shown: Any) -> None:
        lines.append(f"| {label} | {target} | " + " | ".join(shown(r) for r in rows) + " |")

    row("product views a minute, as sent", "", lambda r: f"{r['product_views_per_minute']:,}")
    row("views that left more than a second late", "", lambda r: f"{r['late_views']:,}")
    for kind in [*PAGE_TYPES, "purchase"]:
        if not all(kind in r["per_view"] for r in rows):
            continue
        unit = "per purchase" if kind == "purchase" else f"per {kind} view"
        target = "at most 9" if kind == "purchase" else "0 + at most 1"
        row(
            f"API requests {unit} (showing + activity)",
            target,
            lambda r, k=kind: (
                f"{r['per_view'][k]['api_showing']:g} + "
                f"{r['per_view'][k]['api_activity']:g} ({r['per_view'][k]['units']:,})"
            ),
        )
    row(
        "activity calls sent / answered / forwarded / dropped",
        "",
        lambda r: (
            f"{r['activity_sent']:,} / {r['activity_answered']:,} / "
            f"{r['activity_forwarded']:,} / {r['activity_dropped']:,}"
        ),
    )
    row("purchases complete", "20/20", lambda r: f"{r['purchases_complete']}/{r['purchases']}")
    row("purchase time p95, s", "", lambda r: _shown(r["purchase_p95_seconds"]))
    row("429 answers seen by purchases", "0", lambda r: f"{r['purchase_429']:,}")
    row("429 answers seen by the greedy client (of its requests)", "",
        lambda r: f"{r['greedy_429']:,} of {r['greedy_requests']:,}")  # fmt: skip
    row("429 answers seen by page views (of their calls)", "",
        lambda r: f"{r['view_429']:,} of {r['view_calls']:,}")  # fmt: skip
    row("calls of page views unanswered when the run ended", "",
        lambda r: f"{r['view_unanswered']:,}")  # fmt: skip
    row("the greedy client's answers by status", "", lambda r: ", ".join(
        f"{status}: {n:,}" for status, n in r["greedy_statuses"].items()))  # fmt: skip
    row("the greedy client's requests reaching the API", "",
        lambda r: f"{r['greedy_api']:,}")  # fmt: skip
    row("requests reaching the API (of them answered 429 by it)", "",
        lambda r: f"{r['api_requests']:,} ({r['api_429']:,})")  # fmt: skip
    row("the API's RateLimit-Limit", "600", lambda r: r["rate_limit"] or "-")
    failures = [f"{r['rate']:,}/min: " + ", ".join(f"{call} ({n})" for call, n in
                                                  r["purchase_failures"]) for r in rows
                if r["purchase_failures"]]  # fmt: skip
    sources = sorted({r["activity_source"] for r in rows})
    lines += [
        "",
        "Activity calls forwarded and dropped: from " + " and ".join(sources) + ". A row's "
        "API requests are counted by the request id each replayed call carried, which the "
        "session service sends on; an activity call it forwards later under an id of its own "
        "is shared among the senders by the activity calls each sent.",
    ]
    if failures:
        lines += ["", "Purchases that did not complete, by the call that failed: "
                  + "; ".join(failures) + "."]  # fmt: skip
    lines.append("")
    return "\n".join(lines)


def _shown(value: Any) -> str:
    return "-" if value is None else f"{value:g}"
