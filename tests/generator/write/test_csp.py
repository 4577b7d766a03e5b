"""The Content-Security-Policy a build writes: from what its pages load, the same on every page
but those that take payment or personal data (tests/generator/write/test_csp_pages.py).

Each test writes the fixture store (changed where it says) through the write stage a build
uses, then reads the policy where hosts read it: ``_headers``, ``_csp.conf`` and each page's
<meta>; `storefront serve` and the preview server send what ``_csp.conf`` holds."""

from __future__ import annotations

import dataclasses
import re
import shutil
from pathlib import Path

import anyio
import httpx
import lxml.html
import pytest

from generator.errors import TemplateError
from generator.loads import script_hash
from generator.model import Image, Product
from generator.plan.site_plan import plan_site
from generator.serve.app import site_app
from generator.serve.static import serving
from generator.write.host_files import read_policy
from tests.support.fixture_site import THEME, write_plan
from tests.support.fixture_store import SITE_URL, small_catalog, with_product


def build(out: Path, change: object = None) -> dict[str, str]:
    """The fixture store (its first product changed by ``change``) written into ``out``; the
    policy as each place holds it: directive -> sources, per place."""
    catalog = small_catalog()
    if change is not None:
        catalog = with_product(catalog, 0, change)  # type: ignore[arg-type]
    write_plan(plan_site(catalog, SITE_URL), out)
    headers = (out / "_headers").read_text(encoding="utf-8")
    header_line = re.search(r"^  Content-Security-Policy: (.+)$", headers, re.MULTILINE)
    assert header_line is not None, headers
    policy = read_policy(out)
    assert policy is not None
    assert header_line.group(1) == policy
    return {"header": policy, "meta": meta_policy(out / "index.html")}


def meta_policy(page: Path) -> str:
    document = lxml.html.document_fromstring(page.read_bytes())
    meta = '//head/meta[@http-equiv="Content-Security-Policy"]'
    metas = document.xpath(meta)
    assert len(metas) == 1
    # Before any script, or the browser runs that script unchecked.
    assert not document.xpath(meta + "/preceding::script")
    return str(metas[0].get("content"))


def directives(policy: str) -> dict[str, list[str]]:
    parsed = [part.split() for part in policy.split(";")]
    return {words[0]: words[1:] for words in parsed if words}


def test_every_page_and_host_file_carries_one_policy(tmp_path: Path) -> None:
    policies = build(tmp_path / "out")
    header = directives(policies["header"])
    assert header["frame-ancestors"] == ["'self'"]
    assert header["object-src"] == ["'none'"]
    assert header["base-uri"] == ["'self'"]
    assert header["form-action"] == ["'self'"]
    # A <meta> policy cannot carry frame-ancestors; the rest is the header's, on every page.
    in_meta = {name: sources for name, sources in header.items() if name != "frame-ancestors"}
    assert directives(policies["meta"]) == in_meta
    for page in (tmp_path / "out").rglob("*.html"):
        assert meta_policy(page) == policies["meta"], page


def test_pages_carry_no_inline_script_and_script_src_falls_back_to_self(tmp_path: Path) -> None:
    out = tmp_path / "out"
    policy = directives(build(out)["header"])
    # The islands load from their versioned folder: no import map, nothing inline to allow.
    assert "script-src" not in policy and policy["default-src"] == ["'self'"]
    html = (out / "index.html").read_text(encoding="utf-8")
    assert not re.findall(r"<script(?![^>]*\b(?:src=|type=\"application/ld\+json\"))", html)
    assert re.search(r'<script type=module src="/_assets/islands/[0-9a-f]{10}/main.js">', html)


def test_the_meta_policy_keeps_its_quotes_unescaped(tmp_path: Path) -> None:
    out = tmp_path / "out"
    build(out)
    html = (out / "index.html").read_text(encoding="utf-8")
    assert "content=\"default-src 'self';" in html and "&#39;" not in html.split("</head>")[0]


def test_an_image_on_another_host_puts_that_host_in_img_src(tmp_path: Path) -> None:
    before = directives(build(tmp_path / "before")["header"])["img-src"]
    assert "https://cdn.example.vn" in before  # the fixture store's images
    assert "https://anh.example.com:8443" not in before

    def gallery(product: Product) -> Product:
        photo = Image("https://anh.example.com:8443/ao/1.jpg?w=800", None)
        return dataclasses.replace(product, images=(*product.images, photo))

    after = directives(build(tmp_path / "after", gallery)["header"])["img-src"]
    assert sorted(after) == sorted([*before, "https://anh.example.com:8443"])


def test_merchant_html_adds_its_images_and_styles_but_no_other_host(tmp_path: Path) -> None:
    """Content opens only images and styles; its frames and scripts wait for the theme's
    ``[embeds]`` (tests/generator/write/test_csp_pages.py)."""
    snippet = (
        '<p style="color:red">Xem video</p>'
        '<iframe src="https://www.youtube-nocookie.com/embed/abc"></iframe>'
        '<picture><source srcset="https://img.example.net/a.webp 1x, /b.webp 2x"></picture>'
        '<script src="https://widget.example.org/w.js"></script><script>window.x = 1</script>'
    )

    def describe(product: Product) -> Product:
        return dataclasses.replace(product, description_html=snippet)

    policy = directives(build(tmp_path / "out", describe)["header"])
    assert "frame-src" not in policy and "script-src" not in policy
    assert policy["default-src"] == ["'self'"]
    assert "https://img.example.net" in policy["img-src"]
    assert script_hash("window.x = 1") not in " ".join(sum(policy.values(), []))
    assert policy["style-src"] == ["'self'", "'unsafe-inline'"]


def test_hostile_urls_add_nothing_to_the_policy(tmp_path: Path) -> None:
    """A quote, a ';', a wildcard or another scheme in an API url never reaches the policy."""
    urls = [
        "https://a.example.vn'; script-src *;/x.jpg",
        'https://b.example.vn"/x.jpg',
        "https://*.example.vn/x.jpg",
        "javascript:alert(1)",
        "data:image/png;base64,AAAA",
        "https://c.example.vn$x/x.jpg",
    ]

    def hostile(product: Product) -> Product:
        return dataclasses.replace(product, images=tuple(Image(url, None) for url in urls))

    clean = build(tmp_path / "clean")["header"]
    assert build(tmp_path / "hostile", hostile)["header"] == clean


def test_serve_and_the_preview_server_send_the_written_policy(tmp_path: Path) -> None:
    out = tmp_path / "out"
    written = build(out)["header"]

    async def fetch(path: str) -> httpx.Response:
        transport = httpx.ASGITransport(app=site_app(out))
        async with httpx.AsyncClient(transport=transport, base_url="http://shop.test") as client:
            return await client.get(path)

    for path in ("/", "/khong-co-trang-nay", "/_assets/style.css"):
        assert anyio.run(fetch, path).headers["content-security-policy"] == written
    with serving(out) as base:
        assert httpx.get(base + "/").headers["content-security-policy"] == written
    assert anyio.run(fetch, "/_csp.conf").status_code == 404  # a host file, never served


def test_an_islands_partial_that_needs_a_page_fails_in_one_line(tmp_path: Path) -> None:
    theme = tmp_path / "theme"
    shutil.copytree(THEME, theme)
    partial = theme / "partials" / "islands.html"
    partial.write_text(partial.read_text(encoding="utf-8") + "{{ page.title }}\n", "utf-8")
    with pytest.raises(TemplateError) as caught:
        write_plan(plan_site(small_catalog(), SITE_URL), tmp_path / "out", theme=theme)
    assert str(caught.value).startswith("partials/islands.html: UndefinedError: ")
    assert "\n" not in str(caught.value)
    assert not (tmp_path / "out").exists()
