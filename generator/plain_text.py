"""Plain text from merchant HTML, for meta descriptions and JSON-LD: pure, no I/O."""

from __future__ import annotations

import functools
import re

ELLIPSIS = "…"
# Elements that end a line when a browser shows them: their text must not run into the next.
BLOCKS = frozenset(
    "address article aside blockquote br dd div dl dt figcaption figure footer h1 h2 h3 h4 h5 "
    "h6 header hr li main nav ol p pre section table td th tr ul".split()
)


# Tags whose text needs no parser to read: text is what lies between them, a block tag ends a
# line. Anything else (entities, comments, scripts, tables, tags the parser may move, a stray
# "<" or ">", control characters) goes through lxml.
_SIMPLE_TAGS = BLOCKS - {"table", "td", "th", "tr"} | frozenset(
    "a abbr b bdi cite code del em i ins kbd mark q s small span strong sub sup time u".split()
)
_VOID = frozenset({"br", "hr"})
# Where a block element starts or ends in the text: a private-use character (lxml takes no
# control character), taken out of any fragment given to the parser, which reads one that has it.
_BREAK = "\ue000"
_PUNCTUATION = frozenset(".!?…:;,-–—/")
_CLOSERS = ")]}\"'”’»"
# Elements that may hold no block: a block start inside one makes the parser close or move them.
_INLINE_ONLY = _SIMPLE_TAGS - BLOCKS | {"p", "h1", "h2", "h3", "h4", "h5", "h6", "dt", "pre"}
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9]*)(?:\s[^<>]*)?/?>")
_NOT_SIMPLE = re.compile("[&<>\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ue000]")


@functools.lru_cache(maxsize=1 << 17)
def html_to_text(html: str | None) -> str:
    """``visible_text``, remembered: the plan reads a description once for the page's meta
    description, its structured data (in a render worker, which inherits what the plan read)
    again."""
    return visible_text(html)


def visible_text(html: str | None) -> str:
    """The visible text of an HTML fragment, white space collapsed; '' for None or no text.
    Not remembered: for a text read once and kept (a product's description, when its answer
    is normalized - remembering every product's description would hold a second copy of the
    catalog's texts for the whole build)."""
    if not html or not html.strip():
        return ""
    simple = _simple_text(html)
    return simple if simple is not None else _parsed_text(html)


def _parsed_text(html: str) -> str:
    """``html_to_text`` through lxml's HTML parser, for any fragment."""
    # Imported here: most merchant texts never need the parser, and lxml's import is not free.
    import lxml.etree
    import lxml.html

    try:
        root = lxml.html.fragment_fromstring(html.replace(_BREAK, ""), create_parent="div")
    except (lxml.etree.ParserError, ValueError):
        return ""
    for unseen in root.xpath("//script|//style|//template"):
        unseen.drop_tree()
    for element in root.iter():
        if isinstance(element.tag, str) and element.tag in BLOCKS:
            element.text = _BREAK + (element.text or "")
            element.tail = _BREAK + (element.tail or "")
    return _joined(root.text_content())


def _simple_text(html: str) -> str | None:
    """``html_to_text`` without a parser, for well-nested fragments of common tags; None for
    anything a parser might read differently (then lxml decides)."""
    pieces: list[str] = []
    open_tags: list[str] = []
    position = 0
    for tag in _TAG.finditer(html):
        text = html[position : tag.start()]
        if _NOT_SIMPLE.search(text):
            return None
        name = tag.group(2).lower()
        if name not in _SIMPLE_TAGS:
            return None
        if tag.group(1):  # an end tag must close the innermost open element
            if not open_tags or open_tags.pop() != name:
                return None
        elif name not in _VOID and not tag.group(0).endswith("/>"):
            if name in BLOCKS and any(t in _INLINE_ONLY for t in open_tags):
                return None  # the parser would close or move things around it
            open_tags.append(name)
        elif name in BLOCKS and "p" in open_tags:
            return None
        pieces.append(text)
        pieces.append(_BREAK if name in BLOCKS else "")
        position = tag.end()
    rest = html[position:]
    if _NOT_SIMPLE.search(rest):
        return None
    pieces.append(rest)
    return _joined("".join(pieces))


def _joined(text: str) -> str:
    """The text's lines (``_BREAK`` ends one), white space collapsed, joined so that a line
    ending without punctuation reads as a sentence when the next begins one (list items, lines
    of a table: "Chất liệu: cotton. Xuất xứ: Việt Nam"), and as one line of words otherwise."""
    joined = ""
    for line in text.split(_BREAK):
        words = " ".join(line.split())
        if not words:
            continue
        if joined:
            ends = joined.rstrip(_CLOSERS)[-1:]
            joined += ". " if words[0].isupper() and ends and ends not in _PUNCTUATION else " "
        joined += words
    return joined


#: The longest meta description a page gets.
META_DESCRIPTION_LENGTH = 160


def shorten(text: str, limit: int) -> str:
    """At most ``limit`` characters, cut at a word boundary with an ellipsis when cut."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if " " in cut:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ,.;:-–") + ELLIPSIS
