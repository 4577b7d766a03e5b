"""What merchant HTML and image urls make a browser load, as CSP sources."""

from __future__ import annotations

import pytest

from generator.loads import html_loads, image_loads, script_hash, url_source


@pytest.mark.parametrize(
    ("url", "source"),
    [
        ("https://cdn.example.vn/a.jpg?w=1", "https://cdn.example.vn"),
        ("http://CDN.Example.vn:8080/a.jpg", "http://cdn.example.vn:8080"),
        ("//img.example.net/a.jpg", "https://img.example.net"),
        ("/_assets/demo/a.svg", None),  # the site's own origin
        ("javascript:alert(1)", None),
        ("data:image/png;base64,AAAA", None),
        ("https://a.example.vn'; script-src */x.jpg", None),
        ('https://b.example.vn"/x.jpg', None),
        ("https://*.example.vn/x.jpg", None),
        ("https://c.example.vn$x/x.jpg", None),
        ("https://[::1]:99999/x.jpg", None),
    ],
)
def test_a_url_gives_its_origin_only_when_plain(url: str, source: str | None) -> None:
    assert url_source(url) == source


def test_image_urls_give_img_src_loads() -> None:
    urls = ["https://a.example.vn/1.jpg", None, "/x.png", "https://a.example.vn/2.jpg"]
    assert image_loads(urls) == {("img-src", "https://a.example.vn")}


def test_what_merchant_html_fetches() -> None:
    html = (
        "<P STYLE='color:red'>x</P><img src=https://i.example.vn/a.jpg>"
        '<video poster="https://p.example.vn/p.jpg"><source src="https://v.example.vn/v.mp4">'
        '</video><iframe src="https://www.youtube-nocookie.com/embed/x"></iframe>'
        '<link rel="stylesheet" href="https://s.example.vn/s.css">'
        '<script type="application/ld+json">{"a": 1}</script><script>run()</script>'
        '<a href="https://elsewhere.example.vn/">a link loads nothing</a>'
    )
    assert html_loads(html) == {
        ("style-src", "'unsafe-inline'"),
        ("img-src", "https://i.example.vn"),
        ("media-src", "https://p.example.vn"),
        ("media-src", "https://v.example.vn"),
        ("frame-src", "https://www.youtube-nocookie.com"),
        ("style-src", "https://s.example.vn"),
        ("script-src", script_hash("run()")),
    }
    assert html_loads("<p>plain</p>") == set()
    assert html_loads(None) == set()
