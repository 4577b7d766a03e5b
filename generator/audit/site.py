"""The output folder as the audit sees it: every written page, parsed once.

A page is an ``.html`` file outside ``/_assets/``; its url path follows the layout contract
(``index.html`` -> ``/``, ``a/b.html`` -> ``/a/b``). Paths are kept decoded, exactly as the file
names are written; ``path_of_url`` decodes a link or loc the same way a server does, so the two
compare byte for byte.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlsplit

import lxml.html
from lxml import etree

from generator.loads import Load, html_loads
from generator.render.island_markup import default_islands, markup_gaps, page_type
from generator.serve.static import ASSET_PREFIX, NOT_FOUND_PAGE

_ASSET_DIR = ASSET_PREFIX.strip("/")


@dataclass(frozen=True, slots=True)
class Anchor:
    href: str | None
    line: int


@dataclass(frozen=True, slots=True)
class Img:
    src: str | None
    alt: str | None
    line: int


@dataclass(frozen=True, slots=True)
class Resource:
    """A stylesheet, script, icon or image the page loads from a url."""

    url: str
    line: int


@dataclass(frozen=True, slots=True)
class JsonLd:
    text: str
    line: int


@dataclass(frozen=True, slots=True)
class Page:
    """What the checks need from one written page."""

    path: str  # decoded url path, "/" or "/a/b"
    file: str  # relative file name, for messages
    lang: str | None
    titles: tuple[str, ...]
    descriptions: tuple[str, ...]
    canonicals: tuple[str, ...]
    robots: tuple[str, ...]
    anchors: tuple[Anchor, ...]
    images: tuple[Img, ...]
    resources: tuple[Resource, ...]
    jsonld: tuple[JsonLd, ...]
    parse_error: str | None = None
    #: The page's <meta> Content-Security-Policy, and what its markup loads from elsewhere
    #: (``generator.loads``: hosts by directive, inline scripts by hash).
    policy: str | None = None
    loads: frozenset[Load] = frozenset()
    #: What the page's islands read and it lacks (``island_markup``), one line each.
    island_gaps: tuple[str, ...] = ()

    @property
    def noindex(self) -> bool:
        return any("noindex" in r.lower().replace(" ", "").split(",") for r in self.robots)

    @property
    def is_not_found_page(self) -> bool:
        return self.file == NOT_FOUND_PAGE

    def at(self, line: int | None = None) -> str:
        return f"{self.file}:{line}" if line else self.file


def path_of_file(relative: PurePosixPath) -> str:
    """The url path a page file is served at: ``index.html`` -> ``/``, ``a/b.html`` -> ``/a/b``."""
    if relative == PurePosixPath("index.html"):
        return "/"
    return "/" + str(relative.with_suffix(""))


def path_of_url(url: str) -> str:
    """The decoded path part of a link or loc, as a server looks it up ('' stays '')."""
    return unquote(urlsplit(url).path)


def page_files(out: Path) -> list[PurePosixPath]:
    """Every page file of the output folder, relative, sorted; assets and hidden files excluded."""
    found: list[PurePosixPath] = []
    for file in out.rglob("*.html"):
        relative = PurePosixPath(file.relative_to(out).as_posix())
        if relative.parts[0] == _ASSET_DIR or any(p.startswith(".") for p in relative.parts):
            continue
        if file.is_file():
            found.append(relative)
    return sorted(found)


def read_pages(out: Path, base: str = "") -> tuple[Page, ...]:
    """Every page of ``out``, at its url path under the site's path prefix ``base``."""
    return tuple(parse_page(rel, (out / rel).read_bytes(), base) for rel in page_files(out))


def parse_page(relative: PurePosixPath, html: bytes, base: str = "") -> Page:
    """Parse one page's HTML into the facts the checks read; a broken file becomes parse_error."""
    path, file = base + path_of_file(relative), str(relative)
    try:
        doc = lxml.html.document_fromstring(html)
    except (etree.ParserError, ValueError) as exc:
        return Page(path, file, None, (), (), (), (), (), (), (), (), parse_error=str(exc))
    head_meta = {
        name: tuple(
            (m.get("content") or "").strip()
            for m in doc.iter("meta")
            if (m.get("name") or "").lower() in names
        )
        for name, names in (("description", {"description"}), ("robots", {"robots", "googlebot"}))
    }
    return Page(
        path=path,
        file=file,
        lang=(doc.get("lang") or "").strip() or None,
        titles=tuple("".join(str(x) for x in t.itertext()).strip() for t in doc.iter("title")),
        descriptions=head_meta["description"],
        canonicals=tuple(
            (link.get("href") or "").strip()
            for link in doc.iter("link")
            if "canonical" in (link.get("rel") or "").lower().split()
        ),
        robots=head_meta["robots"],
        anchors=tuple(Anchor(a.get("href"), _line(a)) for a in doc.iter("a")),
        images=tuple(Img(img.get("src"), img.get("alt"), _line(img)) for img in doc.iter("img")),
        resources=_resources(doc),
        jsonld=tuple(
            JsonLd(s.text or "", _line(s))
            for s in doc.iter("script")
            if (s.get("type") or "").strip().lower() == "application/ld+json"
        ),
        policy=next(
            (
                (m.get("content") or "").strip()
                for m in doc.iter("meta")
                if (m.get("http-equiv") or "").lower() == "content-security-policy"
            ),
            None,
        ),
        loads=frozenset(html_loads(html.decode("utf-8", errors="replace"))),
        island_gaps=tuple(
            gap.text(page_type(doc) or path) for gap in markup_gaps(doc, default_islands())
        ),
    )


def _line(element: object) -> int:
    """The source line of an element (the stubs leave ``sourceline`` untyped)."""
    line = getattr(element, "sourceline", None)
    return line if isinstance(line, int) else 0


def _resources(doc: lxml.html.HtmlElement) -> tuple[Resource, ...]:
    found: list[Resource] = []
    for el in doc.iter("link", "script", "img", "source"):
        if el.tag == "link":
            rels = set((el.get("rel") or "").lower().split())
            if rels & {"canonical", "alternate", "next", "prev", "preconnect", "dns-prefetch"}:
                continue
            url = el.get("href")
        else:
            url = el.get("src")
        if url and url.strip():
            found.append(Resource(url.strip(), _line(el)))
        for candidate in (el.get("srcset") or "").split(","):
            src = candidate.strip().split(" ")[0]
            if src:
                found.append(Resource(src, _line(el)))
    return tuple(found)
