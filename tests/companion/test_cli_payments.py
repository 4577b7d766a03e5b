"""`storefront api --sandbox-payments` and `--site-origin`: what reaches the server's settings,
and a site origin that is not one is a one-line error."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from companion import server
from companion.server import SETTINGS_VARIABLE, settings_from_env, settings_to_env
from companion.settings import CompanionSettings
from tests.companion.test_cli import run


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> list[CompanionSettings]:
    """The settings each `storefront api` would serve with (nothing listens)."""
    seen: list[CompanionSettings] = []

    def serve(settings: CompanionSettings, **kwargs: Any) -> None:
        seen.append(settings)

    monkeypatch.setattr(server, "serve", serve)
    monkeypatch.delenv("STOREFRONT_SITE_ORIGINS", raising=False)
    return seen


def test_the_sandbox_is_asked_for_by_name_and_site_origins_are_listed(
    tmp_path: Path, served: list[CompanionSettings], monkeypatch: pytest.MonkeyPatch
) -> None:
    db = str(tmp_path / "shop.db")
    assert run("api", "--db", db) == 0
    assert run("api", "--db", db, "--sandbox-payments") == 0
    sites = ["https://shop.example.vn", "https://www.shop.example.vn/", "http://127.0.0.1:8000"]
    assert run("api", "--db", db, *[f"--site-origin={s}" for s in sites]) == 0
    monkeypatch.setenv("STOREFRONT_SITE_ORIGINS", "https://a.example.vn, https://b.example.vn")
    assert run("api", "--db", db) == 0
    assert [s.sandbox_payments for s in served] == [False, True, False, False]
    assert [s.site_origins for s in served] == [
        (),
        (),
        tuple(sites),
        ("https://a.example.vn", "https://b.example.vn"),
    ]


@pytest.mark.parametrize(
    "origin",
    [
        "shop.example.vn",
        "https://shop.example.vn/thanh-toan",
        "https://user@shop.example.vn",
        "ftp://shop.example.vn",
        "https://shop.example.vn\\",
        "https://xn--.example.vn.",
    ],
)
def test_a_site_origin_that_is_not_one_is_a_one_line_error(
    tmp_path: Path, served: list[CompanionSettings], capsys: pytest.CaptureFixture[str], origin: str
) -> None:
    assert run("api", "--db", str(tmp_path / "shop.db"), "--site-origin", origin) == 2
    err = capsys.readouterr().err
    assert err.startswith("storefront api: error: --site-origin") and err.count("\n") == 1
    assert served == []


def test_the_lists_reach_the_workers_as_tuples() -> None:
    settings = CompanionSettings(
        site_origins=("https://shop.example.vn",),
        session_origins=("https://shop.example.vn",),
        sandbox_payments=True,
    )
    assert settings_from_env({SETTINGS_VARIABLE: settings_to_env(settings)}) == settings
