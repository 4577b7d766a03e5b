"""`storefront build` end to end: the embedded demo, the summary, and failures that lose nothing."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from generator.cli import main

REPO = Path(__file__).resolve().parents[2]


def build(tmp_path: Path, out: Path, *extra: str) -> int:
    return main(
        [
            "build",
            "--out", str(out),
            "--cache-dir", str(tmp_path / "cache"),
            "--demo-products", "20",
            "--xstore", str(tmp_path / "no-xstore.json"),
            *extra,
        ]
    )  # fmt: skip


@pytest.fixture(autouse=True)
def _no_environment_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "STOREFRONT_API_URL",
        "STOREFRONT_API_KEY",
        "STOREFRONT_OUT",
        "STOREFRONT_SITE_URL",
    ):
        monkeypatch.delenv(name, raising=False)


def test_first_build_needs_no_configuration_and_prints_a_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "site"
    assert build(tmp_path, out) == 0
    assert (out / "index.html").is_file() and (out / "sitemap.xml").is_file()
    assert (out / "robots.txt").read_text().startswith("User-agent: *")
    summary = capsys.readouterr().out
    for line in ("pages: product", "API requests", "429 answers", "items skipped", "seconds"):
        assert line in summary


def test_template_error_is_one_line_and_keeps_the_previous_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "site"
    assert build(tmp_path, out) == 0
    before = (out / "index.html").read_bytes()
    theme = tmp_path / "theme"
    shutil.copytree(REPO / "site-templates", theme)
    product = theme / "product.html"
    source = product.read_text()
    assert "{% block content %}" in source
    product.write_text(
        source.replace("{% block content %}", "{% block content %}{{ no_such_variable.field }}", 1)
    )
    capsys.readouterr()

    code = build(tmp_path, out, "--templates", str(theme))

    assert code != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("storefront build: error:") and "product.html" in err[-1]
    assert "Traceback" not in "\n".join(err)
    assert (out / "index.html").read_bytes() == before


def test_api_url_without_a_key_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = build(tmp_path, tmp_path / "site", "--api-url", "http://127.0.0.1:9/public/v1")
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "STOREFRONT_API_KEY" in err
