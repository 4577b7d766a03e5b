"""A revoked key is refused by every worker of a two-worker server from the first request
after `storefront api keys revoke` returns, and the refusals are logged with their reason. On
PostgreSQL when the suite runs there, else on SQLite."""

from __future__ import annotations

import json
import time
from itertools import count
from pathlib import Path

import httpx
import pytest

from tests.companion.conftest import PREFIX
from tests.companion.databases import fresh_database
from tests.companion.test_cli import run
from tests.companion.test_server import running_api

_ids = count()


def log_lines(log: Path) -> dict[str, dict[str, object]]:
    """request id -> its line in the request log (a line still being written is left out)."""
    text = log.read_text()
    whole = text[: text.rfind("\n") + 1]
    lines = [json.loads(x) for x in whole.splitlines() if x.startswith("{")]
    return {str(line["request_id"]): line for line in lines}


def on_both(base: str, log: Path, path: str, key: str) -> list[tuple[int, dict[str, object]]]:
    """GET ``path`` with ``key`` on new connections, eight at a time, until each worker answered
    it twice: every answer's status with its log line, in the order they were sent."""
    answers: list[tuple[str, int]] = []
    for _ in range(25):
        batch = []
        for _ in range(8):
            request_id = f"k-{next(_ids)}"
            response = httpx.get(
                f"{base}{PREFIX}{path}",
                headers={"X-Request-Id": request_id, "X-Service-Key": key},
            )
            answers.append((request_id, response.status_code))
            batch.append(request_id)
        deadline = time.monotonic() + 5
        while not set(batch) <= log_lines(log).keys() and time.monotonic() < deadline:
            time.sleep(0.05)
        lines = log_lines(log)
        workers = [lines[r]["worker"] for r, _ in answers if r in lines]
        if len(set(workers)) == 2 and all(workers.count(w) >= 2 for w in set(workers)):
            return [(status, lines[r]) for r, status in answers]
    raise AssertionError("one worker answered every request")


def test_a_revoked_key_is_refused_by_every_worker_once_the_command_returns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with (
        fresh_database(tmp_path) as database,
        running_api(tmp_path, workers=2, database=database) as (base, _),
    ):
        log = tmp_path / "server.log"
        assert run("api", "keys", "create", "--db", database, "--name", "web") == 0
        out = capsys.readouterr().out
        key, key_id = out.splitlines()[-1], out.split()[2]
        first = httpx.get(f"{base}{PREFIX}/products", params={"limit": 1}).json()["items"][0]
        for path in ("/store", f"/products/{first['id']}"):  # each worker now knows the key
            assert {status for status, _ in on_both(base, log, path, key)} == {200}

        assert run("api", "keys", "revoke", "--db", database, key_id) == 0
        for path in (f"/products/{first['id']}", "/store"):
            refused = on_both(base, log, path, key)
            assert [status for status, _ in refused] == [401] * len(refused)
            assert {line["refused"] for _, line in refused} == {"revoked_key"}
