"""`storefront build` end to end: the embedded demo, the summary, and failures that lose nothing."""

from __future__ import annotations

import json
import re
import shutil
from datetime import timedelta
from pathlib import Path

import pytest

from companion.clock import SystemClock
from generator.cli import main

REPO = Path(__file__).resolve().parents[2]


def build(tmp_path: Path, out: Path, *extra: str, cache: str = "cache") -> int:
    return main(
        [
            "build",
            "--out", str(out),
            "--cache-dir", str(tmp_path / cache),
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
    code = build(
        tmp_path,
        tmp_path / "site",
        "--api-url", "http://127.0.0.1:9/public/v1",
        "--site-url", "https://shop.example.vn",
    )  # fmt: skip
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "STOREFRONT_API_KEY" in err


def test_api_url_without_a_site_url_is_a_one_line_error_saying_how_to_set_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = build(tmp_path, tmp_path / "site", "--api-url", "http://127.0.0.1:9/public/v1")
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0
    assert "--site-url" in err and "STOREFRONT_SITE_URL" in err
    assert not (tmp_path / "site").exists()


def rendered_and_kept(err: str) -> tuple[int, int]:
    """The page counts of the line a build ends with ("rendered N pages, kept M")."""
    found = re.search(r"rendered (\d+) pages, kept (\d+)", " ".join(err.split()))
    assert found, err
    return int(found[1]), int(found[2])


def files(root: Path) -> dict[str, bytes]:
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def test_the_demo_builds_the_same_pages_whenever_it_is_built(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "site"
    assert build(tmp_path, out) == 0
    pages, kept = rendered_and_kept(capsys.readouterr().err)
    assert pages > 100 and kept == 0
    # Weeks later by the wall clock: past the end of every schedule the demo has around "now".
    later = SystemClock().now() + timedelta(days=40)
    monkeypatch.setattr(SystemClock, "now", lambda self: later)

    assert build(tmp_path, out) == 0
    assert rendered_and_kept(capsys.readouterr().err) == (0, pages)

    fresh = tmp_path / "fresh-site"
    assert build(tmp_path, fresh, cache="fresh-cache") == 0
    assert files(fresh) == files(out)


def test_builds_in_a_row_share_one_request_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each build adds the requests it sent to the log in the cache folder, which the next build
    of the same API and key counts against its windows (``client.request_log``)."""
    out = tmp_path / "site"
    assert build(tmp_path, out) == 0
    assert build(tmp_path, out) == 0
    sent = [int(n) for n in re.findall(r"API requests\s+(\d+)", capsys.readouterr().out)]
    (log,) = (tmp_path / "cache" / "requests").glob("*.json")
    assert len(sent) == 2 and len(json.loads(log.read_text())["ended"]) == sum(sent)
