"""End tags and quotes HTML does not need, dropped from the templates as they load: no render
cost, and the page a browser builds is the same.

- ``</li>`` goes where HTML lets it go and the template says what follows: before another
  ``<li``, before the list's own end tag, or where the template's text stops (the end of a
  loop's body: the next item or the list's end follows). ``</p>`` goes before a block that
  would end the paragraph anyway, or before its parent's end tag. Not inside ``<template>``.
- A literal attribute value made only of letters, digits and ``_ . : -`` loses its quotes
  (``class="card"`` becomes ``class=card``) when a space or the tag's ``>`` follows it.

Only the template's own text is touched: values (``{{ ... }}``) and merchant ``*_html`` fields
come out as they are, quoted and closed as they were written.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from jinja2.ext import Extension
from jinja2.lexer import Token, TokenStream

# What may follow a dropped ``</li>``: white space, then another item, the list's end, or the
# end of the template's text.
_AFTER_ITEM = re.compile(r"\s*(?:<li[\s>]|</ul>|</ol>|</menu>|$)", re.IGNORECASE)
# What may follow a dropped ``</p>`` (HTML's own list): a block that ends the paragraph, or the
# end of an element that may hold it.
_AFTER_PARAGRAPH = re.compile(
    r"\s*(?:<(?:address|article|aside|blockquote|details|dialog|div|dl|fieldset|figcaption|figure"
    r"|footer|form|h[1-6]|header|hgroup|hr|main|menu|nav|ol|p|pre|search|section|table|ul)[\s>]"
    r"|</(?:address|article|aside|blockquote|body|dd|details|div|fieldset|figcaption|figure"
    r"|footer|form|header|li|main|nav|section|td|th)>)",
    re.IGNORECASE,
)
_OPTIONAL_END = {"</li>": _AFTER_ITEM, "</p>": _AFTER_PARAGRAPH}
# A quoted attribute value needing no quotes, followed by a space or the tag's end.
_QUOTED = re.compile(r"""(\s[a-zA-Z][a-zA-Z0-9_:.-]*)="([a-zA-Z0-9_.:-]+)"(?=[\s>])""")
# A tag, whole (``>`` found) or still open where the text stops.
_TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9-]*)[^>]*(>|$)")
# Elements whose text is not markup.
_RAW_TEXT = frozenset({"script", "style"})


class OptionalMarkup(Extension):
    """Drops optional end tags (``</li>``, ``</p>``) and needless attribute quotes from template
    text."""

    def filter_stream(self, stream: TokenStream) -> Iterator[Token]:
        # Text between two ``{{ }}`` may sit inside one tag (``<a href="{{ u }}" class="x">``),
        # a <template> or a <script>: the state carries from one piece of text to the next.
        state = _State()
        for token in stream:
            if token.type == "data":
                token = Token(token.lineno, "data", state.squeeze(token.value))
            yield token


class _State:
    def __init__(self) -> None:
        self.in_tag = False
        self.raw_text = ""  # the element (script, style) whose text this is, if any
        self.templates = 0  # <template> elements open: their items are left as written

    def squeeze(self, text: str) -> str:
        """``text`` without its optional markup; the state moved to where it ends."""
        kept: list[str] = []
        at = 0
        if self.in_tag:
            end = text.find(">")
            if end < 0:
                return _QUOTED.sub(r"\1=\2", text)
            kept.append(_QUOTED.sub(r"\1=\2", text[: end + 1]))
            self.in_tag = False
            at = end + 1
        while True:
            found = _TAG.search(text, at)
            if found is None:
                break
            start, end = found.span()
            kept.append(text[at:start])
            at = end
            kept.append(self._tag(found, text))
        kept.append(text[at:])
        return "".join(kept)

    def _tag(self, found: re.Match[str], text: str) -> str:
        closing, name, tag = found.group(1), found.group(2).lower(), found.group(0)
        if self.raw_text:
            if closing and name == self.raw_text:
                self.raw_text = ""
            return tag
        if not found.group(3):
            self.in_tag = True
        elif name in _RAW_TEXT and not closing:
            self.raw_text = name
        if name == "template":
            self.templates = max(self.templates + (-1 if closing else 1), 0)
        elif closing and not self.templates and tag in _OPTIONAL_END:
            if _OPTIONAL_END[tag].match(text, found.end()):
                return ""
        return tag if closing else _QUOTED.sub(r"\1=\2", tag)
