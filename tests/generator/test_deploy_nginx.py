"""The shipped nginx config serving real output with a real nginx.

nginx runs as a child process with its own prefix, pid, logs and temp folders under tmp_path,
on a free loopback port, and is stopped when the test ends. `make test` installs nginx; a
developer without it gets a skip locally, but CI must run these tests.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from lxml import etree

from benchmarks.nginx import NGINX, running_nginx
from companion.seed.demo import DEMO_KEY
from generator.write.host_files import host_files, read_policy
from tests.generator.audit.fixture_site import write_clean_site
from tests.support.demo_build import REPO, build_demo_site
from tests.support.processes import running_companion, running_session

SITEMAP_NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
LONG_CACHE = "public, max-age=31536000, immutable"

pytestmark = pytest.mark.serving

if not NGINX.exists():
    if os.environ.get("CI"):
        pytest.fail("nginx is not installed: `make test` installs it", pytrace=False)
    pytest.skip("nginx is not installed (`make test` installs it)", allow_module_level=True)


FIXTURE_POLICY = "default-src 'self'; img-src 'self' https://cdn.example.vn; frame-ancestors 'self'"


@pytest.fixture(scope="module")
def fixture_nginx(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    root = write_clean_site(tmp_path_factory.mktemp("nginx-fixture") / "output")
    # The host files a build writes beside its pages (the server block includes _csp.conf).
    for name, content in host_files(FIXTURE_POLICY):
        (root / name).write_bytes(content)
    with running_nginx(root, tmp_path_factory.mktemp("nginx-fixture-run")) as base:
        yield root, base


@pytest.fixture(scope="session")
def demo_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_demo_site(tmp_path_factory.getbasetemp())


@pytest.mark.parametrize(
    ("path", "file"),
    [
        ("/", "index.html"),
        ("/bai-viet", "bai-viet.html"),  # a page beside a folder of the same name
        ("/bai-viet/chao-mung", "bai-viet/chao-mung.html"),
        ("/bai-viet/chao-mung?trang=2", "bai-viet/chao-mung.html"),
        ("/%C3%A1o-d%C3%A0i", "áo-dài.html"),
    ],
)
def test_pages_are_served_at_their_path_with_200_and_no_redirect(
    fixture_nginx: tuple[Path, str], path: str, file: str
) -> None:
    root, base = fixture_nginx
    response = httpx.get(base + path, follow_redirects=False)
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert response.headers["cache-control"] == "no-cache"
    assert response.content == (root / file).read_bytes()


@pytest.mark.parametrize(
    "path", ["/khong-co", "/bai-viet/", "/404", "/404.html", "/_headers", "/_csp.conf"]
)
def test_unknown_paths_answer_404_with_the_404_page(
    fixture_nginx: tuple[Path, str], path: str
) -> None:
    root, base = fixture_nginx
    response = httpx.get(base + path, follow_redirects=False)
    assert response.status_code == 404
    assert response.content == (root / "404.html").read_bytes()


@pytest.mark.parametrize("path", ["/", "/bai-viet/chao-mung", "/khong-co"])
def test_pages_carry_the_policy_the_build_wrote(fixture_nginx: tuple[Path, str], path: str) -> None:
    _root, base = fixture_nginx
    response = httpx.get(base + path, follow_redirects=False)
    assert response.headers["content-security-policy"] == FIXTURE_POLICY
    assert response.headers["x-content-type-options"] == "nosniff"


def test_assets_are_cached_for_a_year(fixture_nginx: tuple[Path, str]) -> None:
    _root, base = fixture_nginx
    response = httpx.get(base + "/_assets/site.css")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/css")
    assert response.headers["cache-control"] == LONG_CACHE
    assert httpx.get(base + "/_assets/khong-co.css").status_code == 404


def test_sitemap_and_robots_are_served(fixture_nginx: tuple[Path, str]) -> None:
    _root, base = fixture_nginx
    assert httpx.get(base + "/sitemap.xml").headers["content-type"].startswith("text/xml")
    assert httpx.get(base + "/robots.txt").text.startswith("User-agent")


def test_index_html_redirects_to_the_home_page(fixture_nginx: tuple[Path, str]) -> None:
    _root, base = fixture_nginx
    response = httpx.get(base + "/index.html", follow_redirects=False)
    assert (response.status_code, response.headers["location"]) == (301, "/")


def _sitemap_locs(out: Path) -> list[str]:
    """Every loc of sitemap.xml, following an index to its numbered files (read with lxml)."""
    root = etree.parse(str(out / "sitemap.xml")).getroot()
    if root.tag == f"{SITEMAP_NS}sitemapindex":
        files = [urlsplit(loc.text or "").path for loc in root.iter(f"{SITEMAP_NS}loc")]
        return [loc for name in files for loc in _locs_of(out / name.lstrip("/"))]
    return [loc.text or "" for loc in root.iter(f"{SITEMAP_NS}loc")]


def _locs_of(file: Path) -> list[str]:
    return [loc.text or "" for loc in etree.parse(str(file)).getroot().iter(f"{SITEMAP_NS}loc")]


def test_every_sitemap_url_of_the_demo_store_is_served(demo_site: Path, tmp_path: Path) -> None:
    locs = _sitemap_locs(demo_site)
    assert len(locs) > 10
    failures = []
    with running_nginx(demo_site, tmp_path / "nginx") as base, httpx.Client() as client:
        for loc in locs:
            parts = urlsplit(loc)
            target = base + parts.path + (f"?{parts.query}" if parts.query else "")
            response = client.get(target, follow_redirects=False)
            content_type = response.headers.get("content-type", "")
            if response.status_code != 200 or not content_type.startswith("text/html"):
                failures.append(f"{loc}: {response.status_code} {content_type}")
            if response.headers.get("content-security-policy") != read_policy(demo_site):
                failures.append(f"{loc}: {response.headers.get('content-security-policy')}")
        missing = client.get(base + "/khong-co-trang-nay", follow_redirects=False)
    assert failures == []
    assert missing.status_code == 404
    assert read_policy(demo_site) is not None


PREFIXED_SITE = "https://example.github.io/shop"


def _build_prefixed_demo(out: Path, cache: Path) -> None:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("STOREFRONT_")}
    command = [
        sys.executable, "-m", "generator", "build", "--out", str(out), "--cache-dir", str(cache),
        "--demo-products", "40", "--site-url", PREFIXED_SITE, "--workers", "1",
        "--xstore", str(out.parent / "no-xstore.json"),
    ]  # fmt: skip
    result = subprocess.run(
        command, cwd=REPO, env=environ, capture_output=True, text=True, timeout=600, check=False
    )
    assert result.returncode == 0, result.stderr[-2000:]


def _referenced(html: bytes) -> set[str]:
    """Every url a page loads or links to on its own site: links, scripts, images, the
    import map's modules."""
    doc = etree.HTML(html)
    found = {el.get("href") or "" for el in doc.iter("a", "link")}
    found |= {el.get("src") or "" for el in doc.iter("script", "img")}
    for script in doc.iter("script"):
        if script.get("type") == "importmap":
            imports = json.loads(script.text or "{}")["imports"]
            found |= set(imports) | set(imports.values())
    return {url for url in found if url.startswith("/") and not url.startswith("//")}


def test_a_site_under_a_path_prefix_serves_every_loc_and_every_reference_there(
    tmp_path: Path,
) -> None:
    out = tmp_path / "output"
    _build_prefixed_demo(out, tmp_path / "cache")
    locs = _sitemap_locs(out)
    assert len(locs) > 10 and all(loc.startswith(PREFIXED_SITE + "/") for loc in locs)
    robots = (out / "robots.txt").read_text()
    assert f"Sitemap: {PREFIXED_SITE}/sitemap.xml" in robots and "Allow: /shop/" in robots
    referenced: set[str] = set()
    for page in out.rglob("*.html"):
        if "_assets" not in page.parts:
            referenced |= _referenced(page.read_bytes())
    # Root-absolute references must all carry the prefix: without it they leave the site.
    assert sorted(url for url in referenced if not url.startswith("/shop/")) == []
    assert any(url.startswith("/shop/_assets/islands/") for url in referenced)
    failures = []
    with running_nginx(out, tmp_path / "nginx", "/shop") as base, httpx.Client() as client:
        for url in [urlsplit(loc).path for loc in locs] + sorted(referenced):
            response = client.get(base + url, follow_redirects=False)
            if response.status_code != 200:
                failures.append(f"{url}: {response.status_code}")
        outside = client.get(base + "/_assets/style.css", follow_redirects=False)
        bare = client.get(base + "/shop", follow_redirects=False)
    assert failures == []
    assert outside.status_code == 404
    assert (bare.status_code, bare.headers["location"]) == (301, "/shop/")


def test_session_answers_carry_each_header_once_and_one_request_id_in_both_logs(
    tmp_path: Path,
) -> None:
    root = write_clean_site(tmp_path / "output")
    for name, content in host_files(FIXTURE_POLICY):
        (root / name).write_bytes(content)
    with (
        running_companion(tmp_path, products=2) as api_url,
        running_session(
            tmp_path, api_url=api_url, key=DEMO_KEY, extra=["--trusted-proxy", "127.0.0.1"]
        ) as (session, _process),
        running_nginx(root, tmp_path / "nginx", session=session.removeprefix("http://")) as site,
    ):
        answer = httpx.get(site + "/session/api/store", headers={"X-Request-Id": "trace-me-42"})
        page = httpx.get(site + "/")
    assert answer.status_code == 200
    # The service sends its own security headers; nginx adds none to them.
    assert answer.headers.get_list("x-content-type-options") == ["nosniff"]
    assert len(answer.headers.get_list("referrer-policy")) == 1
    assert "content-security-policy" not in answer.headers  # a JSON answer, not a page
    assert page.headers["content-security-policy"] == FIXTURE_POLICY
    assert page.headers["x-content-type-options"] == "nosniff"
    # nginx hands the service an id of its own; the service sends that id on to the API.
    session_ids = _logged_ids(next(tmp_path.glob("session-*.log")), "/session/api/store")
    api_ids = _logged_ids(tmp_path / "api.log", "/public/v1/store")
    assert session_ids and set(session_ids) <= set(api_ids)


def _logged_ids(log: Path, path: str) -> list[str]:
    lines = [json.loads(x) for x in log.read_text().splitlines() if x.startswith("{")]
    return [line["request_id"] for line in lines if line.get("path") == path]
