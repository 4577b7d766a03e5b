"""Line breaks a browser never shows, dropped from the templates as they load: no render cost.

A run of white space holding a line break, in a template's own text, goes when a block-level
tag touches it (``</li>\\n<li>``, ``<ul class="grid">\\n``, ``\\n</section>``): beside a block's
edge, white space starts or ends a line box and is never drawn. Between inline content
(``</label>\\n<label>``, ``text\\n<a>``) it draws a space, and stays. Only the template's text
is touched: values and merchant ``*_html`` fields come out as they are, and the default theme
has no ``<pre>``, ``<textarea>`` or inline script whose text this could change.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from jinja2.ext import Extension
from jinja2.lexer import Token, TokenStream

#: Elements laid out as blocks (or not drawn at all, in the head): white space beside their tags
#: is never drawn. ``script`` is not one: in the body it sits inline between text.
BLOCKS = frozenset(
    "html head body title meta link base main header footer nav section article aside div p "
    "ul ol li dl dt dd h1 h2 h3 h4 h5 h6 form fieldset legend address figure figcaption "
    "table thead tbody tfoot tr td th caption hr details summary noscript".split()
)
_NAME = r"/?([a-zA-Z][a-zA-Z0-9]*)"
# A tag's start (``<name`` or ``</name``) anywhere in the text.
_TAG_START = re.compile(r"<" + _NAME)
# White space holding a line break.
_BREAK = re.compile(r"[ \t\r\n]*\n[ \t\r\n]*")


class BlockWhitespace(Extension):
    """Drops line breaks beside block-level tags from every template's text at load time."""

    def filter_stream(self, stream: TokenStream) -> Iterator[Token]:
        # The tag a ``>`` closes may have started in earlier text, before a ``{{ value }}``.
        open_tag = ""
        for token in stream:
            if token.type == "data":
                value, open_tag = squeeze(token.value, open_tag)
                token = Token(token.lineno, "data", value)
            yield token


def squeeze(text: str, open_tag: str = "") -> tuple[str, str]:
    """``text`` without the line breaks beside block-level tags, and the name of the last tag
    started in it (``open_tag``: the one started before it, if none is)."""
    kept: list[str] = []
    at = 0
    for found in _BREAK.finditer(text):
        start, end = found.span()
        before = text[:start]
        tag = _last_tag(before, open_tag)
        after_block = before.endswith(">") and tag in BLOCKS
        following = _TAG_START.match(text, end)
        before_block = following is not None and following.group(1).lower() in BLOCKS
        if after_block or before_block:
            kept.append(text[at:start])
            at = end
    kept.append(text[at:])
    return "".join(kept), _last_tag(text, open_tag)


def _last_tag(text: str, open_tag: str) -> str:
    starts = _TAG_START.findall(text)
    return starts[-1].lower() if starts else open_tag
