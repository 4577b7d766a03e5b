"""The catalogue of checks: every id a finding may carry, with what it guards.

Ids are stable (CI logs and ``--json`` consumers grep them); docs/audit.md lists the same ids,
and a test keeps the two in step. A finding with an id missing here is a programming error.
"""

from __future__ import annotations

from collections.abc import Mapping

CHECKS: Mapping[str, str] = {
    # sitemap files
    "sitemap-missing": "sitemap.xml exists at the root of the output",
    "sitemap-xml": "each sitemap file is well-formed XML without a DOCTYPE",
    "sitemap-schema": "each file validates against the sitemaps.org schema",
    "sitemap-limits": "at most 50,000 urls and 50 MB uncompressed per file",
    "sitemap-index": "index entries point to written urlset files; no index inside an index",
    # sitemap entries
    "sitemap-loc": "locs are absolute, on the site's origin, percent-encoded, without fragment",
    "sitemap-duplicate": "each page is listed once",
    "sitemap-not-served": "every loc is a page the output serves (not the 404 page)",
    "sitemap-noindex": "no listed page says noindex",
    "sitemap-non-canonical": "every listed page names the loc itself as canonical",
    "sitemap-lastmod": "lastmod is a W3C datetime, with a time zone when it has a time, not future",
    "sitemap-missing-page": "every indexable, self-canonical page is listed",
    "sitemap-section-count": "with an API: per section, declared rows versus emitted paths",
    "sitemap-section-missing": "with an API: every path a section serves is listed",
    "robots-txt": "robots.txt exists, names the sitemap, and does not block every crawler",
    # pages
    "page-parse": "the HTML can be parsed",
    "page-lang": "<html> has a lang attribute",
    "page-title": "one non-empty <title>",
    "page-description": "one non-empty meta description on indexable pages",
    "page-canonical": "exactly one absolute canonical, on the site, to a written page",
    "page-img-alt": "every <img> has an alt attribute (empty for decoration)",
    "page-csp-refused": "nothing in a page (a content script, frame, ...) is refused by its policy",
    "island-markup": "every element and attribute the islands read is in the pages that hold them",
    "duplicate-title": "indexable, self-canonical pages have distinct titles",
    "duplicate-description": "indexable, self-canonical pages have distinct descriptions",
    # structured data
    "jsonld-invalid": "JSON-LD blocks are valid JSON",
    "jsonld-context": "JSON-LD names the schema.org context",
    "jsonld-product": "Product: name; offers with price > 0 as a number, VND, availability; image",
    "jsonld-breadcrumb": "BreadcrumbList: positions 1..n, names, absolute item urls",
    # links
    "link-no-href": "every <a> has a crawlable href (no javascript:)",
    "link-null-url": "no href built from a null url (/None, /null, undefined, empty)",
    "link-broken": "every internal link leads to a page the output serves",
    "link-html": "internal links carry paths without .html",
    "link-to-duplicate": "internal links lead to the canonical page, not a duplicate naming it",
    "url-unusable": "every url of the API is a usable path or link (the build treated it as null)",
    "asset-missing": (
        "every stylesheet, script, icon and image under the site exists, and every file a "
        "stylesheet loads"
    ),
    # reachability
    "reach-orphan": "every page in the sitemap can be reached from the home page by links",
    "reach-depth": "every page reached is at most --max-depth clicks (4) from the home page",
}
