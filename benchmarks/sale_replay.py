"""The sale benchmark's replay: recorded page views, a greedy client and purchases at once.

The replay speaks to the session service as the site's proxy does (from 127.0.0.1, which it
trusts): each simulated visitor's address in X-Forwarded-For, the site's host and scheme in
X-Forwarded-Host/-Proto, its Origin on writes. Every request carries an X-Request-Id naming
what sent it (``v.<type>.<view>.<n>``, ``p.<purchase>.<n>``, ``g.<n>``); the session service
sends that id on with its API calls, so the companion's request log says what each request
reaching the key was for. An API call without one of these ids (an activity call the service
forwarded later under an id of its own) is counted by its path.

- Page views leave on a fixed schedule (open loop): product views at the given rate, the other
  types at their share of it (``MIX``); each view sends its recorded calls at once, as a page's
  islands do, the product ids of product views drawn from the store's product pages, a fresh
  visitor token in place of the recorded one. A visitor makes ``VIEWS_PER_VISITOR`` views.
- The greedy client: one address, ``GREEDY_CONCURRENCY`` requests in flight, reading
  ``GREEDY_PATH`` for product after product for the whole run, never waiting.
- Purchases, spread over the run: each sends the recorded purchase's calls in order with its
  own cart: the cart token, checkout id and other tokens the recording's answers held are
  replaced by those of its own answers, the recorded variant by one of its own, a new
  Idempotency-Key wherever one was sent. A call answered 429 or 503 is tried again after
  its Retry-After (as the shopper would press again), ``PURCHASE_TRIES`` times at most; the
  purchase is complete when its every buying call succeeded.
- ``GRACE_SECONDS`` after the last view left, whatever still waits for an answer is given up
  (counted as unanswered), so a machine that cannot keep up still ends the run.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode

from benchmarks.loadtest_http import LeanClient, TransportError
from benchmarks.sale_record import is_activity

#: Views of each other page type per product view (a store's traffic in a sale: most views are
#: product pages, reached from the home page, categories and collections).
MIX = {"home": 0.3, "category": 0.3, "collection": 0.1, "article": 0.05, "cms-page": 0.05}
VIEWS_PER_VISITOR = 5
GREEDY_PATH = "/session/api/products/{id}/variants"
GREEDY_CONCURRENCY = 16
PURCHASES = 20
PURCHASE_TRIES = 3
#: Answers a shopper meets by trying again: the key's limit, a server too busy for now.
TRIED_AGAIN = frozenset({429, 503})
#: The longest Retry-After a purchase waits before trying again, in seconds.
RETRY_CAP = 30.0
#: Seconds after the last view left that the replay waits for answers still to come.
GRACE_SECONDS = 60.0
SITE_HOST = "shop.bench"
GOLDEN = 0.6180339887498949
ORIGIN = f"http://{SITE_HOST}"
CART_COOKIE = "service_cart"
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")

Call = dict[str, Any]


@dataclass
class Tally:
    """What one kind of sender saw: calls by status, and its views or purchases."""

    calls: Counter[int] = field(default_factory=Counter)
    activity_calls: int = 0
    units: int = 0  # views, or purchases
    unanswered: int = 0  # calls still waiting for an answer when the run ended
    activity_answered: int = 0  # activity calls the session service answered

    @property
    def refused(self) -> int:
        return self.calls[429]


@dataclass
class PurchaseResult:
    complete: bool = False
    seconds: float = 0.0
    refused: int = 0  # 429 answers seen
    failed_at: str = ""  # method and path of the call that failed, with its status


@dataclass
class Replay:
    views: dict[str, Tally] = field(default_factory=dict)
    greedy: Tally = field(default_factory=Tally)
    buying: Tally = field(default_factory=Tally)  # the purchases' calls
    purchases: list[PurchaseResult] = field(default_factory=list)
    seconds: float = 0.0
    late_views: int = 0  # views that left more than a second after their time
    rate_limit: str = ""  # the RateLimit-Limit header the API sent back


def visitor_address(number: int, first: int = 10) -> str:
    return f"{first}.{(number >> 16) & 255}.{(number >> 8) & 255}.{number & 255}"


def schedule(rate: float, seconds: float, mix: dict[str, float]) -> list[tuple[float, str]]:
    """(when, page type) of every view: product views at ``rate`` a minute, evenly spaced, each
    other type at its share of that rate, offset so that types do not leave together."""
    views = []
    for offset, (kind, share) in enumerate({"product": 1.0, **mix}.items()):
        per_second = rate * share / 60
        if per_second <= 0:
            continue
        gap = 1 / per_second
        at = gap * ((offset + 1) * GOLDEN % 1)  # first views spread, never in step
        while at < seconds:
            views.append((at, kind))
            at += gap
    return sorted(views)


def substitute(call: Call, tokens: dict[str, str], ids: dict[str, str]) -> tuple[str, Any]:
    """``call``'s path with query and its JSON body, with the recording's tokens (``tokens``:
    any string equal to one) and ids (``ids``: a path segment after ``product``/``products``,
    a body value under a key ending in ``id``) replaced."""
    path, _, query = str(call["path"]).partition("?")
    segments = path.split("/")
    for at in range(1, len(segments)):
        if segments[at - 1] in ("product", "products") and segments[at] in ids:
            segments[at] = ids[segments[at]]
    segments = [tokens.get(s, s) for s in segments]
    new_path = "/".join(segments)
    if query:
        pairs = [(k, tokens.get(v, ids.get(v, v) if k.endswith("id") else v))
                 for k, v in parse_qsl(query, keep_blank_values=True)]  # fmt: skip
        new_path += "?" + urlencode(pairs)
    body = json.loads(call["body"]) if call.get("body") else None
    return new_path, _replaced(body, tokens, ids, "")


def _replaced(value: Any, tokens: dict[str, str], ids: dict[str, str], key: str) -> Any:
    if isinstance(value, dict):
        return {k: _replaced(v, tokens, ids, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_replaced(v, tokens, ids, key) for v in value]
    if isinstance(value, str):
        return tokens.get(value, value)
    if isinstance(value, int) and not isinstance(value, bool) and key.endswith("id"):
        new = ids.get(str(value))
        return int(new) if new is not None and new.isdigit() else value
    return value


def learn(recorded: Any, answered: Any, tokens: dict[str, str]) -> None:
    """Tokens of the recording's answer (strings of 8 characters or more) that this answer
    holds in their place: later calls send the new one."""
    if isinstance(recorded, dict) and isinstance(answered, dict):
        for key, value in recorded.items():
            learn(value, answered.get(key), tokens)
    elif isinstance(recorded, list) and isinstance(answered, list):
        for old, new in zip(recorded, answered, strict=False):
            learn(old, new, tokens)
    elif (
        isinstance(recorded, str)
        and isinstance(answered, str)
        and len(recorded) >= 8
        and recorded != answered
        and recorded not in tokens
    ):
        tokens[recorded] = answered


def fresh_visitor_tokens(calls: list[Call]) -> dict[str, str]:
    """A new value for each visitor token (a UUID) the recorded calls send."""
    found: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, str) and _UUID.match(value):
            found.add(value)

    for call in calls:
        walk(json.loads(call["body"]) if call.get("body") else None)
        for _, value in parse_qsl(str(call["path"]).partition("?")[2]):
            walk(value)
    return {old: str(uuid.uuid4()) for old in found}


def cart_from(headers: dict[str, str]) -> str | None:
    cookie = headers.get("set-cookie", "")
    match = re.search(CART_COOKIE + r"=([^;]*)", cookie)
    return match.group(1) if match else None


class Sender:
    """The requests of one simulated visitor, through the session service."""

    def __init__(self, client: LeanClient, address: str, replay: Replay) -> None:
        self.client, self.address, self.replay = client, address, replay
        self.cart: str | None = None

    async def send(self, method: str, path: str, body: Any, request_id: str, *,
                   idempotent: bool = False) -> tuple[int, dict[str, str], Any]:  # fmt: skip
        headers = {
            "X-Forwarded-For": self.address,
            "X-Forwarded-Host": SITE_HOST,
            "X-Forwarded-Proto": "http",
            "X-Request-Id": request_id,
            "Accept": "application/json",
        }
        if method not in ("GET", "HEAD"):
            headers["Origin"] = ORIGIN
            if body is None:
                headers["Content-Type"] = "application/json"
        if idempotent:
            headers["Idempotency-Key"] = str(uuid.uuid4())
        if self.cart:
            headers["Cookie"] = f"{CART_COOKIE}={self.cart}"
        try:
            answer = await self.client.request(method, path, headers=headers, json=body)
        except TransportError:
            return 0, {}, None
        if not self.replay.rate_limit and answer.headers.get("ratelimit-limit"):
            self.replay.rate_limit = answer.headers["ratelimit-limit"]
        self.cart = cart_from(answer.headers) or self.cart
        try:
            data = answer.json() if answer.content else None
        except ValueError:
            data = None
        return answer.status_code, answer.headers, data


async def view(
    sender: Sender, kind: str, number: int, calls: list[Call], ids: dict[str, str], tally: Tally
) -> None:
    tokens = fresh_visitor_tokens(calls)

    async def one(index: int, call: Call) -> None:
        path, body = substitute(call, tokens, ids)
        tally.activity_calls += bool(call["activity"])
        try:
            status, _, _ = await sender.send(
                call["method"], path, body, f"v.{kind}.{number}.{index}"
            )
        except asyncio.CancelledError:
            tally.unanswered += 1
            raise
        tally.calls[status] += 1
        tally.activity_answered += bool(call["activity"]) and status != 0

    tally.units += 1
    await asyncio.gather(*(one(n, call) for n, call in enumerate(calls)))


async def purchase(sender: Sender, number: int, recording: dict[str, Any], variant: str,
                   tally: Tally, result: PurchaseResult) -> PurchaseResult:  # fmt: skip
    """The recorded purchase with its own cart; ``result`` holds how far it got, when the run
    ends before it does."""
    calls: list[Call] = recording["calls"]
    tokens = fresh_visitor_tokens(calls)
    ids = {str(recording["variant_id"]): variant}
    pending: list[asyncio.Task[Any]] = []
    started = time.monotonic()
    tally.units += 1
    for index, call in enumerate(calls):
        if sender.cart and recording.get("cart_token"):
            tokens[str(recording["cart_token"])] = sender.cart
        path, body = substitute(call, tokens, ids)
        request_id = f"p.{number}.{index}"
        if call["activity"]:  # sent and not waited for, as a page sends it
            tally.activity_calls += 1
            pending.append(asyncio.create_task(_counted(sender, call, path, body, request_id,
                                                        tally)))  # fmt: skip
            continue
        result.failed_at = f"{call['method']} {shape(path)} unanswered when the run ended"
        result.seconds = time.monotonic() - started
        for attempt in range(PURCHASE_TRIES):
            status, headers, data = await sender.send(
                call["method"], path, body, f"{request_id}.{attempt}",
                idempotent=bool(call["idempotent"]),
            )  # fmt: skip
            tally.calls[status] += 1
            if status not in TRIED_AGAIN:
                break
            result.refused += status == 429
            await asyncio.sleep(min(_retry_after(headers), RETRY_CAP))
        if status >= 400 or status == 0:
            if status != call.get("status"):
                await asyncio.gather(*pending)
                result.failed_at = f"{call['method']} {shape(path)} {status}"
                result.seconds = time.monotonic() - started
                return result
        learn(call.get("answer"), data, tokens)
    result.complete, result.failed_at = True, ""
    result.seconds = time.monotonic() - started
    await asyncio.gather(*pending)
    return result


async def _counted(sender: Sender, call: Call, path: str, body: Any, request_id: str,
                   tally: Tally) -> None:  # fmt: skip
    status, _, _ = await sender.send(call["method"], path, body, request_id)
    tally.calls[status] += 1
    tally.activity_answered += status != 0


def _retry_after(headers: dict[str, str]) -> float:
    try:
        return max(float(headers.get("retry-after", "1")), 0.1)
    except ValueError:
        return 1.0


async def greedy(
    client: LeanClient,
    product_ids: list[str],
    until: float,
    replay: Replay,
    path: str = GREEDY_PATH,
    concurrency: int = GREEDY_CONCURRENCY,
) -> None:
    sender = Sender(client, "10.250.0.1", replay)
    counter = iter(range(10**9))

    async def worker() -> None:
        while time.monotonic() < until:
            n = next(counter)
            target = path.format(id=product_ids[n % len(product_ids)])
            status, _, _ = await sender.send("GET", target, None, f"g.{n}")
            replay.greedy.calls[status] += 1
            replay.greedy.units += 1

    await asyncio.gather(*(worker() for _ in range(concurrency)))


async def replay_sale(
    session: str,
    recording: dict[str, Any],
    *,
    rate: float,
    seconds: float,
    product_ids: list[str],
    variants: list[str],
    purchases: int = PURCHASES,
    mix: dict[str, float] | None = None,
    greedy_path: str = GREEDY_PATH,
    greedy_concurrency: int = GREEDY_CONCURRENCY,
    grace: float = GRACE_SECONDS,
    seed: int = 54,
) -> Replay:
    """Page views at ``rate`` product views a minute for ``seconds``, the greedy client, and
    ``purchases`` purchases spread over the run (``variants``: one for each); ``grace``
    seconds after the last view left, what still waits for an answer is given up."""
    mix = MIX if mix is None else mix
    pages: dict[str, dict[str, Any]] = recording["pages"]
    plan = [(at, kind) for at, kind in schedule(rate, seconds, mix) if kind in pages]
    result = Replay(views={kind: Tally() for kind in pages})
    rng = random.Random(seed)
    product = str(pages.get("product", {}).get("entity_id"))
    async with (
        LeanClient(session, max_connections=512, timeout=120) as views_client,
        LeanClient(session, max_connections=greedy_concurrency, timeout=120) as greedy_client,
        LeanClient(session, max_connections=purchases, timeout=120) as buyers,
    ):
        started = time.monotonic()
        tasks: list[asyncio.Task[Any]] = [
            asyncio.create_task(
                greedy(
                    greedy_client,
                    product_ids,
                    started + seconds,
                    result,
                    greedy_path,
                    greedy_concurrency,
                )
            )  # fmt: skip
        ]
        result.purchases = [PurchaseResult() for _ in range(purchases)]
        buying = [
            asyncio.create_task(_purchase_at(buyers, started + (k + 0.5) * seconds / purchases,
                                             k, recording["purchase"], variants[k], result))
            for k in range(purchases)
        ]  # fmt: skip
        for number, (at, kind) in enumerate(plan):
            delay = started + at - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            elif delay < -1:
                result.late_views += 1
            ids = {product: rng.choice(product_ids)} if kind == "product" else {}
            sender = Sender(views_client, visitor_address(number // VIEWS_PER_VISITOR), result)
            calls = pages[kind]["calls"]
            tasks.append(asyncio.create_task(
                view(sender, kind, number, calls, ids, result.views[kind])))  # fmt: skip
        deadline = started + seconds + grace
        _, unfinished = await asyncio.wait(
            [*buying, *tasks], timeout=max(deadline - time.monotonic(), 0.0)
        )
        for task in unfinished:
            task.cancel()
        await asyncio.gather(*unfinished, return_exceptions=True)
        result.seconds = time.monotonic() - started
    return result


async def _purchase_at(client: LeanClient, at: float, number: int, recording: dict[str, Any],
                       variant: str, replay: Replay) -> PurchaseResult:  # fmt: skip
    await asyncio.sleep(max(0.0, at - time.monotonic()))
    sender = Sender(client, visitor_address(number + 1, first=11), replay)
    progress = replay.purchases[number]
    return await purchase(sender, number, recording, variant, replay.buying, progress)


def attribute(lines: list[dict[str, Any]]) -> dict[str, Counter[str]]:
    """The API's request lines by sender (``v.<type>``, ``purchase``, ``greedy``, or
    ``unnamed``) and kind (``showing``/``activity``, and ``429`` for those the API refused)."""
    counts: dict[str, Counter[str]] = {}
    for line in lines:
        rid, path = str(line.get("request_id", "")), str(line.get("path", ""))
        parts = rid.split(".")
        if parts[0] == "v" and len(parts) >= 3:
            sender = parts[1]
        elif parts[0] == "p" and len(parts) >= 3:
            sender = "purchase"
        elif parts[0] == "g" and len(parts) == 2:
            sender = "greedy"
        else:
            sender = "unnamed"
        kind = "activity" if is_activity(path) else "showing"
        tally = counts.setdefault(sender, Counter())
        tally[kind] += 1
        if line.get("status") == 429:
            tally["429"] += 1
    return counts


def shape(path: str) -> str:
    """A call's path with ids and tokens left out: ``/session/api/products/{id}/variants``."""
    bare, _, query = path.partition("?")
    parts = ["{id}" if p.isdigit() or p.startswith("chk_") else p for p in bare.split("/")]
    keys = sorted({pair.split("=")[0] for pair in query.split("&") if pair})
    return "/".join(parts) + ("?" + "&".join(keys) if keys else "")
