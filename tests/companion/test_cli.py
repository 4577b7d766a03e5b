"""`storefront api keys create|list|revoke|rotate`, and one-line errors for user mistakes."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy import Engine

from companion import cli
from companion.app import create_app
from companion.db.engine import make_engine
from companion.db.migrate import upgrade
from companion.settings import CompanionSettings
from tests.companion.conftest import PREFIX, START
from tests.companion.factory import Shop

pytestmark = pytest.mark.anyio


def run(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="storefront")
    cli.add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    code: int = args.func(args)
    return code


@pytest.fixture
def db(tmp_path: Path) -> str:
    return str(tmp_path / "shop.db")


@pytest.fixture
def engine(db: str) -> Iterator[Engine]:
    engine = make_engine(db)
    upgrade(engine)
    yield engine
    engine.dispose()


async def store_status(db: str, key: str) -> int:
    app = create_app(CompanionSettings(database=db))
    try:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            response = await client.get(f"{PREFIX}/store", headers={"X-Service-Key": key})
        return response.status_code
    finally:
        app.state.services.engine.dispose()


async def test_created_key_is_printed_once_and_opens_the_store(
    db: str, engine: Engine, capsys: pytest.CaptureFixture[str]
) -> None:
    Shop(engine, START)
    assert run("api", "keys", "create", "--db", db, "--name", "web") == 0
    key = capsys.readouterr().out.splitlines()[-1]
    assert key.startswith("pk_live_")
    assert await store_status(db, key) == 200
    assert run("api", "--db", db, "keys", "list") == 0
    listing = capsys.readouterr().out
    assert "active" in listing and "web" in listing
    assert key not in listing and key[:12] in listing


async def test_revoked_key_is_refused(
    db: str, engine: Engine, capsys: pytest.CaptureFixture[str]
) -> None:
    Shop(engine, START)
    run("api", "keys", "create", "--db", db)
    key = capsys.readouterr().out.splitlines()[-1]
    key_id = "1"
    assert run("api", "keys", "revoke", "--db", db, key_id) == 0
    assert await store_status(db, key) == 401
    run("api", "keys", "list", "--db", db)
    assert "revoked 2" in capsys.readouterr().out  # the revocation time, in wire form


def test_several_stores_need_store_option(
    db: str, engine: Engine, capsys: pytest.CaptureFixture[str]
) -> None:
    Shop(engine, START)
    second = Shop(engine, START, name="B")
    assert run("api", "keys", "create", "--db", db) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--store" in err
    assert run("api", "keys", "create", "--db", db, "--store", str(second.store_id)) == 0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("api", "keys", "create", "--store", "9"), "no store 9"),
        (("api", "keys", "create"), "make one with `storefront api stores create NAME`"),
        (("api", "keys", "revoke", "42"), "no key 42"),
        (("api", "--port", "70000"), "--port"),
        (("api", "--host", "nosuch.invalid"), "cannot listen on nosuch.invalid:8001 ("),
        (("api", "--public-url", "api.example.vn"), "--public-url"),
        (("api", "--public-url", "ftp://api.example.vn"), "--public-url"),
        (("api", "--max-body-bytes", "0"), "--max-body-bytes must be above 0"),
        (("api", "--header-timeout", "-1"), "--header-timeout must be above 0"),
        (("api", "--body-timeout", "0"), "--body-timeout must be above 0"),
        (("api", "--smtp-host", "mail.example.vn"), "--smtp-host needs --smtp-from"),
    ],
)
def test_user_errors_are_one_line_and_exit_2(
    db: str, engine: Engine, capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], message: str
) -> None:
    assert run(*argv[:1], "--db", db, *argv[1:]) == 2
    err = capsys.readouterr().err
    assert err.startswith("storefront api: error: ")
    assert message in err and err.count("\n") == 1
    assert "Traceback" not in err


def test_the_limits_on_what_clients_send_are_flags(
    db: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    served: list[CompanionSettings] = []
    monkeypatch.setattr("companion.server.serve", lambda settings, **_: served.append(settings))
    assert run("api", "--db", db) == 0
    argv = ("--max-body-bytes", "65536", "--header-timeout", "2", "--body-timeout", "5.5")
    assert run("api", "--db", db, *argv) == 0
    default, given = served
    assert default == CompanionSettings(database=db, public_url="http://127.0.0.1:8001")
    assert (given.max_body_bytes, given.header_timeout, given.body_timeout) == (65536, 2, 5.5)


def test_order_e_mails_are_settings_said_once_at_start(
    db: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    served: list[CompanionSettings] = []
    monkeypatch.setattr("companion.server.serve", lambda settings, **_: served.append(settings))
    monkeypatch.delenv("STOREFRONT_SMTP_HOST", raising=False)
    assert run("api", "--db", db) == 0
    assert capsys.readouterr().err.count("order e-mails: off") == 1
    monkeypatch.setenv("STOREFRONT_SMTP_USER", "shop")
    monkeypatch.setenv("STOREFRONT_SMTP_PASSWORD", "mat-khau")
    argv = ("--smtp-host", "mail.example.vn", "--smtp-from", "donhang@example.vn")
    assert run("api", "--db", db, *argv, "--smtp-tls", "tls", "--smtp-port", "465") == 0
    err = capsys.readouterr().err
    assert "order e-mails: from donhang@example.vn via mail.example.vn:465" in err
    assert "mat-khau" not in err
    off, on = served
    assert off.smtp_host is None
    assert (on.smtp_host, on.smtp_port, on.smtp_tls) == ("mail.example.vn", 465, "tls")
    assert (on.smtp_user, on.smtp_password) == ("shop", "mat-khau")
    assert "mat-khau" not in repr(on)


def test_unreadable_database_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    not_a_db = tmp_path / "notes.db"
    not_a_db.write_text("this is not a database, just some text " * 100)
    assert run("api", "keys", "list", "--db", str(not_a_db)) == 2
    err = capsys.readouterr().err
    assert "notes.db" in err and err.count("\n") == 1


@pytest.mark.parametrize(
    "command",
    [
        ("keys", "list"),
        ("keys", "create"),
        ("keys", "revoke", "1"),
        ("staff", "list"),
        ("webhooks", "list"),
    ],
)
def test_a_command_on_a_database_that_is_not_there_says_so_and_makes_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: tuple[str, ...]
) -> None:
    """A mistyped --db is not a new, empty store whose keys, staff or webhooks are none."""
    missing = tmp_path / "nosuch.db"
    assert run("api", *command, "--db", str(missing)) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"storefront api: error: no database at {missing}; ")
    assert err.count("\n") == 1
    assert not missing.exists()


@pytest.mark.parametrize(
    ("given", "host", "expected"),
    [
        ("https://api.example.vn/", "0.0.0.0", "https://api.example.vn"),
        ("https://shop.example.vn/api", "127.0.0.1", "https://shop.example.vn/api"),
        (None, "0.0.0.0", "http://127.0.0.1:8001"),
        (None, "::", "http://127.0.0.1:8001"),
        (None, "::1", "http://[::1]:8001"),
        (None, "10.0.0.5", "http://10.0.0.5:8001"),
    ],
)
def test_the_public_url_is_one_a_browser_can_open(
    given: str | None, host: str, expected: str
) -> None:
    assert cli._public_url(given, host, 8001) == expected


def exit_code(*argv: str) -> int:
    """``run``, or the status argparse exits with when it refuses the arguments."""
    try:
        return run(*argv)
    except SystemExit as exited:
        return int(exited.code or 0)


async def test_rotate_issues_a_new_key_and_ends_the_old_one(
    db: str, engine: Engine, capsys: pytest.CaptureFixture[str]
) -> None:
    Shop(engine, START)
    run("api", "keys", "create", "--db", db, "--name", "web")
    old = capsys.readouterr().out.splitlines()[-1]
    assert await store_status(db, old) == 200
    assert exit_code("api", "keys", "rotate", "--db", db, "1") == 0
    out = capsys.readouterr().out
    new = out.splitlines()[-1]
    assert new.startswith("pk_live_") and new != old and out.count(new) == 1
    assert await store_status(db, old) == 401
    assert await store_status(db, new) == 200
    run("api", "keys", "list", "--db", db)
    listing = capsys.readouterr().out.splitlines()
    assert "revoked" in listing[0] and "web" in listing[0]
    assert "active" in listing[1] and "web" in listing[1] and new[:12] in listing[1]
    assert exit_code("api", "keys", "rotate", "--db", db, "1") == 2  # an ended key is not rotated
    assert "revoked" in capsys.readouterr().err


@pytest.mark.parametrize("action", ["revoke", "rotate"])
def test_help_says_the_old_key_is_refused_before_the_command_returns(
    action: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert exit_code("api", "keys", action, "--help") == 0
    shown = " ".join(capsys.readouterr().out.split())
    assert "every worker refuses it before this command returns" in shown
    assert "--wait" in shown


async def test_a_secret_key_gets_the_permissions_ticked_and_opens_only_the_admin_api(
    db: str, engine: Engine, capsys: pytest.CaptureFixture[str]
) -> None:
    Shop(engine, START)
    argv = ("api", "keys", "create", "--db", db, "--secret", "--permission", "orders:read")
    assert run(*argv, "--permission", "store:read") == 0
    key = capsys.readouterr().out.splitlines()[-1]
    assert key.startswith("sk_live_")
    assert await store_status(db, key) == 401  # not on the public API
    assert run("api", "--db", db, "keys", "list") == 0
    listing = capsys.readouterr().out
    assert "secret orders:read,store:read" in listing and key not in listing
    assert run("api", "keys", "create", "--db", db, "--secret") == 2
    assert "needs --permission" in capsys.readouterr().err
    assert run("api", "keys", "create", "--db", db, "--permission", "orders:read") == 2
    with pytest.raises(SystemExit):
        run("api", "keys", "create", "--db", db, "--secret", "--permission", "orders:delete")


def test_the_merchant_e_mail_is_a_setting_said_once_at_start(
    db: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    served: list[CompanionSettings] = []
    monkeypatch.setattr("companion.server.serve", lambda settings, **_: served.append(settings))
    monkeypatch.delenv("STOREFRONT_MERCHANT_EMAIL", raising=False)
    mail = ("--smtp-host", "mail.example.vn", "--smtp-from", "donhang@example.vn")
    assert run("api", "--db", db, *mail) == 0
    assert capsys.readouterr().err.count("none to the merchant (no --merchant-email)") == 1
    monkeypatch.setenv("STOREFRONT_MERCHANT_EMAIL", "chu@example.vn")
    assert run("api", "--db", db, *mail) == 0
    assert capsys.readouterr().err.count("merchant's to chu@example.vn") == 1
    without, given = served
    assert (without.merchant_email, given.merchant_email) == (None, "chu@example.vn")
    secret = "sk_live_" + "s" * 43
    assert run("api", "--db", db, "--session-key", secret) == 2
    err = capsys.readouterr().err
    assert "never a secret key" in err and secret not in err
