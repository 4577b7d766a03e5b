"""Url paths to output files, and the one public spelling of a path: pure functions, no I/O.

A page path comes from the API (a product's ``url``, a custom path, ``/bai-viet/<slug>``). It may
arrive percent-encoded (``/%C3%A1o-thun``) or not (``/áo-thun``), in NFC or NFD. Three spellings
are derived from it, all here so they cannot drift apart:

- ``page_key``: the decoded NFC text, used to decide whether two spellings name one page;
- ``public_path``: NFC, percent-encoded where needed; what links, canonicals and sitemap locs
  carry (the path as the API gave it, never a slug-built path, never ``.html``);
- ``output_file``: the file under the output folder, named by the decoded NFC text
  (``/a/b`` -> ``a/b.html``, ``/`` -> ``index.html``).

A path ending in a slash (``/a/b/``) is written to ``a/b/index.html``: that is where nginx
(``try_files``), GitHub Pages, Netlify and Cloudflare Pages look for ``/a/b/``.

Anything that could leave the output folder, or that no server would map back to the file, is
refused with ``UnsafePath``: a path not starting with one ``/``, ``.`` or ``..`` segments (also
percent-encoded), an encoded slash, backslashes, NUL and other control characters, a query or
fragment, empty or hidden (``.name``) segments, malformed percent-encoding, names too long for a
file system.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from pathlib import PurePosixPath
from urllib.parse import quote, urlsplit

from generator.errors import UnsafePath

INDEX_FILE = "index.html"
PAGE_SUFFIX = ".html"
# Most file systems cap one name at 255 bytes; the suffix counts.
MAX_NAME_BYTES = 255
# Characters kept as they are in a path segment besides letters, digits and "-._~" (RFC 3986
# sub-delims plus ":" and "@"); everything else is percent-encoded.
_SEGMENT_SAFE = "!$&'()*+,;=:@"
_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
_BAD_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")
# The Unicode control characters (general category Cc): C0, DEL and C1.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
# A path of plain ASCII letters, digits and characters kept raw in a url (no "%", "?", "#",
# "\\" or controls): decoding and NFC change nothing, so only the segment checks remain.
_PLAIN = re.compile(r"/[A-Za-z0-9\-._~!$&'()*+,;=:@/]*")
# A plain path that passes every segment check as well: segments of 1 to 250 such characters
# (a name within MAX_NAME_BYTES once suffixed), none starting with a dot, the last may be empty.
_PLAIN_SAFE = re.compile(
    rf"(?:/(?!\.)[A-Za-z0-9\-._~!$&'()*+,;=:@]{{1,{MAX_NAME_BYTES - len(PAGE_SUFFIX)}}})*/?"
)


@functools.lru_cache(maxsize=1 << 18)
def decoded_segments(url_path: str) -> tuple[str, ...]:
    """The path's segments, percent-decoded (UTF-8) and NFC, after every safety check.

    A trailing slash yields a last empty segment; ``/`` yields ``("",)``. Remembered (an unsafe
    path raises again each time): a build asks about every page path several times - the plan,
    the links, the file names, the sitemap - and a rebuild asks about all of them again.
    """
    if not isinstance(url_path, str) or not url_path:
        raise UnsafePath(f"empty page path {url_path!r}")
    if not url_path.startswith("/") or url_path.startswith("//"):
        raise UnsafePath(f"page path {url_path!r} must start with exactly one '/'")
    if _PLAIN_SAFE.fullmatch(url_path):  # nearly every path: nothing to decode or check
        return tuple(url_path[1:].split("/"))
    if _PLAIN.fullmatch(url_path):  # no decoding; a segment check will refuse it
        return _checked(url_path, tuple(url_path[1:].split("/")))
    if "?" in url_path or "#" in url_path:
        raise UnsafePath(f"page path {url_path!r} carries a query or fragment")
    if _BAD_ESCAPE.search(url_path):
        raise UnsafePath(f"page path {url_path!r} has a '%' that is not a percent-escape")
    raw_segments = url_path[1:].split("/")
    return _checked(url_path, tuple(_decode_segment(url_path, raw) for raw in raw_segments))


def _checked(url_path: str, segments: tuple[str, ...]) -> tuple[str, ...]:
    """The decoded segments, once none is empty (but the last), a dot segment, hidden or too
    long for a file name."""
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == "" and not last:
            raise UnsafePath(f"page path {url_path!r} has an empty segment")
        if segment in (".", ".."):
            raise UnsafePath(f"page path {url_path!r} has a '{segment}' segment")
        if segment.startswith("."):
            raise UnsafePath(f"page path {url_path!r} has a hidden segment {segment!r}")
        name_bytes = len(segment.encode("utf-8")) + len(PAGE_SUFFIX)
        if name_bytes > MAX_NAME_BYTES:
            raise UnsafePath(
                f"page path {url_path!r} has a segment too long for a file name "
                f"({name_bytes} bytes, at most {MAX_NAME_BYTES})"
            )
    return segments


def _decode_segment(url_path: str, raw: str) -> str:
    try:
        text = _unescape(raw)
    except UnicodeDecodeError:
        raise UnsafePath(f"page path {url_path!r} is not UTF-8 once percent-decoded") from None
    if "/" in text:
        raise UnsafePath(f"page path {url_path!r} has an encoded slash inside a segment")
    if "\\" in text:
        raise UnsafePath(f"page path {url_path!r} contains a backslash")
    if _CONTROL.search(text):
        raise UnsafePath(f"page path {url_path!r} contains a NUL or control character")
    return unicodedata.normalize("NFC", text)


def _unescape(raw: str) -> str:
    """Percent-decode one segment strictly: the escaped bytes must form UTF-8."""
    out = bytearray()
    pos = 0
    for match in _ESCAPE.finditer(raw):
        out += raw[pos : match.start()].encode("utf-8")
        out.append(int(match.group(1), 16))
        pos = match.end()
    out += raw[pos:].encode("utf-8")
    return out.decode("utf-8", errors="strict")


def page_key(url_path: str) -> str:
    """The decoded NFC path: two spellings of one page share it (``/%C3%A1o`` and ``/áo``)."""
    return "/" + "/".join(decoded_segments(url_path))


def public_path(url_path: str) -> str:
    """NFC, percent-encoded where needed: the spelling of links, canonicals and sitemap locs.

    Escapes the API already used stay escapes (with upper-case hex); characters that may not
    appear raw in a url (non-ASCII, spaces, quotes, ``<>``...) are encoded as UTF-8.
    """
    segments = decoded_segments(url_path)
    if _PLAIN.fullmatch(url_path):
        return url_path  # every character is one quote keeps as it is
    return "/" + "/".join(quote(s, safe=_SEGMENT_SAFE) for s in segments)


def output_file(url_path: str) -> PurePosixPath:
    """The file, relative to the output folder, that serves ``url_path``.

    ``/`` -> ``index.html``; ``/a/b`` -> ``a/b.html``; ``/a/b/`` -> ``a/b/index.html``.
    """
    return PurePosixPath(output_name(url_path))


def output_name(url_path: str) -> str:
    """``output_file`` as a plain string (``a/b.html``): cheaper to make, hash and compare."""
    segments = decoded_segments(url_path)
    *folders, name = segments
    file_name = INDEX_FILE if name == "" else name + PAGE_SUFFIX
    return "/".join((*folders, file_name))


def base_path(site_url: str) -> str:
    """The path prefix a site is published under: "" at a host's root, else e.g. "/shop".

    Links, assets and the islands' calls carry it; canonicals and sitemap locs carry it through
    the site url itself. Refuses a prefix that could not be a folder of the host."""
    path = urlsplit(site_url).path.rstrip("/")
    if path:
        public = public_path(path)
        if public != path:
            raise UnsafePath(f"site url path {path!r} must be written as {public!r}")
    return path
