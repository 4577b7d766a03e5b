"""Read ``sitemap.xml`` (a urlset, or an index of numbered urlset files), validated by the schemas.

The sitemaps.org XML Schemas ship in ``generator/sitemaps_xsd``; ``lxml.etree.XMLSchema`` checks
the structure, and this module adds what a schema cannot: the 50,000-url and 50 MB limits per
file, index entries that point to files the output really has, and no index inside an index.
What the entries *say* (locs, lastmod) is checked by sitemap_checks, over the entries read here.
"""

from __future__ import annotations

import gzip
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lxml import etree

from generator.audit.findings import Finding, error
from generator.audit.site import path_of_url
from generator.serve.static import resolve_decoded_path

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
MAX_URLS = 50_000
MAX_BYTES = 50 * 1024 * 1024
ROOT_SITEMAP = "sitemap.xml"
_SCHEMA_DIR = Path(__file__).resolve().parent / "sitemaps_xsd"
_SCHEMA_ERRORS_SHOWN = 5


@dataclass(frozen=True, slots=True)
class SitemapSchemas:
    urlset: etree.XMLSchema
    index: etree.XMLSchema

    @classmethod
    def load(cls) -> SitemapSchemas:
        """Parse the two shipped schemas (once per audit, not at import)."""
        return cls(
            urlset=etree.XMLSchema(etree.parse(str(_SCHEMA_DIR / "sitemap.xsd"))),
            index=etree.XMLSchema(etree.parse(str(_SCHEMA_DIR / "siteindex.xsd"))),
        )


@dataclass(frozen=True, slots=True)
class SitemapEntry:
    """One <url> of a urlset, or one <sitemap> of an index."""

    loc: str
    lastmod: str | None
    file: str
    line: int

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass(slots=True)
class SitemapRead:
    """The urls of every sitemap file reached from /sitemap.xml, and what was wrong reading them."""

    urls: list[SitemapEntry] = field(default_factory=list)
    index_entries: list[SitemapEntry] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    found: bool = False


def read_sitemaps(out: Path, schemas: SitemapSchemas) -> SitemapRead:
    read = SitemapRead()
    root_file = out / ROOT_SITEMAP
    if not root_file.is_file():
        read.findings.append(
            error("sitemap-missing", ROOT_SITEMAP, "no sitemap.xml at the root of the output")
        )
        return read
    read.found = True
    root = _load(root_file, ROOT_SITEMAP, schemas, read)
    if root is None:
        return read
    if root.tag == f"{{{SITEMAP_NS}}}urlset":
        read.urls.extend(_entries(root, "url", ROOT_SITEMAP))
        return read
    read.index_entries.extend(_entries(root, "sitemap", ROOT_SITEMAP))
    if len(read.index_entries) > MAX_URLS:
        read.findings.append(
            error(
                "sitemap-limits",
                ROOT_SITEMAP,
                f"the index lists {len(read.index_entries):,} sitemaps; the limit is {MAX_URLS:,}",
            )
        )
    seen: set[Path] = set()
    for entry in read.index_entries:
        _read_child(out, entry, schemas, read, seen)
    return read


def _read_child(
    out: Path, entry: SitemapEntry, schemas: SitemapSchemas, read: SitemapRead, seen: set[Path]
) -> None:
    file = resolve_decoded_path(out, path_of_url(entry.loc) or "/")
    if file is None:
        read.findings.append(
            error(
                "sitemap-index",
                entry.where,
                f"index entry {entry.loc} points to a file the output does not have",
            )
        )
        return
    if file in seen:
        return
    seen.add(file)
    name = file.relative_to(out).as_posix()
    child = _load(file, name, schemas, read)
    if child is None:
        return
    if child.tag != f"{{{SITEMAP_NS}}}urlset":
        read.findings.append(
            error(
                "sitemap-index",
                entry.where,
                f"{name} is itself a sitemap index; an index may only list urlset files",
            )
        )
        return
    read.urls.extend(_entries(child, "url", name))


def _load(
    file: Path, name: str, schemas: SitemapSchemas, read: SitemapRead
) -> etree._Element | None:
    """Parse and schema-validate one sitemap file; None (with findings) when unusable."""
    read.files.append(name)
    data = _read_limited(file)
    if len(data) > MAX_BYTES:
        read.findings.append(
            error(
                "sitemap-limits",
                name,
                f"{name} is larger than 50 MB uncompressed; split it into an index of files",
            )
        )
    parser = etree.XMLParser(
        resolve_entities=False, no_network=True, load_dtd=False, huge_tree=True
    )
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError as exc:
        read.findings.append(error("sitemap-xml", name, f"not well-formed XML: {exc}"))
        return None
    if _has_doctype(root):
        # Entities are never expanded (no XXE); a sitemap has no business declaring any.
        read.findings.append(error("sitemap-xml", name, "a sitemap must not have a DOCTYPE"))
        return None
    if root.tag == f"{{{SITEMAP_NS}}}urlset":
        schema = schemas.urlset
    elif root.tag == f"{{{SITEMAP_NS}}}sitemapindex":
        schema = schemas.index
    else:
        read.findings.append(
            error(
                "sitemap-schema",
                name,
                f"root element is {root.tag}, not a sitemaps.org urlset or sitemapindex",
            )
        )
        return None
    if not schema.validate(root):
        for line, message in _schema_errors(schema)[:_SCHEMA_ERRORS_SHOWN]:
            read.findings.append(error("sitemap-schema", f"{name}:{line}", message))
    count = len(root)
    if root.tag.endswith("urlset") and count > MAX_URLS:
        read.findings.append(
            error(
                "sitemap-limits",
                name,
                f"{name} lists {count:,} urls; the limit is {MAX_URLS:,} per file",
            )
        )
    return root


def _has_doctype(root: etree._Element) -> bool:
    docinfo: Any = root.getroottree().docinfo  # untyped in the lxml stubs
    return bool(docinfo.doctype)


def _schema_errors(schema: etree.XMLSchema) -> list[tuple[int, str]]:
    """(line, message) of the last validation; the lxml stubs leave the error log untyped."""
    log: Any = schema.error_log
    return [(int(entry.line), str(entry.message).replace(f"{{{SITEMAP_NS}}}", "")) for entry in log]


def _read_limited(file: Path) -> bytes:
    """The file's bytes, gunzipped for .gz, read to one byte past the limit (no gzip bombs)."""
    if file.suffix == ".gz":
        with gzip.open(file, "rb") as stream:
            return stream.read(MAX_BYTES + 1)
    return file.read_bytes()


def _entries(root: etree._Element, tag: str, name: str) -> list[SitemapEntry]:
    found = []
    for element in root.iterfind(f"{{{SITEMAP_NS}}}{tag}"):
        loc = element.findtext(f"{{{SITEMAP_NS}}}loc")
        lastmod = element.findtext(f"{{{SITEMAP_NS}}}lastmod")
        line = element.sourceline if isinstance(element.sourceline, int) else 0
        found.append(
            SitemapEntry(
                loc=(loc or "").strip(),
                lastmod=lastmod.strip() if lastmod is not None else None,
                file=name,
                line=line,
            )
        )
    return found
