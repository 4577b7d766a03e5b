"""Decoding an answer's JSON into values the rest of a build can use as they are.

Does: parse a body and refuse what the parser trips on or accepts but later code cannot use:
nesting deeper than ``MAX_DEPTH`` (``json.loads`` itself fails near 1,000 levels with a
RecursionError, and the crawl's recursive readers, the category tree's, well before), and a
lone UTF-16 surrogate escape (``"\\ud800"``), valid JSON that decodes to text no page can be
written in. Each refusal is a ``JsonRefused`` whose message is one line (``NotJson`` for a
body that is no JSON at all).

Does NOT: name the endpoint (the request layer does) or check the JSON's shape.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import cast

#: Deepest nesting of arrays and objects accepted. The spec's deepest answers (a category tree,
#: a menu) nest a few levels per tree level; 100 leaves room for 30 levels and more.
MAX_DEPTH = 100

#: An escape that may be half of a surrogate pair: where a lone surrogate could hide. Escaped
#: pairs (emoji as "\ud83d\ude00") match too; the decoded text tells the two apart.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


class JsonRefused(ValueError):
    """A body that is JSON a build cannot use; the message says why."""


class NotJson(JsonRefused):
    """A body that is not JSON at all (nor UTF-8)."""


def decode_json(body: bytes | bytearray) -> object:
    """The decoded body; ``JsonRefused`` when it is not usable JSON."""
    try:
        data: object = json.loads(body)
    except RecursionError:
        raise JsonRefused(_too_deep()) from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise NotJson("the answer is not JSON") from exc
    if _may_nest_deeper(body) and _depth_exceeds(data, MAX_DEPTH):
        raise JsonRefused(_too_deep())
    if _SURROGATE_ESCAPE.search(body):
        lone = _lone_surrogate(data)
        if lone is not None:
            raise JsonRefused(
                f"the answer's JSON holds a lone UTF-16 surrogate (\\u{ord(lone):04x}), "
                "not Unicode text"
            )
    return data


def _too_deep() -> str:
    return f"the answer's JSON nests deeper than {MAX_DEPTH} levels"


def _may_nest_deeper(body: bytes | bytearray) -> bool:
    """False when the body has too few brackets to nest deeper than ``MAX_DEPTH``: most
    answers, which then need no walk."""
    return body.count(b"[") + body.count(b"{") > MAX_DEPTH


def _depth_exceeds(data: object, limit: int) -> bool:
    """Whether arrays and objects nest more than ``limit`` deep, level by level (no recursion:
    the structure may be as deep as the parser allowed). ``json.loads`` makes plain dicts and
    lists, so exact type checks suffice, at a quarter of the cost of ``isinstance``."""
    level: list[object] = [data] if type(data) is dict or type(data) is list else []
    depth = 0
    while level:
        depth += 1
        if depth > limit:
            return True
        below: list[object] = []
        append = below.append
        for container in level:
            values = container.values() if type(container) is dict else container
            for value in cast(Iterable[object], values):
                if type(value) is dict or type(value) is list:
                    append(value)
        level = below
    return False


def _lone_surrogate(data: object) -> str | None:
    """The first lone surrogate in any key or text of ``data``; None when there is none. (The
    parser joins escaped pairs into one character, so any surrogate left is lone.)"""
    pending = [data]
    while pending:
        value = pending.pop()
        texts: list[object]
        if isinstance(value, dict):
            texts = list(value.keys())
            pending.extend(value.values())
        elif isinstance(value, list):
            texts = []
            pending.extend(value)
        else:
            texts = [value]
        for text in texts:
            if isinstance(text, str) and (found := _SURROGATE.search(text)):
                return found.group()
    return None
