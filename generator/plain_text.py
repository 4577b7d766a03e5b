"""Plain text from merchant HTML, for meta descriptions and JSON-LD: pure, no I/O."""

from __future__ import annotations

import lxml.etree
import lxml.html

ELLIPSIS = "…"
# Elements that end a line when a browser shows them: their text must not run into the next.
BLOCKS = frozenset(
    "address article aside blockquote br dd div dl dt figcaption figure footer h1 h2 h3 h4 h5 "
    "h6 header hr li main nav ol p pre section table td th tr ul".split()
)


def html_to_text(html: str | None) -> str:
    """The visible text of an HTML fragment, white space collapsed; '' for None or no text."""
    if not html or not html.strip():
        return ""
    try:
        root = lxml.html.fragment_fromstring(html, create_parent="div")
    except (lxml.etree.ParserError, ValueError):
        return ""
    for unseen in root.xpath("//script|//style|//template"):
        unseen.drop_tree()
    for element in root.iter():
        if isinstance(element.tag, str) and element.tag in BLOCKS:
            element.text = " " + (element.text or "")
            element.tail = " " + (element.tail or "")
    return " ".join(root.text_content().split())


def shorten(text: str, limit: int) -> str:
    """At most ``limit`` characters, cut at a word boundary with an ellipsis when cut."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if " " in cut:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ,.;:-–") + ELLIPSIS
