"""`storefront audit` end to end through its argument parser: exit codes, files, messages."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from generator.commands import audit
from generator.errors import StorefrontError
from tests.generator.audit.fixture_site import ORIGIN, page_html, write
from tests.support.refusing_api import refusing_api


def _run(*argv: str) -> int:
    """What the CLI does: parse, run, and map a StorefrontError to its exit code and one line."""
    parser = argparse.ArgumentParser(prog="storefront")
    audit.add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["audit", *argv])
    try:
        code: int = args.func(args)
    except StorefrontError as exc:
        print(f"storefront audit: error: {exc}")
        return exc.exit_code
    return code


@pytest.fixture(autouse=True)
def _no_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in (
        "STOREFRONT_OUT",
        "STOREFRONT_SITE_URL",
        "STOREFRONT_API_URL",
        "STOREFRONT_API_KEY",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)


def test_clean_site_exits_zero_and_says_passed(
    site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run("--out", str(site)) == 0
    assert "audit passed" in capsys.readouterr().out


def test_error_exits_one(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(site, "bai-viet.html", page_html("/bai-viet", title=None))
    assert _run("--out", str(site)) == 1
    out = capsys.readouterr().out
    assert "page-title" in out
    assert "audit FAILED" in out


def test_warning_exits_one_only_under_strict(site: Path) -> None:
    (site / "robots.txt").unlink()
    assert _run("--out", str(site)) == 0
    assert _run("--out", str(site), "--strict") == 1


def test_json_and_html_reports_are_written(site: Path, tmp_path: Path) -> None:
    (site / "robots.txt").unlink()
    assert _run("--out", str(site), "--json", "r.json", "--html", "r.html") == 0
    data = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert [f["check"] for f in data["findings"]] == ["robots-txt"]
    assert "robots-txt" in (tmp_path / "r.html").read_text(encoding="utf-8")


def test_out_defaults_to_the_environment(
    site: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("STOREFRONT_OUT", str(site))
    assert _run() == 0
    assert f"Audit of {site}" in capsys.readouterr().out.replace("\n", "")


def test_out_defaults_to_xstore_static_dir(site: Path, tmp_path: Path) -> None:
    (tmp_path / "xstore.json").write_text(json.dumps({"staticDir": str(site)}), encoding="utf-8")
    assert _run() == 0


def test_missing_output_folder_is_one_line_and_exit_two(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run("--out", str(tmp_path / "nowhere")) == 2
    out = capsys.readouterr().out
    assert out.count("\n") == 1
    assert "no output folder at" in out and "storefront build" in out


def test_bad_site_url_is_exit_two(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run("--out", str(site), "--site-url", "shop.example.vn") == 2
    assert "--site-url" in capsys.readouterr().out


def test_site_url_flag_is_used(site: Path) -> None:
    assert _run("--out", str(site), "--site-url", ORIGIN) == 0
    assert _run("--out", str(site), "--site-url", "https://elsewhere.example") == 1


def test_unwritable_report_file_is_a_one_line_error(
    site: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run("--out", str(site), "--json", str(tmp_path / "no" / "dir" / "r.json")) == 1
    out = capsys.readouterr().out
    assert "--json: cannot write" in out
    assert "Audit of" not in out  # refused before the audit, not after it


def test_folder_named_like_a_page_is_not_read_as_one(site: Path) -> None:
    (site / "khuyen-mai.html").mkdir()
    assert _run("--out", str(site)) == 0


def test_the_folder_may_be_named_without_out(
    site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(str(site)) == 0
    assert f"Audit of {site}" in capsys.readouterr().out.replace("\n", "")
    assert _run(str(site), "--out", str(site.parent)) == 2


def test_storefront_toml_gives_the_site_url(site: Path, tmp_path: Path) -> None:
    """As a build reads it: the project's file, beneath a flag and the environment."""
    (tmp_path / "storefront.toml").write_text(
        'site-url = "https://elsewhere.example"\n', encoding="utf-8"
    )
    assert _run("--out", str(site)) == 1
    assert _run("--out", str(site), "--site-url", ORIGIN) == 0


def test_storefront_toml_gives_the_api_url_and_the_environment_its_key(
    site: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("STOREFRONT_API_KEY", "pk_test_audit")
    with refusing_api() as api:
        (tmp_path / "storefront.toml").write_text(f'api-url = "{api.url}"\n', encoding="utf-8")
        assert _run("--out", str(site)) != 0
    assert api.asked == [("/public/v1/sitemap", "pk_test_audit")]
    assert "GET /sitemap" in capsys.readouterr().out


def test_storefront_toml_api_url_without_a_key_audits_the_files_and_says_so(
    site: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    with refusing_api() as api:
        (tmp_path / "storefront.toml").write_text(f'api-url = "{api.url}"\n', encoding="utf-8")
        assert _run("--out", str(site)) == 0
    assert api.asked == []
    said = capsys.readouterr()
    assert "audit passed" in said.out
    assert said.err.strip() == (
        f"not comparing the sitemap with the API's: set STOREFRONT_API_KEY for {api.url} "
        "(storefront.toml api-url)"
    )
