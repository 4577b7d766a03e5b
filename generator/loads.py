"""What a page's content makes a browser load: the sources its Content-Security-Policy allows.

A *load* is a pair (directive, source), e.g. ``("img-src", "https://cdn.example.vn")``. Image
urls from the API give ``img-src`` loads (``image_loads``); a merchant's ``*_html`` field, the
one kind of API text put in pages unescaped, gives a load for each element that fetches
something and each inline script or style (``html_loads``). Site paths need no load: the
policy allows its own origin. A url that is not plain http(s) with an ordinary host gives
none, so nothing from the API can put a wildcard, a quote or a ``;`` into the policy.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Iterable
from urllib.parse import urlsplit

Load = tuple[str, str]

#: A CSP host source: letters, digits, dots and hyphens (IDN hosts arrive punycoded or not at all).
_HOST = re.compile(r"^[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?$")
#: Tags of merchant HTML that fetch something, with the directive each is checked against.
_FETCHING = {
    "img": "img-src", "source": "media-src", "video": "media-src",
    "audio": "media-src", "track": "media-src", "iframe": "frame-src", "frame": "frame-src",
    "embed": "object-src", "object": "object-src", "script": "script-src", "form": "form-action",
}  # fmt: skip
_URL_ATTRIBUTES = ("src", "poster", "data", "action", "href")
_TAG = re.compile(
    r"<(/?)([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[^\s>/=]+(?:\s*=\s*(?:\"[^\"]*\"|'[^']*'|[^\s\"'>]+))?)*)\s*/?>"
)  # noqa: E501
_ATTRIBUTE = re.compile(r"([^\s>/=]+)(?:\s*=\s*(\"[^\"]*\"|'[^']*'|[^\s\"'>]+))?")
_SCRIPT_BODY = re.compile(r"<script\b([^>]*)>(.*?)</script\s*>", re.IGNORECASE | re.DOTALL)
#: Script types a browser runs (or reads as an import map), all checked against script-src.
_RUN = frozenset({"", "module", "importmap", "text/javascript", "application/javascript"})


def url_source(url: str) -> str | None:
    """The CSP source a url is fetched under: its scheme and host (and port); None for a site
    path (the page's own origin) or for anything that is not a plain http(s) url."""
    if url.startswith("//"):
        url = "https:" + url
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    host = parts.hostname
    if parts.scheme not in ("http", "https") or host is None or not _HOST.match(host):
        return None
    return f"{parts.scheme}://{host}" + (f":{port}" if port is not None else "")


def image_loads(urls: Iterable[str | None]) -> set[Load]:
    return {("img-src", source) for url in urls if url and (source := url_source(url))}


def html_loads(html: str | None) -> set[Load]:
    """The loads of a merchant's HTML as it is put in the page: the hosts its elements fetch
    from (``srcset`` included), a hash of each inline script that would run, and
    ``'unsafe-inline'`` styles when it carries a style attribute or element (themes do not)."""
    if not html or "<" not in html:
        return set()
    loads: set[Load] = set()
    for match in _TAG.finditer(html):
        closing, tag, attributes = match.group(1), match.group(2).lower(), match.group(3)
        if closing:
            continue
        if tag == "style":
            loads.add(("style-src", "'unsafe-inline'"))
        values = _attributes(attributes)
        if "style" in values:
            loads.add(("style-src", "'unsafe-inline'"))
        directive = _FETCHING.get(tag)
        if tag == "source" and "srcset" in values:  # inside <picture>: an image
            directive = "img-src"
        if tag == "link":
            rel = values.get("rel", "").lower().split()
            directive = "style-src" if "stylesheet" in rel else "img-src" if "icon" in rel else None
        if directive is None:
            continue
        urls = [values[name] for name in _URL_ATTRIBUTES if name in values]
        if "srcset" in values:
            urls += [part.strip().split(" ")[0] for part in values["srcset"].split(",")]
        for url in urls:
            source = url_source(url.strip())
            if source is not None:
                loads.add((directive, source))
    for attributes, body in _SCRIPT_BODY.findall(html):
        values = _attributes(attributes)
        if "src" not in values and values.get("type", "").strip().lower() in _RUN and body:
            loads.add(("script-src", script_hash(body)))
    return loads


def script_hash(body: str) -> str:
    """The CSP hash source of an inline script's text, exactly as the page holds it."""
    digest = hashlib.sha256(body.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def _attributes(text: str) -> dict[str, str]:
    values: dict[str, str] = {}
    for name, value in _ATTRIBUTE.findall(text):
        if value[:1] in ("'", '"'):
            value = value[1:-1]
        values.setdefault(name.lower(), value)
    return values
