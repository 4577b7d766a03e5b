"""Which paths the API proxy of `storefront serve` forwards: ``accepted_path``.

The decision is made on the path as the API will read it, decoded once, and the path is then
forwarded exactly as the client wrote it. So that no server behind the API (one that decodes a
second time, resolves dot segments or reads a backslash as a slash) can read another path, the
accepted paths are plain: no escaped "/", "\\", "." or "%", no dot or empty segments, no ";"
(some servers end a segment there, reading "..;" as ".."), no control characters, UTF-8 only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import unquote


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a path is not forwarded: the status and code of the problem answer."""

    status: int
    code: str
    detail: str


# RFC 3986's path characters less ";", and well-formed percent escapes.
_RAW_PATH = re.compile(r"(?:[A-Za-z0-9\-._~!$&'()*+,=:@/]|%[0-9A-Fa-f]{2})*")
_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
# Escaped, these would change the path's structure for a server that decodes them again.
_NEVER_ESCAPED = frozenset(b"/\\.%") | frozenset(range(0x20)) | {0x7F}


def accepted_path(raw: str, prefixes: tuple[str, ...]) -> str | Refusal:
    """``raw`` (the path as sent, no query) when, decoded once, it is a plain path under one of
    ``prefixes``; otherwise why it is refused."""
    if "\\" in raw:
        return Refusal(400, "backslash_in_path", "a path holds no backslash")
    if not _RAW_PATH.fullmatch(raw) or not raw.startswith("/"):
        return Refusal(400, "bad_path", "the path is not a plain percent-encoded path")
    if any(int(hex_, 16) in _NEVER_ESCAPED for hex_ in _ESCAPE.findall(raw)):
        return Refusal(400, "encoded_separator", "a path holds no escaped / \\ . % or controls")
    try:
        decoded = unquote(raw, errors="strict")
    except UnicodeDecodeError:
        return Refusal(400, "bad_path", "the path's escapes are not UTF-8")
    if not decoded.isprintable():
        return Refusal(400, "bad_path", "the path holds unprintable characters")
    segments = decoded.split("/")[1:]
    if segments and segments[-1] == "":  # a trailing slash is the API's to answer
        segments.pop()
    if any(segment in ("", ".", "..") for segment in segments):
        return Refusal(400, "dot_segment", "a path holds no dot or empty segments")
    if not decoded.startswith(prefixes):
        return Refusal(404, "not_found", "no such API path")
    return raw
