"""A url the site cannot use is treated as null: the build goes on, says so, and the audit fails.

The spec: a url is a usable path or null. The small fake store, served over loopback HTTP, is
given urls that are neither (another scheme, another host, protocol-relative, a backslash, a
control character), one on each kind of record that carries a url; the real command builds it
in a subprocess. The build must succeed, write no page for those records and no link to those
urls, list each in its summary, and leave what `storefront audit --strict` needs to fail
naming them; a later build without them leaves nothing behind.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.hostile.test_build_upstream import run_build
from tests.support.demo_build import REPO
from tests.support.fakeapi import FakeApi, FakeData, small_store
from tests.support.hostile_server import serving

SITE_URL = "https://shop.example.vn"
JAVASCRIPT = "javascript:alert(document.domain)//"


def hostile_store() -> FakeData:
    """The small store with an unusable url on a record of every kind that carries one."""
    data = small_store()
    data.products[0]["url"] = JAVASCRIPT  # the issue's own
    data.products[4]["url"] = "https://evil.test/phish"  # a page on another host
    data.categories[1]["url"] = "//evil.test/quan"  # protocol-relative
    data.pages[1]["url"] = "javascript:alert(2)"  # reached only through the sitemap
    data.pages[2]["url"] = "/trang/chinh\\sach"  # a backslash
    data.articles[1]["slug"] = "bai\x072"  # its path /bai-viet/<slug> holds a control character
    data.routes["/bo-suu-tap/%2e%2e"] = ("collection", 3)  # a dot segment, once decoded
    data.menus[0]["items"][0]["url"] = "javascript:alert(3)"
    data.banners[0]["link_url"] = "data:text/html,<script>alert(4)</script>"
    data.promotions[0]["link_url"] = "/\\evil.test/x"  # read by browsers as //evil.test/x
    return data


#: What the summary and the audit must name: each record, and the url it had.
NAMED = (
    ("product 1", JAVASCRIPT),
    ("product 5", "https://evil.test/phish"),
    ("category 2", "//evil.test/quan"),
    ("javascript:alert(2)",),
    ("page 3", "/trang/chinh\\\\sach"),
    ("article 2",),
    ("collection 3", "/bo-suu-tap/%2e%2e"),
    ("javascript:alert(3)",),
    ("banner 1", "data:text/html"),
    ("promotion 1", "/\\\\evil.test/x"),
)
#: Pages the store had at the urls it no longer has: none may be written.
GONE = ("san-pham-1.html", "san-pham-5.html", "quan.html", "trang/lien-he.html")
#: Written as a link, any of these would take a shopper off the site or run a script.
_BAD_HREF = re.compile(r"""href=["']?\s*(?:javascript:|data:|//|/\\|[^"'>]*evil\.test)""", re.I)


@dataclass(frozen=True)
class Built:
    out: Path
    cache: Path
    result: subprocess.CompletedProcess[str]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Built]:
    base = tmp_path_factory.mktemp("unusable")
    with serving(FakeApi(hostile_store()).handle) as served:
        result = run_build(served.base_url, base / "out", base / "cache")
    yield Built(base / "out", base / "cache", result)


def audit(out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "generator", "audit", str(out), "--site-url", SITE_URL]
    environ = {k: v for k, v in os.environ.items() if not k.startswith("STOREFRONT_")}
    return subprocess.run(
        [*command, *extra],
        cwd=REPO,
        env={**environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_build_goes_on_without_a_page_or_a_link_for_them(built: Built) -> None:
    assert built.result.returncode == 0, built.result.stderr[-2000:]
    pages = {str(p.relative_to(built.out)) for p in built.out.rglob("*.html")}
    assert "index.html" in pages and "san-pham-2.html" not in pages  # null url: no page
    assert not pages & set(GONE)
    assert not any("evil" in page or "javascript" in page or "\\" in page for page in pages)
    for page in built.out.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        assert not _BAD_HREF.search(html), (page, _BAD_HREF.search(html))
        assert "\x07" not in html
    # The records are still shown, as plain text.
    assert "Sản phẩm 1" in (built.out / "san-pham.html").read_text(encoding="utf-8")


def test_the_summary_warns_of_each(built: Built) -> None:
    assert built.result.returncode == 0, built.result.stderr[-2000:]
    warnings = [line for line in built.result.stdout.splitlines() if "warning" in line]
    for named in NAMED:
        assert any(all(part in line for part in named) for line in warnings), (named, warnings)
    assert len(warnings) == len(NAMED), warnings
    assert "\x07" not in built.result.stdout


def test_the_audit_fails_under_strict_naming_each(built: Built) -> None:
    assert built.result.returncode == 0, built.result.stderr[-2000:]
    lenient, strict = audit(built.out), audit(built.out, "--strict")
    found = [line for line in strict.stdout.splitlines() if "url-unusable" in line]
    assert strict.returncode == 1, strict.stdout[-3000:]
    assert found, strict.stdout[-3000:]
    report = strict.stdout
    for named in NAMED:
        assert all(part in report for part in named), (named, report[-3000:])
    assert "url-unusable" in lenient.stdout and "Traceback" not in lenient.stderr


def test_a_build_without_them_leaves_no_finding_behind(built: Built, tmp_path: Path) -> None:
    assert built.result.returncode == 0, built.result.stderr[-2000:]
    # The next build of that output, from its cache, the urls mended.
    out, cache = tmp_path / "out", tmp_path / "cache"
    shutil.copytree(built.out, out)
    shutil.copytree(built.cache, cache)
    with serving(FakeApi(small_store()).handle) as served:
        result = run_build(served.base_url, out, cache)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "warning" not in result.stdout
    assert "url-unusable" not in audit(out, "--strict").stdout
    assert (out / "san-pham-1.html").is_file()
