"""`storefront build` against a broken or hostile API: every case fails the way a user can act on.

Each case serves the small fake store over loopback HTTP with one answer made bad, runs the
real command in a subprocess over an output a good build wrote, and checks: a non-zero exit,
one error line on stderr naming the endpoint, no traceback anywhere, and the previous output
unchanged, byte for byte. The limits are the command's own settings, made small
(``--max-answer-mb``, ``--request-deadline``, ``--max-retry-after``) so the suite stays quick.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.support.demo_build import REPO
from tests.support.fakeapi import KEY, FakeApi, Quirks, small_store
from tests.support.hostile_api import (
    Handler,
    MiB,
    Served,
    bad_gzip,
    drip,
    endless_body,
    endless_list,
    gzip_bomb,
    nested,
    padded_list_page,
    raw_json,
    with_lone_surrogate,
)
from tests.support.hostile_server import serving

#: Small limits, as flags of the command (the defaults: 32 MiB, 60 s, 900 s).
LIMITS = ["--max-answer-mb", "1", "--request-deadline", "1", "--max-retry-after", "5"]
#: A case that outlives this has not stopped "soon" (the slowest, a drip, takes two deadlines).
CASE_SECONDS = 20
CARD = {"id": 1, "name": "Sản phẩm 1", "slug": "san-pham-1", "url": "/san-pham-1", "price": 1}


@dataclass(frozen=True)
class Case:
    endpoint: str  # what the error line must name
    handler: Callable[[FakeApi], Handler]
    says: str = ""  # and what it must say about the answer


def overriding(path: str, answer: Callable[[], httpx.Response]) -> Callable[[FakeApi], Handler]:
    """The store, with requests to ``path`` answered by a new ``answer()`` each time."""

    def make(api: FakeApi) -> Handler:
        api.quirks.overrides[path] = lambda request: answer()
        return api.handle

    return make


def listing(path: str, handler: Handler) -> Callable[[FakeApi], Handler]:
    def make(api: FakeApi) -> Handler:
        api.quirks.overrides[path] = handler
        return api.handle

    return make


def failing_after(
    requests: int, answer: Callable[[], httpx.Response]
) -> Callable[[FakeApi], Handler]:
    """The store for ``requests`` requests, then ``answer()`` to every one."""

    def make(api: FakeApi) -> Handler:
        count = itertools.count(1)

        def handle(request: httpx.Request) -> httpx.Response:
            return api.handle(request) if next(count) <= requests else answer()

        return handle

    return make


def with_price(price: object) -> Callable[[FakeApi], Handler]:
    def make(api: FakeApi) -> Handler:
        api.data.products[3]["price"] = price
        return api.handle

    return make


def status(code: int, headers: dict[str, str] | None = None, **body: object) -> httpx.Response:
    problem = {"status": code, "code": "x", "detail": "refused", **body}
    return httpx.Response(code, json=problem, headers=headers)


def too_many(retry_after: str) -> Callable[[], httpx.Response]:
    return lambda: status(429, {"Retry-After": retry_after})


STORE = small_store().store
CASES: dict[str, Case] = {
    "html-for-json": Case(
        "GET /store",
        overriding(
            "/store",
            lambda: httpx.Response(
                200, text="<!doctype html><h1>Bảo trì</h1>", headers={"Content-Type": "text/html"}
            ),
        ),
        "not JSON (text/html",
    ),
    "truncated-json": Case(
        "GET /products/3",
        overriding("/products/3", lambda: raw_json('{"id": 3, "name": "Ao", "pri')),
        "the answer is not JSON (application/json, 28 bytes)",
    ),
    "wrong-types": Case(
        "GET /products?limit=100", with_price({"amount": 1}), "is not a money amount"
    ),
    "name-a-number": Case(
        "GET /store",
        overriding("/store", lambda: httpx.Response(200, json={**STORE, "name": ["a", 1]})),
        "is not text",
    ),
    "redirect-loop": Case(
        "GET /store",
        overriding("/store", lambda: httpx.Response(302, headers={"Location": "/public/v1/store"})),
        "HTTP 302",
    ),
    "401-mid-crawl": Case("GET /", failing_after(15, lambda: status(401)), "HTTP 401"),
    "retry-after-huge": Case(
        "GET /store",
        overriding("/store", too_many("999999999")),
        "longer than the 5 s a build waits",
    ),
    "retry-after-negative": Case(
        "GET /store", overriding("/store", too_many("-30")), "longer than the 5 s a build waits"
    ),
    "retry-after-not-a-number": Case(
        "GET /store", overriding("/store", too_many("soon")), "longer than the 5 s a build waits"
    ),
    "retry-after-far-date": Case(
        "GET /store",
        overriding("/store", too_many("Fri, 31 Dec 9999 23:59:59 GMT")),
        "longer than the 5 s a build waits",
    ),
    "repeated-cursor": Case(
        "GET /articles?limit=100&cursor=",
        listing("/articles", endless_list([], cursor=lambda page: "same")),
        "repeats an earlier cursor",
    ),
    "alternating-cursor": Case(
        "GET /articles?limit=100&cursor=",
        listing("/articles", endless_list([], cursor=lambda page: "ab"[page % 2])),
        "repeats an earlier cursor",
    ),
    "endless-list": Case(
        "GET /products?limit=100&cursor=",
        listing("/products", endless_list([CARD] * 100)),
        "the list went on past",
    ),
    "oversize-list": Case(
        "GET /products?limit=100",
        overriding("/products", lambda: padded_list_page(3 * MiB, Served())),
        "larger than 1 MiB",
    ),
    "endless-body": Case(
        "GET /products/3",
        overriding("/products/3", lambda: endless_body(Served(), cap=8 * MiB)),
        "larger than 1 MiB",
    ),
    "gzip-bomb": Case(
        "GET /products/3",
        overriding("/products/3", lambda: gzip_bomb(32 * MiB, Served())),
        "larger than 1 MiB",
    ),
    "slow-drip": Case(
        "GET /products/3",
        overriding("/products/3", lambda: drip(Served(), every=0.05, cap=10.0)),
        "no complete answer within 1 s",
    ),
    "deep-json": Case(
        "GET /store",
        overriding("/store", lambda: raw_json(nested(5_000))),
        "nests deeper than 100 levels",
    ),
    "lone-surrogate": Case(
        "GET /products/3",
        overriding(
            "/products/3", lambda: raw_json(with_lone_surrogate(small_store().products[2], "name"))
        ),
        "lone UTF-16 surrogate",
    ),
    "bad-gzip": Case("GET /products/4", overriding("/products/4", bad_gzip), "cannot be decoded"),
    "huge-money": Case(
        "GET /products?limit=100", with_price("1" * 30), "out of range for a money amount"
    ),
}


def run_build(
    api_url: str, out: Path, cache: Path, *extra: str
) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "generator", "build", "--api-url", api_url, "--key", KEY]
    command += ["--site-url", "https://shop.example.vn"]
    command += ["--out", str(out), "--cache-dir", str(cache), "--workers", "1", *extra]
    environ = {k: v for k, v in os.environ.items() if not k.startswith("STOREFRONT_")}
    return subprocess.run(
        command,
        cwd=REPO,
        env={**environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def snapshot(folder: Path) -> dict[str, str]:
    return {
        str(file.relative_to(folder)): hashlib.sha256(file.read_bytes()).hexdigest()
        for file in sorted(folder.rglob("*"))
        if file.is_file()
    }


@pytest.fixture(scope="module")
def good_output(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The small store built once, healthy: every case starts from a copy of it."""
    base = tmp_path_factory.mktemp("hostile-good")
    with serving(FakeApi(small_store()).handle) as served:
        result = run_build(served.base_url, base / "out", base / "cache")
    assert result.returncode == 0, result.stderr[-2000:]
    assert (base / "out" / "index.html").is_file()
    yield base / "out"


@pytest.mark.parametrize("name", list(CASES))
def test_a_bad_answer_fails_the_build_in_one_line(
    name: str, good_output: Path, tmp_path: Path
) -> None:
    case = CASES[name]
    out = tmp_path / "out"
    shutil.copytree(good_output, out)
    before = snapshot(out)
    with serving(case.handler(FakeApi(small_store(), Quirks()))) as served:
        started = time.monotonic()
        # A cache of its own: the bad answer is asked for, not replayed from the good build.
        result = run_build(served.base_url, out, tmp_path / "cache", "--full", *LIMITS)
        seconds = time.monotonic() - started
    output = result.stdout + result.stderr
    assert result.returncode != 0, output[-2000:]
    assert "Traceback" not in output
    errors = [line for line in result.stderr.splitlines() if "error" in line]
    assert len(errors) == 1, result.stderr[-2000:]
    assert errors == result.stderr.splitlines()[-1:]
    assert errors[0].startswith(f"storefront build: error: {case.endpoint}"), errors[0]
    assert case.says in errors[0]
    assert snapshot(out) == before
    assert seconds < CASE_SECONDS


def test_the_limits_are_the_commands_own_settings(good_output: Path, tmp_path: Path) -> None:
    """With its default limits the build reads a 3 MiB list page: the small limits above are
    the flags', not the fake's."""
    out = tmp_path / "out"
    shutil.copytree(good_output, out)
    big = json.dumps({"items": [], "next_cursor": None, "has_more": False}) + " " * (3 * MiB)

    def make(api: FakeApi) -> Handler:
        api.quirks.overrides["/article-categories"] = lambda request: raw_json(big)
        return api.handle

    with serving(make(FakeApi(small_store()))) as served:
        result = run_build(served.base_url, out, tmp_path / "cache", "--full")
    assert result.returncode == 0, result.stderr[-2000:]
