"""What the sitemap says, checked against the protocol and against the pages actually written.

Pure functions over the entries sitemap_files read and the pages site.py parsed: absolute,
same-origin, percent-encoded locs; no duplicates; every loc served by a written page that is
indexable and canonical; valid lastmod not in the future; every indexable page listed; and a
robots.txt that points crawlers to the sitemap.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, date, datetime, timedelta

from generator.audit.findings import Finding, error, warning
from generator.audit.site import Page, path_of_url
from generator.audit.sitemap_files import SitemapEntry
from generator.audit.urls import is_percent_encoded, origin_of, same_url

# W3C Datetime (the profile the protocol names): YYYY, YYYY-MM, YYYY-MM-DD, or a date with
# hh:mm[:ss[.s]] and, when it has a time, a time zone designator.
_W3C_DATETIME = re.compile(
    r"^(?P<date>\d{4}(?:-\d{2}(?:-\d{2})?)?)"
    r"(?:T(?P<time>\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(?P<tz>Z|[+-]\d{2}:\d{2})?)?$"
)
# A date alone is a day somewhere on Earth: "future" only once no time zone is still before it.
_DATE_SLACK = timedelta(hours=14)
# Build machines and API servers disagree by a little; a lastmod minutes ahead is clock skew.
_CLOCK_SKEW = timedelta(minutes=5)


def check_locs(entries: Sequence[SitemapEntry], origin: str | None) -> list[Finding]:
    """Each loc is absolute, under the site origin, percent-encoded, and listed once."""
    findings: list[Finding] = []
    first_seen: dict[str, SitemapEntry] = {}
    for entry in entries:
        loc = entry.loc
        if origin_of(loc) is None:
            findings.append(
                error("sitemap-loc", entry.where, f"loc {loc!r} is not an absolute http(s) url")
            )
            continue
        if origin is not None and origin_of(loc) != origin:
            findings.append(
                # The other origin, not the loc: a sitemap for another site is one finding.
                error(
                    "sitemap-loc",
                    entry.where,
                    f"loc is on {origin_of(loc)}, not on the site {origin}",
                )
            )
        if not is_percent_encoded(loc):
            findings.append(
                error(
                    "sitemap-loc",
                    entry.where,
                    f"loc {loc} has characters that must be percent-encoded",
                )
            )
        if "#" in loc:
            findings.append(warning("sitemap-loc", entry.where, f"loc {loc} has a fragment"))
        key = path_of_url(loc) or "/"
        earlier = first_seen.get(key)
        if earlier is not None:
            findings.append(
                error(
                    "sitemap-duplicate",
                    entry.where,
                    f"{loc} is listed twice (first at {earlier.where})",
                )
            )
        else:
            first_seen[key] = entry
    return findings


def check_listed_pages(entries: Sequence[SitemapEntry], pages: Mapping[str, Page]) -> list[Finding]:
    """Each loc is a written page, indexable, whose canonical is the loc itself."""
    findings: list[Finding] = []
    for entry in entries:
        if origin_of(entry.loc) is None:
            continue  # already an error in check_locs; its path means nothing
        path = path_of_url(entry.loc) or "/"
        page = pages.get(path)
        if page is None or page.is_not_found_page:
            hint = " (locs carry the path without .html)" if path.endswith(".html") else ""
            findings.append(
                error(
                    "sitemap-not-served",
                    entry.where,
                    f"{entry.loc}: no page is written at {path}{hint}",
                )
            )
            continue
        if page.noindex:
            findings.append(
                error(
                    "sitemap-noindex",
                    entry.where,
                    f"{entry.loc} is listed but its page ({page.file}) says noindex",
                )
            )
        canonical = page.canonicals[0] if len(page.canonicals) == 1 else None
        # A relative or missing canonical is a page-canonical error already.
        if canonical and origin_of(canonical) and not same_url(canonical, entry.loc):
            findings.append(
                error(
                    "sitemap-non-canonical",
                    entry.where,
                    f"{entry.loc} is listed but its page declares canonical {canonical}",
                )
            )
    return findings


def check_lastmods(entries: Iterable[SitemapEntry], now: datetime) -> list[Finding]:
    findings: list[Finding] = []
    for entry in entries:
        if entry.lastmod is None:
            continue
        problem = lastmod_problem(entry.lastmod, now)
        if problem is not None:
            severity_of = warning if problem.startswith("in the future") else error
            findings.append(
                severity_of(
                    "sitemap-lastmod", entry.where, f"lastmod {entry.lastmod!r} is {problem}"
                )
            )
    return findings


def lastmod_problem(value: str, now: datetime) -> str | None:
    """Why a lastmod is unusable, or None when it is a valid W3C datetime not in the future."""
    match = _W3C_DATETIME.match(value)
    if match is None:
        return "not a W3C datetime (YYYY-MM-DD or YYYY-MM-DDThh:mm:ss+hh:mm)"
    if match["time"] and not match["tz"]:
        return "a time without a time zone (add Z or +hh:mm)"
    try:
        if match["time"]:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
            latest = now + _CLOCK_SKEW
        else:
            day = _complete_date(match["date"])
            moment = datetime(day.year, day.month, day.day, tzinfo=UTC)
            latest = now + _DATE_SLACK
    except ValueError:
        return "not a real date"
    if moment > latest:
        return f"in the future (now is {now.isoformat(timespec='seconds')})"
    return None


def _complete_date(text: str) -> date:
    """YYYY, YYYY-MM or YYYY-MM-DD as the first day it can mean; ValueError if impossible."""
    parts = [int(p) for p in text.split("-")] + [1, 1]
    return date(parts[0], parts[1], parts[2])


def check_unlisted_pages(
    pages: Iterable[Page], listed_paths: frozenset[str], origin: str | None
) -> list[Finding]:
    """Every indexable, self-canonical page should be in the sitemap."""
    findings: list[Finding] = []
    for page in pages:
        if page.is_not_found_page or page.noindex or page.parse_error or page.path in listed_paths:
            continue
        if len(page.canonicals) == 1:
            canonical = page.canonicals[0]
            if (path_of_url(canonical) or "/") != page.path:
                continue  # a duplicate pointing elsewhere stays out of the sitemap on purpose
            if origin is not None and origin_of(canonical) not in (None, origin):
                continue
        findings.append(
            warning(
                "sitemap-missing-page",
                page.file,
                f"page {page.path} is written and indexable but not in the sitemap",
            )
        )
    return findings


def check_robots(robots_txt: str | None, origin: str | None) -> list[Finding]:
    """robots.txt exists, does not block every crawler, and names the sitemap."""
    if robots_txt is None:
        return [warning("robots-txt", "robots.txt", "no robots.txt at the root of the output")]
    findings: list[Finding] = []
    sitemaps: list[str] = []
    agents: list[str] = []
    in_rules = False
    for number, raw in enumerate(robots_txt.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if ":" not in line:
            continue
        field, value = (part.strip() for part in line.split(":", 1))
        field = field.lower()
        if field == "sitemap":
            sitemaps.append(value)
        elif field == "user-agent":
            agents = [] if in_rules else agents
            agents.append(value)
            in_rules = False
        elif field in ("allow", "disallow"):
            in_rules = True
            if field == "disallow" and value == "/" and "*" in agents:
                findings.append(
                    error(
                        "robots-txt",
                        f"robots.txt:{number}",
                        "robots.txt disallows / for every crawler: nothing can be indexed",
                    )
                )
    expected = f"{origin}/sitemap.xml" if origin else None
    if not sitemaps:
        findings.append(warning("robots-txt", "robots.txt", "robots.txt has no Sitemap: line"))
    elif expected is not None and not any(same_url(s, expected) for s in sitemaps):
        findings.append(
            warning(
                "robots-txt",
                "robots.txt",
                f"robots.txt names {', '.join(sitemaps)}, not {expected}",
            )
        )
    return findings
