"""What the site's stylesheets load: every ``url()`` to a file of the site is in the output.

A self-hosted font or background image is named only in CSS, never in a page, so the page
checks cannot see it missing. Each stylesheet the pages link is read once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from urllib.parse import urlsplit

from generator.audit.findings import Finding, error
from generator.audit.link_checks import Served
from generator.audit.site import Page
from generator.audit.urls import internal_path
from generator.css_urls import CSS_URL, url_in

#: A decoded site path -> the file the output serves there (None: none).
FileAt = Callable[[str], Path | None]


def check_stylesheets(
    pages: Iterable[Page], served: Served, file_at: FileAt, origin: str | None
) -> list[Finding]:
    findings: list[Finding] = []
    seen: set[str] = set()
    for page in pages:
        for resource in page.resources:
            path = internal_path(resource.url, page_path=page.path, origin=origin)
            if path is None or not path.endswith(".css") or path in seen:
                continue
            seen.add(path)
            file = file_at(path)
            if file is not None:
                findings += _check_one(path, file.read_bytes(), served)
    return findings


def _check_one(path: str, css: bytes, served: Served) -> list[Finding]:
    findings = []
    for found in CSS_URL.finditer(css):
        url = url_in(found)
        if url is None:
            continue
        target = internal_path(url, page_path=path, origin=None)
        if target is not None and not served(target):
            line = css.count(b"\n", 0, found.start()) + 1
            findings.append(
                error(
                    "asset-missing",
                    f"{path.lstrip('/')}:{line}",
                    f"url({url}) is loaded by the stylesheet but the output has no file at "
                    f"{urlsplit(target).path}",
                )
            )
    return findings
