"""What a build warns of, kept in its output for the audit: ``WARNINGS_FILE``.

Today that is the urls of the API the site cannot use (``plan.usable``), which the build treats
as null: `storefront audit` reads them back as findings, so a CI run fails on them under
``--strict``. The file is hidden, so never served (the static server and the shipped nginx
config refuse hidden files); it is written only when there is something to say, and a later
build with nothing to say removes it, whichever way it updates the output.
"""

from __future__ import annotations

import json
from pathlib import Path

from generator.model import UnusableUrl

WARNINGS_FILE = ".storefront-warnings.json"


def warnings_file(unusable: tuple[UnusableUrl, ...]) -> bytes | None:
    """The file's bytes; None when there is nothing to warn of."""
    if not unusable:
        return None
    entries = [{"what": u.what, "url": u.url} for u in unusable]
    return (json.dumps({"unusable_urls": entries}, ensure_ascii=False, indent=1) + "\n").encode()


def read_warnings(out: Path) -> tuple[UnusableUrl, ...]:
    """The unusable urls the build of ``out`` warned of; () when it warned of none. Raises
    ``ValueError`` for a file that is not one a build wrote."""
    try:
        text = (out / WARNINGS_FILE).read_text(encoding="utf-8")
    except FileNotFoundError:
        return ()
    data = json.loads(text)
    entries = data.get("unusable_urls") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise ValueError(f"{WARNINGS_FILE} holds no list of unusable urls")
    found = []
    for entry in entries:
        if not isinstance(entry, dict):
            raise ValueError(f"{WARNINGS_FILE}: {entry!r} is not a {{what, url}} entry")
        what, url = entry.get("what"), entry.get("url")
        if not isinstance(what, str) or not isinstance(url, str):
            raise ValueError(f"{WARNINGS_FILE}: {entry!r} is not a {{what, url}} entry")
        found.append(UnusableUrl(what, url))
    return tuple(found)
