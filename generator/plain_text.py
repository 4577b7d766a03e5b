"""Plain text from merchant HTML, for meta descriptions and JSON-LD: pure, no I/O."""

from __future__ import annotations

import lxml.etree
import lxml.html

ELLIPSIS = "…"


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
