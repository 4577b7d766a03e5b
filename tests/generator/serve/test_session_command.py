"""`storefront session` as a real command: its errors, and several workers in front of a real
companion process, over loopback."""

from __future__ import annotations

import json
import signal
import socket
from pathlib import Path

import httpx
import pytest

from companion.seed.demo import DEMO_KEY
from generator.cli import main
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
            assert browser.get("/public/v1/store").status_code == 404
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=45) == 0
    log = next(tmp_path.glob("session-*.log")).read_text()
    lines = [json.loads(x) for x in log.splitlines() if x.startswith("{")]
    assert any(line["path"] == "/session/me" and line["status"] == 200 for line in lines)
    assert log.count("Finished server process") == 2


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
