"""Every rendered page is well-formed HTML5 with the head and accessibility basics."""

from __future__ import annotations

from collections import Counter
from html.parser import HTMLParser

import lxml.html
import pytest

from generator.render.pages import RenderedPage
from generator.shells import SHELLS
from tests.support.fixture_site import rendered_pages
from tests.support.fixture_store import SITE_URL

PAGES = rendered_pages()
# Pages without a canonical, marked noindex: the not-found page and the islands' shells.
UNLISTED = {"not_found", *(shell.kind for shell in SHELLS)}
VOID = {
    "area",
    "base",
    "br",
    "col",
    "embed",
    "hr",
    "img",
    "input",
    "link",
    "meta",
    "source",
    "track",
    "wbr",
}


def doc_of(page: RenderedPage) -> lxml.html.HtmlElement:
    return lxml.html.document_fromstring(page.html)


# The end tags the theme leaves out where HTML implies them: a list item ends at the next
# item or its list's end, a paragraph at a block or its parent's end.
_ENDS_PARAGRAPH = set(
    "address article aside blockquote details dialog div dl fieldset figcaption figure footer "
    "form h1 h2 h3 h4 h5 h6 header hgroup hr main menu nav ol p pre search section table ul".split()
)
_HOLDS_PARAGRAPH_OPEN = {"a", "audio", "del", "ins", "map", "noscript", "video"}


class _TagBalance(HTMLParser):
    """Fails on an end tag that does not close the innermost open element, once the end tags
    HTML implies (``</li>``, ``</p>``) are counted."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.errors: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        top = self.stack[-1:]
        if (top == ["li"] and tag == "li") or (top == ["p"] and tag in _ENDS_PARAGRAPH):
            self.stack.pop()
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        top = self.stack[-1:]
        if top == ["li"] and tag in ("ul", "ol", "menu", "template"):
            self.stack.pop()
        elif top == ["p"] and tag != "p" and tag not in _HOLDS_PARAGRAPH_OPEN:
            self.stack.pop()
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
        else:
            self.stack.pop()


@pytest.fixture(params=sorted(PAGES), ids=lambda p: p)
def page(request: pytest.FixtureRequest) -> RenderedPage:
    return PAGES[request.param]


def test_page_is_html5_with_balanced_tags(page: RenderedPage) -> None:
    assert page.html.startswith("<!doctype html>")
    checker = _TagBalance()
    checker.feed(page.html)
    checker.close()
    assert checker.errors == []
    assert checker.stack == []


def test_page_is_in_vietnamese_with_a_viewport(page: RenderedPage) -> None:
    doc = doc_of(page)
    assert doc.get("lang") == "vi"
    assert doc.xpath("//meta[@charset='utf-8']")
    assert doc.xpath("//meta[@name='viewport']/@content") == ["width=device-width, initial-scale=1"]


def test_page_has_one_title_and_one_meta_description(page: RenderedPage) -> None:
    doc = doc_of(page)
    titles = doc.xpath("//head/title")
    descriptions = doc.xpath("//meta[@name='description']/@content")
    assert len(titles) == 1 and titles[0].text_content().strip()
    assert len(descriptions) == 1 and descriptions[0].strip()


def test_page_has_exactly_one_absolute_canonical_except_404(page: RenderedPage) -> None:
    doc = doc_of(page)
    canonicals = doc.xpath("//link[@rel='canonical']/@href")
    if page.kind in UNLISTED:
        assert canonicals == []
        assert doc.xpath("//meta[@name='robots']/@content") == ["noindex"]
        return
    assert len(canonicals) == 1
    assert canonicals[0].startswith(SITE_URL + "/")
    assert canonicals[0].isascii() and not canonicals[0].endswith(".html")


def test_canonical_of_a_page_at_its_own_url_is_itself(page: RenderedPage) -> None:
    if page.kind in UNLISTED or page.path == "/khuyen-mai-he":
        return
    assert doc_of(page).xpath("//link[@rel='canonical']/@href") == [SITE_URL + page.path]


def test_page_has_open_graph_tags(page: RenderedPage) -> None:
    doc = doc_of(page)
    props = {m.get("property"): m.get("content") for m in doc.xpath("//meta[@property]")}
    assert {"og:title", "og:type", "og:site_name"} <= props.keys()
    # Sharing sites read the description and the language from the page's own.
    assert "og:description" not in props and "og:locale" not in props
    assert doc.xpath("//meta[@name='description']/@content")
    # og:title names what is shared; og:site_name names the store.
    title = doc.findtext(".//title")
    brand = " | " + props["og:site_name"]
    assert props["og:title"] == (title[: -len(brand)] if title.endswith(brand) else title)
    assert not props["og:title"].endswith(brand)
    if page.kind not in UNLISTED:
        assert "og:url" in props


def test_page_has_exactly_one_h1_and_no_skipped_heading_level(page: RenderedPage) -> None:
    doc = doc_of(page)
    # A <template>'s content is not in the page until an island puts it somewhere.
    levels = [
        int(h.tag[1])
        for h in doc.iter("h1", "h2", "h3", "h4", "h5", "h6")
        if not h.xpath("ancestor::template")
    ]
    assert levels.count(1) == 1
    assert levels[0] == 1 or page.kind != "home"
    for before, after in zip(levels, levels[1:], strict=False):
        assert after <= before + 1, f"h{before} followed by h{after}"


def test_every_image_has_alt_width_and_height(page: RenderedPage) -> None:
    for img in doc_of(page).iter("img"):
        assert img.get("alt") is not None, img.get("src")
        assert img.get("width", "").isdigit() and img.get("height", "").isdigit()


def test_images_are_lazy_except_the_logo_one_main_image_and_the_thumbnails(
    page: RenderedPage,
) -> None:
    doc = doc_of(page)
    logo = "ancestor::a[contains(concat(' ', @class, ' '), ' brand ')]"
    thumbs = doc.xpath("//ul[@class='thumbs']//img")
    eager = [
        i
        for i in doc.iter("img")
        if i.get("loading") != "lazy" and not i.xpath(logo) and i not in thumbs
    ]
    assert len(eager) <= 1
    assert all(i.get("fetchpriority") == "high" for i in eager)
    # A thumbnail shows a file of the gallery above it, which the page loads anyway.
    gallery = set(doc.xpath("//ul[@class='gallery']//img/@src"))
    assert all(i.get("src") in gallery for i in thumbs)


def test_no_render_blocking_script_and_one_stylesheet(page: RenderedPage) -> None:
    doc = doc_of(page)
    for script in doc.iter("script"):  # data blocks (JSON-LD, the product's data) run nothing
        assert script.get("type") in (
            "application/ld+json",
            "application/json",
            "importmap",
            "module",
        )
    sheets = doc.xpath("//link[@rel='stylesheet']/@href")
    assert len(sheets) == 1 and sheets[0].startswith("/_assets/style.css?v=")


def test_ids_are_unique_and_references_resolve(page: RenderedPage) -> None:
    doc = doc_of(page)
    ids = Counter(doc.xpath("//@id"))
    assert [i for i, n in ids.items() if n > 1] == []
    for ref in doc.xpath("//@aria-labelledby") + doc.xpath("//label/@for"):
        assert ref in ids, ref
    assert "main" in ids  # the skip link's target


def test_every_form_control_has_a_label(page: RenderedPage) -> None:
    doc = doc_of(page)
    for control in doc.xpath("//input[not(@type='hidden')] | //select | //textarea"):
        wrapped = control.xpath("ancestor::label")
        labelled = control.get("id") and doc.xpath(f"//label[@for='{control.get('id')}']")
        # A row an island repeats (a <template> part, as a cart line) names its controls itself.
        named = control.get("aria-label") and control.xpath("ancestor::template")
        assert wrapped or labelled or named, lxml.html.tostring(control)


def test_every_link_has_text(page: RenderedPage) -> None:
    for a in doc_of(page).iter("a"):
        # A drawn card's link (partials/drawn.html) has its text once an island fills it in.
        text = a.text_content().strip() or "".join(a.xpath(".//img/@alt | .//slot/@name"))
        assert text, lxml.html.tostring(a)


def test_landmarks_are_present(page: RenderedPage) -> None:
    doc = doc_of(page)
    assert len(doc.xpath("//main")) == 1
    assert doc.xpath("//header[@class='site-header']")
    assert doc.xpath("//footer[@class='site-footer']")
    assert doc.xpath("//a[@class='skip-link']/@href") == ["#main"]
