"""A small, clean output folder written by hand, for planting one defect per test.

``write_clean_site`` writes a site the audit must pass with no finding at all: a home page, a
product with Product and BreadcrumbList JSON-LD, a category, an article list and an article
(a folder and a page of the same name), a page at a non-ASCII path, a noindex cart page, the
404 page, assets, sitemap.xml and robots.txt. Tests then overwrite one file with ``page_html``
or edit its text to plant exactly one defect.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from generator.audit import AuditReport, audit_site
from generator.audit.api_sections import ApiSection

ORIGIN = "https://shop.example.vn"
DEFAULT = object()  # "use the page's normal value" for page_html keyword arguments

PRODUCT_JSONLD: dict[str, Any] = {
    "@context": "https://schema.org",
    "@type": "Product",
    "name": "Áo thun cotton",
    "image": [f"{ORIGIN}/_assets/ao-thun.svg"],
    "sku": "AT-01",
    "offers": {
        "@type": "Offer",
        "price": 120000,
        "priceCurrency": "VND",
        "availability": "https://schema.org/InStock",
        "url": f"{ORIGIN}/san-pham/ao-thun",
    },
}
BREADCRUMB_JSONLD: dict[str, Any] = {
    "@context": "https://schema.org",
    "@type": "BreadcrumbList",
    "itemListElement": [
        {"@type": "ListItem", "position": 1, "name": "Trang chủ", "item": f"{ORIGIN}/"},
        {"@type": "ListItem", "position": 2, "name": "Áo", "item": f"{ORIGIN}/danh-muc/ao"},
        {"@type": "ListItem", "position": 3, "name": "Áo thun cotton"},
    ],
}

NAV = """<nav aria-label="Chính">
  <a href="/">Trang chủ</a>
  <a href="/danh-muc/ao">Áo</a>
  <a href="/bai-viet">Bài viết</a>
  <a href="/%C3%A1o-d%C3%A0i">Áo dài</a>
  <a href="/gio-hang">Giỏ hàng</a>
  <a href="mailto:shop@example.vn">Email</a>
  <a href="https://www.facebook.com/shop.example">Facebook</a>
  <a href="#main">Lên đầu trang</a>
</nav>"""

# path -> (file, title, description, extra body, JSON-LD blocks, robots)
PAGES: dict[str, tuple[str, str, str, str, tuple[dict[str, Any], ...], str | None]] = {
    "/": (
        "index.html",
        "Cửa hàng mẫu",
        "Thời trang cotton cho mọi nhà.",
        (
            '<a href="/san-pham/ao-thun"><img src="/_assets/ao-thun.svg" alt="Áo thun cotton">'
            "Áo thun cotton</a>"
        ),
        (),
        None,
    ),
    "/san-pham/ao-thun": (
        "san-pham/ao-thun.html",
        "Áo thun cotton | Cửa hàng mẫu",
        "Áo thun cotton 100%, giá 120.000 ₫.",
        '<img src="/_assets/ao-thun.svg" alt=""><button type="button">Thêm vào giỏ</button>',
        (PRODUCT_JSONLD, BREADCRUMB_JSONLD),
        None,
    ),
    "/danh-muc/ao": (
        "danh-muc/ao.html",
        "Áo | Cửa hàng mẫu",
        "Mọi mẫu áo của cửa hàng.",
        '<a href="../san-pham/ao-thun">Áo thun cotton</a>',
        (),
        None,
    ),
    "/bai-viet": (
        "bai-viet.html",
        "Bài viết | Cửa hàng mẫu",
        "Tin tức và cẩm nang.",
        '<a href="/bai-viet/chao-mung">Chào mừng</a>',
        (),
        None,
    ),
    "/bai-viet/chao-mung": (
        "bai-viet/chao-mung.html",
        "Chào mừng | Cửa hàng mẫu",
        "Lời chào từ cửa hàng.",
        '<a href="chao-mung?trang=2">Trang 2</a>',
        (),
        None,
    ),
    "/áo-dài": ("áo-dài.html", "Áo dài | Cửa hàng mẫu", "Áo dài truyền thống.", "", (), None),
    "/gio-hang": ("gio-hang.html", "Giỏ hàng | Cửa hàng mẫu", "", "", (), "noindex"),
    "/404": ("404.html", "Không tìm thấy trang | Cửa hàng mẫu", "", "", (), "noindex"),
}

LASTMOD = "2026-01-15T08:30:00+00:00"
NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def url(path: str) -> str:
    """The absolute, percent-encoded url of a fixture path."""
    return ORIGIN + quote(path)


def page_html(
    path: str,
    *,
    title: object = DEFAULT,
    description: object = DEFAULT,
    canonical: object = DEFAULT,
    lang: object = DEFAULT,
    body: object = DEFAULT,
    jsonld: object = DEFAULT,
    robots: object = DEFAULT,
    head_extra: str = "",
) -> str:
    """The clean page at ``path``; any keyword replaces one part (None leaves it out)."""
    _file, d_title, d_description, d_body, d_jsonld, d_robots = PAGES[path]
    title = d_title if title is DEFAULT else title
    description = d_description if description is DEFAULT else description
    is_404 = path == "/404"
    canonical = (None if is_404 else url(path)) if canonical is DEFAULT else canonical
    lang = "vi" if lang is DEFAULT else lang
    body = d_body if body is DEFAULT else body
    blocks = d_jsonld if jsonld is DEFAULT else jsonld
    robots = d_robots if robots is DEFAULT else robots

    head = ['<meta charset="utf-8">', '<meta name="viewport" content="width=device-width">']
    if title is not None:
        head.append(f"<title>{title}</title>")
    if description:
        head.append(f'<meta name="description" content="{description}">')
    if canonical is not None:
        head.append(f'<link rel="canonical" href="{canonical}">')
    if robots is not None:
        head.append(f'<meta name="robots" content="{robots}">')
    head.append('<link rel="stylesheet" href="/_assets/site.css">')
    head.append('<script type="module" src="/_assets/cart.js"></script>')
    for block in blocks if isinstance(blocks, tuple | list) else [blocks]:
        text = block if isinstance(block, str) else json.dumps(block, ensure_ascii=False)
        head.append(f'<script type="application/ld+json">{text}</script>')
    head.append(head_extra)
    lang_attr = f' lang="{lang}"' if lang is not None else ""
    return (
        f"<!DOCTYPE html>\n<html{lang_attr}>\n<head>\n" + "\n".join(head) + "\n</head>\n"
        f'<body>\n{NAV}\n<main id="main">\n{body}\n</main>\n</body>\n</html>\n'
    )


def sitemap_xml(locs: list[str], lastmod: str | None = LASTMOD) -> str:
    entries = "".join(
        f"  <url><loc>{loc}</loc>"
        + (f"<lastmod>{lastmod}</lastmod>" if lastmod else "")
        + "</url>\n"
        for loc in locs
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        f"{entries}</urlset>\n"
    )


def indexed_paths() -> list[str]:
    return [p for p, spec in PAGES.items() if spec[5] is None]


def write_clean_site(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for path, spec in PAGES.items():
        write(root, spec[0], page_html(path))
    write(root, "_assets/site.css", "body{font-family:sans-serif}\n")
    write(root, "_assets/cart.js", "export {};\n")
    write(root, "_assets/ao-thun.svg", '<svg xmlns="http://www.w3.org/2000/svg"/>\n')
    write(root, "sitemap.xml", sitemap_xml([url(p) for p in indexed_paths()]))
    write(root, "robots.txt", f"User-agent: *\nAllow: /\n\nSitemap: {ORIGIN}/sitemap.xml\n")
    return root


def write(root: Path, relative: str, text: str) -> Path:
    file = root / relative
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(text, encoding="utf-8")
    return file


def run_audit(
    site: Path, *, site_url: str | None = None, api_sections: Sequence[ApiSection] | None = None
) -> AuditReport:
    return audit_site(site, now=NOW, site_url=site_url, api_sections=api_sections)
