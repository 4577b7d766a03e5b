"""The files a stylesheet loads: its ``url(...)`` references, comments left out.

    for found in CSS_URL.finditer(css):
        url = url_in(found)   # None: a comment, or a url that is not a file of the site

A file of the site is a relative or root-relative path: not ``data:`` or another scheme, not a
fragment alone (``url(#clip)``), not empty.
"""

from __future__ import annotations

import re

# url(...), quoted or not (a quoted one may hold the other quote and parentheses); a comment
# is matched whole, so that a url in it is seen as part of the comment.
CSS_URL = re.compile(rb"""/\*.*?\*/|url\(\s*(?:"([^"]*)"|'([^']*)'|([^"')\s]*))\s*\)""", re.DOTALL)
_NOT_A_FILE = re.compile(r"^(?:[a-zA-Z][a-zA-Z0-9+.-]*:|//|#|$)")


def url_in(found: re.Match[bytes]) -> str | None:
    """The url of a ``CSS_URL`` match when it names a file of the site, else None."""
    raw = next((group for group in found.groups() if group is not None), None)
    if raw is None:  # a comment
        return None
    url = raw.decode("utf-8", "replace")
    return None if _NOT_A_FILE.match(url) else url


def split_url(url: str) -> tuple[str, str, str]:
    """(path, '?query' or '', '#fragment' or '')."""
    path, hash_mark, fragment = url.partition("#")
    path, question, query = path.partition("?")
    return path, question + query, hash_mark + fragment
