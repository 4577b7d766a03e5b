"""`storefront session` as a real command: its errors, and several workers in front of a real
companion process, over loopback."""

from __future__ import annotations

import json
import signal
import socket
import time
from pathlib import Path

import httpx
import pytest

from companion.seed.demo import DEMO_KEY
from generator.cli import main
from generator.serve.service import SessionSettings
from tests.support.bodies import closed_after
from tests.support.processes import running_companion, running_session

ACCOUNT = {"email": "hoa@example.vn", "password": "mat-khau-dai", "full_name": "Hoa"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "--api-url is required"),
        (["--api-url", "ftp://x"], "is not an http(s) address"),
        (["--api-url", "http://a"], "ending in /public/v1"),
        (["--api-url", "http://a/public/v1", "--allowed-origin", "https://a/shop"], "no path"),
        (["--api-url", "http://a/public/v1", "--trusted-proxy", "nginx"], "not an IP address"),
        (["--api-url", "http://a/public/v1", "--workers", "0"], "--workers must be between"),
        (["--api-url", "http://a/public/v1", "--header-timeout", "0"], "--header-timeout must"),
        (["--api-url", "http://a/public/v1", "--max-body-bytes", "-1"], "--max-body-bytes must"),
        (["--api-url", "http://a/public/v1", "--key-share", "2"], "--key-share must"),
        (["--api-url", "http://a/public/v1", "--buying-reserve", "0.5"], "--buying-reserve must"),
        (["--api-url", "http://a/public/v1", "--rate-per-minute", "0"], "--rate-per-minute must"),
        (
            ["--api-url", "http://a/public/v1", "--activity-queue-bytes", "0"],
            "--activity-queue-bytes must",
        ),
        (["--api-url", "http://a/public/v1", "--shared-bytes", "0"], "--shared-bytes must"),
    ],
)
def test_bad_settings_end_in_one_line(
    args: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("STOREFRONT_API_URL", raising=False)
    assert main(["session", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("storefront session: error: ") and err.count("\n") == 1
    assert message in err


def test_a_secret_key_is_refused_before_anything_starts(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(ValueError, match="never a secret key"):
        SessionSettings(api_url="http://a/public/v1", key="sk_live_" + "y" * 32)
    monkeypatch.delenv("STOREFRONT_API_URL", raising=False)
    monkeypatch.setenv("STOREFRONT_SESSION_KEY", "sk_live_" + "x" * 32)
    assert main(["session", "--api-url", "http://127.0.0.1:9/public/v1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("storefront session: error: ") and err.count("\n") == 1
    assert "never a secret key" in err


def test_two_workers_in_front_of_the_companion_keep_no_session_of_their_own(
    tmp_path: Path,
) -> None:
    with (
        running_companion(tmp_path, products=6) as api_url,
        running_session(tmp_path, api_url=api_url, key=DEMO_KEY, workers=2) as (origin, process),
    ):
        with httpx.Client(base_url=origin) as browser:
            registered = browser.post("/session/register", json=ACCOUNT, headers={"Origin": origin})
            assert registered.status_code == 201, registered.text
            # Whichever worker answers, the cookies alone are the session.
            names = {browser.get("/session/me").json()["customer"]["full_name"] for _ in range(8)}
            assert names == {"Hoa"}
            assert browser.get("/session/api/store").status_code == 200
            # Each worker spends its half of the key's 600 a minute.
            budget = browser.get("/session/health").json()["budget"]
            assert budget["share"] == 0.5 and budget["minute"]["limit"] == 300
            assert browser.get("/public/v1/store").status_code == 404
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=45) == 0
    log = next(tmp_path.glob("session-*.log")).read_text()
    lines = [json.loads(x) for x in log.splitlines() if x.startswith("{")]
    assert any(line.get("path") == "/session/me" and line["status"] == 200 for line in lines)
    assert log.count("Finished server process") == 2
    # Each worker writes its activity counts as it stops.
    assert sum(line.get("event") == "session_activity" for line in lines) == 2


def test_a_slow_head_is_closed_at_the_header_deadline_while_others_are_served(
    tmp_path: Path,
) -> None:
    """`--header-timeout 2`, reaching both workers: half a request line is closed within the
    deadline and a margin, and a request on another connection is answered meanwhile."""
    deadline, margin = 2.0, 1.5
    with (
        running_companion(tmp_path, products=2) as api_url,
        running_session(
            tmp_path, api_url=api_url, key=DEMO_KEY, workers=2, extra=["--header-timeout", "2"]
        ) as (origin, _process),
    ):
        port = int(origin.rsplit(":", 1)[1])
        slow = [socket.create_connection(("127.0.0.1", port)) for _ in range(4)]
        opened = time.monotonic()
        for conn in slow:
            conn.sendall(b"GET /session/hea")
        assert httpx.get(f"{origin}/session/health", timeout=5).status_code == 200
        for conn in slow:
            with conn:
                closed_after(conn, deadline + margin - (time.monotonic() - opened))
        assert deadline - 0.2 <= time.monotonic() - opened <= deadline + margin
    log = next(tmp_path.glob("session-*.log")).read_text()
    lines = [json.loads(x) for x in log.splitlines() if x.startswith("{")]
    late = [line for line in lines if line.get("refused") == "header_timeout"]
    assert len(late) == 4 and {line["status"] for line in late} == {408}


def test_a_key_the_api_refuses_stops_the_service_before_it_listens(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with running_companion(tmp_path, products=2) as api_url, socket.socket() as taken:
        # A port in use: were the key not checked first, the service would fail to listen.
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        code = main(["session", "--api-url", api_url, "--key", "pk_live_nope", "--port", port])
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("storefront session: error: ") and err.count("\n") == 1
    assert "refuses the session's key (401" in err and "--key" in err
