"""Load test of the companion: many shoppers against two workers on PostgreSQL, then an audit.

    python -m benchmarks.loadtest --server postgresql://postgres@127.0.0.1:54329/postgres
        [--shoppers 200] [--seconds 60] [--probe-seconds 30] [--workers 2] [--port 8765]

What it does, on loopback only, bounded in time (it stops by itself):
1. creates a throw-away database on the server, seeds the demo store, makes publishable keys
   (shoppers share a pool of them, as several storefronts of one store would) and puts a few
   hot variants on short stock so that checkouts race for the last units;
2. serves the baseline, a bare ASGI endpoint (``loadtest_bare``: the same uvicorn settings and
   worker count, a fixed JSON answer, no database), on ``--port`` + 1;
3. starts ``storefront api`` with ``--workers`` processes on 127.0.0.1, and sends the bare
   endpoint one request per shopper pause for a turn (``--probe-seconds`` / 3);
4. runs ``--shoppers`` concurrent simulated shoppers for ``--seconds`` (one pool of keep-alive
   connections through the lean client of ``loadtest_http``, so that the load generator takes
   little of the CPU it shares with the server): each browses the catalogue, fills and
   updates a cart, asks for a quote and, often, places the order (with an
   Idempotency-Key, sometimes sent twice) and pays it through the sandbox gateway, whose IPN the
   shopper then replays once, as a gateway retrying would;
5. reads every catalogue page a few times with every key (``warm_up``: each worker then holds
   every page and a lease of every key, as a store's workers that have run for a while do);
   then the same shoppers send the bare endpoint one request per pause, and in turns with it
   read the catalogue alone (one read per pause), each for ``--probe-seconds`` in all
   (``TURNS``: a drift of the machine's speed weighs on both alike; with the turn before the
   mix, the first one brackets the mix), each turn with the busiest worker's share of its CPU;
6. bursts on a fresh key across all workers and counts the 429s;
7. stops the server and audits the database: no lost or duplicated order, stock never negative
   and exactly what was sold, every IPN applied once, the rate limit held across workers.

Every phase and turn reads the CPU time of its server's worker processes (``loadtest_cpu``), so
the catalogue's and the mix's CPU per request stand beside the bare endpoint's from the same
run, the catalogue's measured in the same minute.
Requests the admission gate turned away (503 with Retry-After) are counted as shed, apart from
the 5xx errors.

Before the servers start it counts and times one kept catalogue read in-process
(``loadtest_bytecodes``, ``loadtest_cold``): figures that move far less from run to run than
the CPU per request, to judge fast-path changes by first.

Prints throughput, p50/p95/p99 latency per endpoint group, the error count and the audit; exits
1 if any audit check fails or any answer was a 5xx. Shoppers pause 1-5 s between actions
(``--think``): a brisk human pace, each shopper asking for a page every 3 s on average. The
figures hold for this machine and this pace; ``--think 0.2 0.8`` is a stress pace that asks
for more than two cores serve, so it measures the machine's capacity and queueing instead.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Coroutine
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import parse_qsl, urlsplit

import httpx
from sqlalchemy import Engine, create_engine, func, select, text, update
from sqlalchemy.engine import make_url

from benchmarks.loadtest_bytecodes import kept_read_bytecodes
from benchmarks.loadtest_cold import cold_kept_read
from benchmarks.loadtest_cpu import (
    connection_owners,
    cpu_by_process_since,
    cpu_reading,
    cpu_seconds_since,
    descendants,
)
from benchmarks.loadtest_http import LeanClient, Response, TransportError
from benchmarks.processes import stop
from companion.db.commerce_schema import order_items, order_status_history, orders
from companion.db.commerce_schema import payments as payments_table
from companion.db.engine import database_url, make_engine
from companion.db.migrate import upgrade
from companion.db.schema import products, variants
from companion.keys.lifecycle import create_key
from companion.ratelimit.leases import lease_size
from companion.ratelimit.windows import Window
from companion.seed.demo import seed_demo

ROOT = Path(__file__).resolve().parents[1]

T = TypeVar("T")
PREFIX = "/public/v1"
KEYS = 50  # shoppers spread over this many keys
RATE_PER_MINUTE = 1200  # per key: far above one key's share of the load, tight for the burst
BURST_EXTRA = 100  # requests beyond the limit in the rate-limit burst
RATE_PER_HOUR = 10**7
HOT_VARIANTS = 6
HOT_STOCK = 25
ADDRESS = {
    "full_name": "Nguyễn Thị Lan",
    "phone": "0901234567",
    "email": "lan@example.vn",
    "city": "Thành phố Hồ Chí Minh",
    "province": "Quận 1",
    "ward": "Phường Sài Gòn",
    "street": "88 Lê Lợi",
}
GROUPS = ("catalogue", "cart", "quote", "checkout", "payment", "ipn")


@dataclass
class Tally:
    """What the shoppers saw: latencies per group, statuses, and the orders they were given."""

    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    statuses: Counter[int] = field(default_factory=Counter)
    transport_errors: int = 0
    server_errors: list[str] = field(default_factory=list)
    shed: int = 0  # 503 with Retry-After: turned away by the admission gate, not an error
    orders_by_cart: dict[str, int] = field(default_factory=dict)
    conflicting_orders: list[str] = field(default_factory=list)
    out_of_stock: int = 0
    paid: set[int] = field(default_factory=set)
    ipn_first: Counter[str] = field(default_factory=Counter)
    ipn_replay: Counter[str] = field(default_factory=Counter)


@dataclass
class Shop:
    base: str
    keys: list[str]
    hot: list[int]
    cool: list[int]
    slugs: list[str]


class Shopper:
    def __init__(
        self,
        shop: Shop,
        client: LeanClient,
        tally: Tally,
        seed: int,
        think: tuple[float, float],
    ) -> None:
        self.shop = shop
        self.think_range = think
        self.client = client
        self.tally = tally
        self.rng = random.Random(seed)
        self.key = shop.keys[seed % len(shop.keys)]

    async def call(
        self, group: str, method: str, url: str, *, key: bool = True, **kwargs: Any
    ) -> Response | None:
        headers = dict(kwargs.pop("headers", {}))
        if key:
            headers["X-Service-Key"] = self.key
        started = time.perf_counter()
        try:
            response = await self.client.request(method, url, headers=headers, **kwargs)
        except TransportError:
            self.tally.transport_errors += 1
            return None
        self.tally.latencies[group].append(time.perf_counter() - started)
        self.tally.statuses[response.status_code] += 1
        if response.status_code == 503 and "retry-after" in response.headers:
            self.tally.shed += 1
        elif response.status_code >= 500:
            self.tally.server_errors.append(f"{method} {url} -> {response.status_code}")
        return response

    async def think(self, deadline: float | None = None) -> None:
        """A pause between two actions, cut short at ``deadline``."""
        pause = self.rng.uniform(*self.think_range)
        if deadline is not None:
            pause = max(0.0, min(pause, deadline - time.monotonic()))
        await asyncio.sleep(pause)

    async def browse(self) -> None:
        for _ in range(self.rng.randint(2, 4)):
            await self.read_catalogue()
            await self.think()

    async def read_catalogue(self) -> None:
        """One read of a shopper browsing: a product list, a product page, the categories or
        the store."""
        rng = self.rng
        choice = rng.random()
        if choice < 0.4:
            await self.call("catalogue", "GET", f"{PREFIX}/products", params={"limit": 20})
        elif choice < 0.8:
            slug = rng.choice(self.shop.slugs)
            await self.call("catalogue", "GET", f"{PREFIX}/products/by-slug/{slug}")
        elif choice < 0.9:
            await self.call("catalogue", "GET", f"{PREFIX}/categories")
        else:
            await self.call("catalogue", "GET", f"{PREFIX}/store")

    def pick(self) -> int:
        pool = self.shop.hot if self.rng.random() < 0.3 else self.shop.cool
        return self.rng.choice(pool)

    async def shop_once(self) -> None:
        await self.browse()
        if self.rng.random() < 0.4:
            return
        items = [{"variant_id": self.pick(), "quantity": 1}]
        cart = await self.call("cart", "PUT", f"{PREFIX}/cart/items", json={"items": items})
        if cart is None or cart.status_code != 200:
            self.tally.out_of_stock += cart is not None and cart.status_code == 422
            return
        token = cart.json()["token"]
        await self.think()
        items.append({"variant_id": self.pick(), "quantity": self.rng.randint(1, 2)})
        updated = await self.call(
            "cart", "PUT", f"{PREFIX}/cart/items", params={"token": token}, json={"items": items}
        )
        if updated is None or updated.status_code != 200:
            self.tally.out_of_stock += updated is not None and updated.status_code == 422
            return
        await self.call("quote", "GET", f"{PREFIX}/cart/quote", params={"token": token})
        await self.think()
        if self.rng.random() < 0.4:
            return
        await self.place(token)

    async def place(self, token: str) -> None:
        method = "vnpay" if self.rng.random() < 0.5 else "cod"
        body = {"address": ADDRESS, "payment": {"payment_method": method}}
        idem = {"Idempotency-Key": uuid.uuid4().hex}
        url = f"{PREFIX}/checkout/place-order"
        params = {"cart_token": token}
        placed = await self.call("checkout", "POST", url, params=params, json=body, headers=idem)
        if placed is None:
            return
        if placed.status_code == 409:
            self.tally.out_of_stock += 1
            return
        if placed.status_code not in (200, 201):
            return
        order_id = placed.json()["id"]
        self.record(token, order_id)
        if self.rng.random() < 0.2:  # a double click, or a retry after a lost answer
            again = await self.call("checkout", "POST", url, params=params, json=body, headers=idem)
            if again is not None and again.status_code in (200, 201):
                self.record(token, again.json()["id"])
        if method == "vnpay":
            await self.think()
            await self.pay(token, order_id)

    def record(self, token: str, order_id: int) -> None:
        known = self.tally.orders_by_cart.setdefault(token, order_id)
        if known != order_id:
            self.tally.conflicting_orders.append(f"cart {token[:8]}: {known} and {order_id}")

    async def pay(self, token: str, order_id: int) -> None:
        started = await self.call(
            "payment", "POST", f"{PREFIX}/checkout/pay", params={"cart_token": token}, json={}
        )
        if started is None or started.status_code != 200:
            return
        form = dict(parse_qsl(urlsplit(started.json()["payment_url"]).query))
        form["outcome"] = "pay"
        done = await self.call("payment", "POST", "/sandbox/vnpay/complete", key=False, data=form)
        if done is None or done.status_code != 303:
            return
        self.tally.paid.add(order_id)
        signed = urlsplit(done.headers["location"]).query
        # The sandbox already sent the IPN (through the workers); a gateway retrying sends it
        # again. The first answer is read from the order; the replay must change nothing.
        replay = await self.call("ipn", "GET", f"/payments/vnpay/ipn?{signed}", key=False)
        if replay is not None and replay.status_code == 200:
            self.tally.ipn_replay[replay.json().get("RspCode", "")] += 1

    async def run(self, deadline: float, plan: str) -> None:
        """``plan``: "mix" (browse, cart, quote, order, pay), "catalogue" (one catalogue read
        per pause) or "bare" (one request to the bare baseline server per pause). The last two
        stop at ``deadline``, a pause cut short by it."""
        await asyncio.sleep(self.rng.uniform(0, 1))  # shoppers arrive over the first second
        while time.monotonic() < deadline:
            if plan == "mix":
                await self.shop_once()
                continue
            if plan == "bare":
                await self.call("bare", "GET", "/bare", params={"limit": 20})
            else:
                await self.read_catalogue()
            await self.think(deadline)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] * 1000


def prepare(server: str, name: str) -> tuple[str, Engine]:
    drop_database(server, name)
    admin = create_engine(database_url(server), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    admin.dispose()
    url = make_url(database_url(server)).set(database=name).render_as_string(hide_password=False)
    engine = make_engine(url, pool_size=2, max_overflow=2)
    upgrade(engine)
    return url, engine


def drop_database(server: str, name: str) -> None:
    """Drop the throw-away database ``name`` of ``server``, its connections closed."""
    admin = create_engine(database_url(server), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


def seed(engine: Engine) -> tuple[int, list[str], list[int], list[int], list[str]]:
    summary = seed_demo(engine, products=300)
    now = datetime.now(UTC).replace(tzinfo=None)
    with engine.begin() as conn:
        keys = [
            create_key(conn, summary.store_id, now=now, name=f"load {i}")[1] for i in range(KEYS)
        ]
        rows = conn.execute(
            select(variants.c.id, products.c.slug)
            .join(products, products.c.id == variants.c.product_id)
            .where(
                products.c.status == "published",
                products.c.price.is_not(None),
                variants.c.on_sale.is_(True),
            )
            .order_by(variants.c.id)
        ).all()
        ids = [r.id for r in rows]
        hot, cool = ids[:HOT_VARIANTS], ids[HOT_VARIANTS:]
        conn.execute(update(variants).where(variants.c.id.in_(hot)).values(stock=HOT_STOCK))
        # Plenty of the rest, tracked, so every sale is counted against stock.
        conn.execute(update(variants).where(variants.c.id.in_(cool)).values(stock=10_000))
    return summary.store_id, keys, hot, cool, sorted({r.slug for r in rows})


def start_bare(port: int, workers: int, log: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with log.open("wb") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "benchmarks.loadtest_bare", str(port), str(workers)],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=ROOT,
        )


def start_server(
    url: str, port: int, workers: int, log: Path, *, chain_bypass: bool = True
) -> subprocess.Popen[bytes]:
    settings = {
        "database": url,
        "chain_bypass": chain_bypass,
        "rate_per_minute": RATE_PER_MINUTE,
        "rate_per_hour": RATE_PER_HOUR,
        "public_url": f"http://127.0.0.1:{port}",
    }
    code = (
        "import json, sys\n"
        "from companion.server import serve\n"
        "from companion.settings import CompanionSettings\n"
        "settings = CompanionSettings(**json.loads(sys.argv[1]))\n"
        "serve(settings, host='127.0.0.1', port=int(sys.argv[2]), workers=int(sys.argv[3]))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with log.open("wb") as out:
        return subprocess.Popen(
            [sys.executable, "-c", code, json.dumps(settings), str(port), str(workers)],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=ROOT,
        )


def wait_ready(
    base: str,
    server: subprocess.Popen[bytes],
    seconds: float = 60,
    path: str = "/health/ready",
    *,
    log: Path | None = None,
    workers: int = 1,
) -> None:
    """Until ``path`` answers 200, then until each of ``workers`` has started (its line in
    ``log``): the shoppers' keep-alive connections stay with the workers that listened when they
    were opened, so a phase begun before the last worker is up runs on the others alone."""
    deadline = time.monotonic() + seconds
    answered = False
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit("loadtest: the server stopped while starting (see its log)")
        if not answered:
            try:
                answered = httpx.get(f"{base}{path}", timeout=2).status_code == 200
            except httpx.HTTPError:
                pass
        if answered and (log is None or started_workers(log) >= workers):
            return
        time.sleep(0.25)
    raise SystemExit(f"loadtest: the server was not ready within {seconds:.0f} s")


def started_workers(log: Path) -> int:
    """Workers that have started, as uvicorn logs each."""
    return log.read_text(errors="replace").count("Application startup complete.")


async def burst(base: str, key: str, total: int) -> Counter[int]:
    """``total`` requests on one key at once; the workers share the count, so exactly the
    limit gets through in one window."""
    limits = httpx.Limits(max_connections=64)
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=30) as client:
        gate = asyncio.Semaphore(64)

        async def one() -> int:
            async with gate:
                try:
                    response = await client.get(f"{PREFIX}/store", headers={"X-Service-Key": key})
                except httpx.HTTPError:
                    return 0  # counted as "no answer"
                return response.status_code

        return Counter(await asyncio.gather(*(one() for _ in range(total))))


@dataclass
class Phase:
    """One stretch of load against one server: what the shoppers saw and the CPU it took."""

    name: str
    tally: Tally
    elapsed: float
    cpu: float  # seconds of CPU of the server's worker processes over the phase

    @property
    def requests(self) -> int:
        return sum(self.tally.statuses.values())

    @property
    def cpu_per_request_ms(self) -> float:
        return self.cpu / max(1, self.requests) * 1000


async def run_load(
    shop: Shop, shoppers: int, seconds: float, think: tuple[float, float], plan: str
) -> tuple[Tally, float]:
    tally = Tally()
    # One pool of keep-alive connections shared by the shoppers, at most one per shopper.
    async with LeanClient(shop.base, max_connections=shoppers, timeout=30) as client:
        started = time.monotonic()
        deadline = started + seconds
        crowd = [
            Shopper(shop, client, tally, i, think).run(deadline, plan) for i in range(shoppers)
        ]
        await asyncio.gather(*crowd)
        elapsed = time.monotonic() - started
    return tally, elapsed


def measure_mix(server: subprocess.Popen[bytes], shop: Shop, args: argparse.Namespace) -> Phase:
    """Run the mix and read the CPU its workers took (from /proc, before and after)."""
    workers = descendants(server.pid)
    before = cpu_reading(workers)
    think = (args.think[0], args.think[1])
    tally, elapsed = run_fast(run_load(shop, args.shoppers, args.seconds, think, "mix"))
    return Phase("full mix", tally, elapsed, cpu_seconds_since(before, workers))


#: The catalogue alone and the bare endpoint take turns in this order after the mix: a drift of
#: the machine's speed during the turns weighs on both alike (a steady one exactly). The first
#: bare turn, with one just before the mix, brackets the mix's hour.
TURNS = ("bare", "catalogue", "catalogue", "bare", "bare", "catalogue")
PHASE_NAMES = {"catalogue": "catalogue alone", "bare": "bare endpoint (baseline)"}


#: Before the turns, every catalogue page is read this many times on the catalogue turns'
#: connections (``warm_up``), 32 at a time, each reader taking the shoppers' keys in turn: the
#: connections are spread over the workers, so each worker almost surely holds every page and
#: a lease of every key, and the turns measure reads of a catalogue the workers have served
#: before, as a store's workers that have run for a while have. A worker's first read of a page
#: is a different cost (a read through the application, or an answer another worker shared),
#: and so is a key's first request on a worker in a minute (its lease is taken down the chain).
WARM_READS = 10
WARM_AT_ONCE = 32


async def spread_over_workers(
    client: LeanClient, processes: list[int], workers: int, *, bare: bool
) -> None:
    """Send each turn's requests to a server's workers alike (``LeanClient.spread_over``): a
    worker's requests cost less the more of them it takes, so turns left to chance do not
    compare. The bare endpoint gets as many connections as the catalogue's warm-up opened;
    more are opened, a few times at most, until every worker holds one."""
    if bare:
        await client.open_connections(WARM_AT_ONCE)
    for _ in range(SPREAD_TRIES):
        owners = connection_owners(processes)  # the supervisor among them holds none
        held = {owners[port] for port in client.local_ports() if port in owners}
        if len(held) >= workers:
            client.spread_over(owners)
            return
        await asyncio.sleep(0.1)
        await client.open_connections(WARM_AT_ONCE // 4)
    raise SystemExit(f"loadtest: connections reached {len(held)} of {workers} workers")


#: Rounds of new connections opened at most until every worker holds one.
SPREAD_TRIES = 20


@dataclass(frozen=True)
class Turn:
    plan: str
    requests: int
    cpu: float
    refused: int = 0  # answered 429
    #: The busiest worker's share of ``cpu``: the shoppers' pool hands out the connection last
    #: put back, so a turn's requests may keep to one worker or spread over both, which changes
    #: what each costs. Turns compare alike at like shares.
    busiest: float = 1.0

    @property
    def cpu_per_request_ms(self) -> float:
        return self.cpu / max(1, self.requests) * 1000


async def take_turns(
    shops: dict[str, Shop],
    workers: dict[str, list[int]],
    args: argparse.Namespace,
    order: tuple[str, ...] = TURNS,
) -> tuple[dict[str, Phase], list[Turn]]:
    """Turns of ``--probe-seconds`` / 3 in ``order`` (by default the catalogue alone and the bare
    endpoint, 30 s each in all) at the same pace, each server's connections kept across its
    turns; the CPU of each turn's server read before and after it."""
    seconds = args.probe_seconds / TURNS.count("bare")
    think = (args.think[0], args.think[1])
    tallies = {plan: Tally() for plan in shops}
    elapsed = dict.fromkeys(shops, 0.0)
    cpu = dict.fromkeys(shops, 0.0)
    turns = []
    clients = {
        plan: LeanClient(shop.base, max_connections=args.shoppers, timeout=30)
        for plan, shop in shops.items()
    }
    try:
        crowds = {
            plan: [
                Shopper(shops[plan], clients[plan], tallies[plan], i, think)
                for i in range(args.shoppers)
            ]
            for plan in shops
        }
        if "catalogue" in shops:
            turns.append(await warm_up(shops["catalogue"], clients["catalogue"], workers))
        for plan, client in clients.items():
            await spread_over_workers(client, workers[plan], args.workers, bare=plan == "bare")
        for plan in order:
            asked = sum(tallies[plan].statuses.values())
            before = cpu_reading(workers[plan])
            started = time.monotonic()
            deadline = started + seconds
            await asyncio.gather(*(shopper.run(deadline, plan) for shopper in crowds[plan]))
            by_worker = cpu_by_process_since(before, workers[plan])
            used = sum(by_worker.values())
            elapsed[plan] += time.monotonic() - started
            cpu[plan] += used
            requests = sum(tallies[plan].statuses.values()) - asked
            busiest = max(by_worker.values(), default=0.0) / used if used > 0 else 1.0
            turns.append(Turn(plan, requests, used, busiest=busiest))
    finally:
        for client in clients.values():
            await client.aclose()
    phases = {
        plan: Phase(PHASE_NAMES[plan], tallies[plan], elapsed[plan], cpu[plan]) for plan in shops
    }
    return phases, turns


async def warm_up(shop: Shop, client: LeanClient, workers: dict[str, list[int]]) -> Turn:
    """Every catalogue page ``WARM_READS`` times, ``WARM_AT_ONCE`` at a time, on ``client``;
    the turn it was, with the CPU its server took."""
    pages: list[tuple[str, dict[str, Any] | None]] = [
        (f"{PREFIX}/products", {"limit": 20}),
        *((f"{PREFIX}/products/by-slug/{slug}", None) for slug in shop.slugs),
        (f"{PREFIX}/categories", None),
        (f"{PREFIX}/store", None),
    ]
    todo = pages * WARM_READS
    random.Random(0).shuffle(todo)
    tally = Tally()
    readers = [Shopper(shop, client, tally, i, (0.0, 0.0)) for i in range(WARM_AT_ONCE)]

    async def read(first: int, share: list[tuple[str, dict[str, Any] | None]]) -> None:
        # Each request with the next key: a reader keeps to one connection, so to one worker,
        # and every worker is to hold a lease of every key (``WARM_READS``).
        reader, keys = readers[first], shop.keys
        for n, (path, params) in enumerate(share):
            key = {"X-Service-Key": keys[(first + n) % len(keys)]}
            await reader.call("catalogue", "GET", path, key=False, params=params, headers=key)

    # An equal share per reader (so per key): from one shared list, a reader on the less busy
    # worker would read far more, enough to take keys over their limit of 1,200 a minute.
    before = cpu_reading(workers["catalogue"])
    await asyncio.gather(*(read(i, todo[i::WARM_AT_ONCE]) for i in range(WARM_AT_ONCE)))
    used = cpu_seconds_since(before, workers["catalogue"])
    # A 429 is reported, not fatal: each key reads about 60 pages here, far below its limit,
    # so one would be the rate limit's fault, to show beside the figures.
    if set(tally.statuses) - {200, 429}:
        raise SystemExit(f"loadtest: the catalogue warm-up was answered {dict(tally.statuses)}")
    return Turn("warm-up", len(pages) * WARM_READS, used, refused=tally.statuses.get(429, 0))


def audit(
    engine: Engine,
    store_id: int,
    tally: Tally,
    initial: dict[int, int],
    burst_seen: Counter[int],
    workers: int,
) -> list[tuple[str, bool, str]]:
    checks: list[tuple[str, bool, str]] = []
    with engine.connect() as conn:
        rows = conn.execute(
            select(orders.c.id, orders.c.cart_id, orders.c.current_status).where(
                orders.c.store_id == store_id
            )
        ).all()
        in_db = {r.id for r in rows}
        seen = set(tally.orders_by_cart.values())
        lost = seen - in_db
        unseen = in_db - seen
        per_cart = Counter(r.cart_id for r in rows)
        doubled = [c for c, n in per_cart.items() if n > 1]
        checks.append(
            (
                "no lost or duplicated order",
                not lost and not unseen and not doubled and not tally.conflicting_orders,
                f"{len(in_db)} orders in the database, {len(seen)} answered to shoppers; "
                f"lost {len(lost)}, unanswered {len(unseen)}, carts with 2+ orders "
                f"{len(doubled)}, retries answered another order {len(tally.conflicting_orders)}",
            )
        )
        stock = dict(
            (r.id, r.stock) for r in conn.execute(select(variants.c.id, variants.c.stock)).all()
        )
        sold_rows = conn.execute(
            select(order_items.c.variant_id, func.sum(order_items.c.quantity))
            .join(orders, orders.c.id == order_items.c.order_id)
            .where(orders.c.current_status.not_in(("cancelled", "refunded")))
            .group_by(order_items.c.variant_id)
        ).all()
        sold = {variant: int(quantity) for variant, quantity in sold_rows}
        negative = [v for v, s in stock.items() if s is not None and s < 0]
        drift = [v for v, before in initial.items() if before - sold.get(v, 0) != stock.get(v)]
        checks.append(
            (
                "stock never negative, exactly what was sold",
                not negative and not drift,
                f"{sum(sold.values())} units sold; negative {len(negative)}, "
                f"stock not matching sales {len(drift)}",
            )
        )
        paid_orders = {r.id for r in rows if r.current_status == "paid"}
        succeeded = Counter(
            conn.execute(
                select(payments_table.c.order_id).where(
                    payments_table.c.store_id == store_id, payments_table.c.status == "succeeded"
                )
            ).scalars()
        )
        to_paid = Counter(
            conn.execute(
                select(order_status_history.c.order_id).where(
                    order_status_history.c.store_id == store_id,
                    order_status_history.c.to_status == "paid",
                )
            ).scalars()
        )
    twice = [o for o, n in (succeeded + to_paid).items() if n != 2]
    replays_ok = set(tally.ipn_replay) <= {"02"}
    checks.append(
        (
            "every IPN applied once",
            paid_orders == tally.paid and not twice and replays_ok,
            f"{len(tally.paid)} payments completed, {len(paid_orders)} orders paid, "
            f"orders paid more than once {len(twice)}; replayed IPNs answered "
            f"{dict(tally.ipn_replay)}",
        )
    )
    allowed, refused = burst_seen.get(200, 0), burst_seen.get(429, 0)
    # Turned away by a busy worker's admission gate (503, Retry-After) before the rate limit
    # counted them: not a rate-limit answer, reported apart; anything else fails the check.
    shed = burst_seen.get(503, 0)
    other = {s: n for s, n in burst_seen.items() if s not in (200, 429, 503)}
    # Never more than the limit. Fewer only by units a worker leased and had no request left
    # to spend them on when the burst ended (companion.ratelimit.leases): at most a lease each;
    # and by the requests shed beyond the burst's extra ones.
    stranded = workers * lease_size([Window(60, RATE_PER_MINUTE), Window(3600, RATE_PER_HOUR)])
    checks.append(
        (
            "rate limit enforced across workers",
            RATE_PER_MINUTE - stranded - max(0, shed - BURST_EXTRA) <= allowed <= RATE_PER_MINUTE
            and allowed + refused + shed == RATE_PER_MINUTE + BURST_EXTRA,
            f"burst of {RATE_PER_MINUTE + BURST_EXTRA} on one key: {allowed} allowed "
            f"(limit {RATE_PER_MINUTE}/min; leased units left unspent: at most {stranded}), "
            f"{refused} refused with 429, {shed} shed with 503"
            + (f", other answers {other}" if other else ""),
        )
    )
    return checks


def row(label: str, values: list[float], cpu: str = "") -> str:
    return (
        f"{label:<22} {len(values):>9} {percentile(values, 0.50):>8.1f} "
        f"{percentile(values, 0.95):>8.1f} {percentile(values, 0.99):>8.1f} {cpu:>12}"
    )


def report(
    bare: Phase, catalogue: Phase, mix: Phase, turns: list[Turn], args: argparse.Namespace
) -> None:
    """The mix per group, with the catalogue alone and the bare baseline (measured in turns)
    beside it; ``turns``: the bare turn before the mix, then those after it."""
    low, high = args.think
    tally = mix.tally
    print(
        f"\n{args.shoppers} shoppers (pauses {low:g}-{high:g} s), {args.workers} workers, "
        f"chain bypass {'on' if args.chain_bypass else 'off'}; "
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores at the end"
    )
    for phase in (bare, catalogue, mix):
        print(
            f"  {phase.name}: {phase.requests} requests in {phase.elapsed:.1f} s "
            f"({phase.requests / phase.elapsed:.0f}/s), server CPU "
            f"{phase.cpu:.1f} s = {phase.cpu_per_request_ms:.2f} ms per request"
        )
    header = f"{'group':<22} {'requests':>9} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8}"
    print(f"{header} {'CPU ms/req':>12}")
    print(row("bare (baseline)", bare.tally.latencies["bare"], f"{bare.cpu_per_request_ms:.2f}"))
    print(
        row(
            "catalogue alone",
            catalogue.tally.latencies["catalogue"],
            f"{catalogue.cpu_per_request_ms:.2f}",
        )
    )
    for group in GROUPS:
        values = tally.latencies.get(group, [])
        if values:
            print(row(group, values))
    every = [v for values in tally.latencies.values() for v in values]
    print(row("full mix", every, f"{mix.cpu_per_request_ms:.2f}"))
    ratio = catalogue.cpu_per_request_ms / max(bare.cpu_per_request_ms, 1e-9)
    warm = [turn for turn in turns if turn.plan == "warm-up"]
    each = ", ".join(
        f"{turn.plan} {turn.cpu_per_request_ms:.2f} ({turn.busiest:.0%})"
        for turn in turns[1:]
        if turn.plan != "warm-up"
    )
    print(
        f"CPU ms per request: bare {turns[0].cpu_per_request_ms:.2f} before the mix; "
        f"after it, turn by turn (the busiest worker's share of it): {each}"
    )
    for turn in warm:
        print(
            f"catalogue warm-up before the turns (every page {WARM_READS} times, "
            f"{WARM_AT_ONCE} at a time): {turn.requests} requests ({turn.refused} refused with "
            f"429), server CPU {turn.cpu_per_request_ms:.2f} ms per request"
        )
    print(f"catalogue CPU per request: {ratio:.2f}x the bare endpoint's")
    server_errors = sum(n for s, n in tally.statuses.items() if s >= 500) - tally.shed
    print(f"statuses: {dict(sorted(tally.statuses.items()))}")
    shed = sum(p.tally.shed for p in (catalogue, mix))
    asked = catalogue.requests + mix.requests
    print(
        f"errors: {server_errors} 5xx, {tally.transport_errors} transport; "
        f"shed (503, Retry-After): {shed} of {asked} ({shed / max(1, asked):.2%}); "
        f"refused for stock (expected): {tally.out_of_stock}"
    )
    if tally.latencies.get("catalogue"):
        mean = statistics.fmean(tally.latencies["catalogue"]) * 1000
        print(f"catalogue mean {mean:.1f} ms")


def run_fast(main: Coroutine[Any, Any, T]) -> T:
    """Run on uvloop when it is installed (the server uses it too): less CPU per request taken
    from the server by the load generator."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(main)
    return uvloop.run(main)


def wait_for_fresh_window(margin: float = 15.0) -> None:
    """Sleep into a new minute if the current one is nearly over: the burst must fit in one."""
    into = time.time() % 60
    if into > 60 - margin:
        time.sleep(60 - into + 0.5)


def load_and_audit(
    engine: Engine, url: str, base: str, log: Path, args: argparse.Namespace
) -> tuple[list[Phase], list[tuple[str, bool, str]]]:
    """Seed, serve the bare endpoint and the companion, load (the mix, then the catalogue alone
    and the bare endpoint in turns), burst, stop the servers (always), report, audit."""
    store_id, keys, hot, cool, slugs = seed(engine)
    with engine.connect() as conn:
        initial = {
            r.id: r.stock
            for r in conn.execute(select(variants.c.id, variants.c.stock)).all()
            if r.stock is not None
        }
    burst_key = keys.pop()
    print(
        f"loadtest: {len(slugs)} products, {len(hot)} hot variants of {HOT_STOCK} units; "
        f"starting {args.workers} workers on {base}",
        file=sys.stderr,
    )
    shop = Shop(base, keys, hot, cool, slugs)
    bare_shop = Shop(f"http://127.0.0.1:{args.port + 1}", keys, [], [], [])
    bare_log = log.with_name(f"{log.stem}-bare.log")
    bare_server = start_bare(args.port + 1, args.workers, bare_log)
    try:
        wait_ready(bare_shop.base, bare_server, path="/bare", log=bare_log, workers=args.workers)
        server = start_server(url, args.port, args.workers, log, chain_bypass=args.chain_bypass)
        try:
            wait_ready(base, server, log=log, workers=args.workers)
            bare_workers = descendants(bare_server.pid)
            shops = {"catalogue": shop, "bare": bare_shop}
            workers = {"catalogue": descendants(server.pid), "bare": bare_workers}
            _, ahead = run_fast(take_turns({"bare": bare_shop}, workers, args, ("bare",)))
            mix = measure_mix(server, shop, args)
            # After the mix, so that it runs on warm workers (pools open, keys cached).
            phases, turns = run_fast(take_turns(shops, workers, args))
            wait_for_fresh_window()
            burst_seen = asyncio.run(burst(base, burst_key, RATE_PER_MINUTE + BURST_EXTRA))
        finally:
            stop(server)
    finally:
        stop(bare_server)
    bare_log.unlink(missing_ok=True)
    bare, catalogue = phases["bare"], phases["catalogue"]
    if bare.tally.statuses.get(200, 0) != bare.requests:
        raise SystemExit(f"loadtest: the bare endpoint answered {dict(bare.tally.statuses)}")
    report(bare, catalogue, mix, [*ahead, *turns], args)
    checks = audit(engine, store_id, mix.tally, initial, burst_seen, args.workers)
    return [bare, catalogue, mix], checks


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", required=True, help="PostgreSQL server URL (loopback)")
    parser.add_argument("--shoppers", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=60.0, help="the full mix (default 60)")
    parser.add_argument(
        "--probe-seconds",
        type=float,
        default=30.0,
        help="the catalogue alone and the bare baseline, in turns after the mix (default 30 each)",
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument(
        "--think",
        type=float,
        nargs=2,
        default=(1.0, 5.0),
        metavar=("MIN", "MAX"),
        help="seconds a shopper pauses between actions (default 1 5)",
    )
    parser.add_argument(
        "--no-chain-bypass",
        dest="chain_bypass",
        action="store_false",
        help="every request down the middleware chain (to measure what the bypass saves)",
    )
    args = parser.parse_args(argv)
    host = make_url(database_url(args.server)).host or ""
    if host not in ("127.0.0.1", "localhost", "::1", ""):
        print(f"loadtest: the database must be on loopback, not {host}", file=sys.stderr)
        return 2

    # Counted and timed before the servers start: it runs in this process.
    bytecodes = kept_read_bytecodes()
    cold = cold_kept_read()
    name = f"storefront_loadtest_{os.getpid()}"
    url, engine = prepare(args.server, name)
    base = f"http://127.0.0.1:{args.port}"
    log = Path(tempfile.gettempdir()) / f"storefront-loadtest-{os.getpid()}.log"
    try:
        phases, checks = load_and_audit(engine, url, base, log, args)
    finally:
        engine.dispose()
        drop_database(args.server, name)
    print(
        f"Python bytecodes of one kept catalogue read (in-process, uvicorn's own not counted): "
        f"{bytecodes.bypass.total} past the chain, {bytecodes.chain.total} down it"
    )
    print(
        f"one kept catalogue read in-process with the caches cold (medians of {cold.reads}): "
        f"{cold.companion_us:.1f} µs, the bare endpoint's {cold.bare_us:.1f} µs "
        f"({cold.companion_us / cold.bare_us:.2f}x); in a loop {cold.warm_us:.1f} µs"
    )
    print("\naudit:")
    for title, ok, detail in checks:
        print(f"  [{'ok' if ok else 'FAIL'}] {title}: {detail}")
    server_errors = [line for phase in phases for line in phase.tally.server_errors]
    for line in server_errors[:10]:
        print(f"  5xx: {line}")
    failed = [t for t, ok, _ in checks if not ok]
    if failed or server_errors:
        print(f"loadtest: FAILED ({len(failed)} checks, server log {log})", file=sys.stderr)
        return 1
    log.unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
