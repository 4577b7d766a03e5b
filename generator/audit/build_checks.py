"""What the build itself warned of, read back from the output (``write.build_warnings``).

A url of the API the site cannot use (``javascript:``, another host, a backslash, ...) is
treated as null by the build: the record shows as plain text and has no page. Nothing in the
pages shows it any more, so the build leaves the list in the output, and each entry is a
``url-unusable`` warning: a CI run under ``--strict`` fails until the merchant mends the record.
"""

from __future__ import annotations

from pathlib import Path

from generator.audit.findings import Finding, warning
from generator.write.build_warnings import WARNINGS_FILE, read_warnings


def check_build_warnings(out: Path) -> list[Finding]:
    try:
        unusable = read_warnings(out)
    except ValueError as exc:
        return [warning("url-unusable", WARNINGS_FILE, f"cannot be read: {exc}")]
    # repr: the url as it came, on one line whatever it holds.
    return [
        warning(
            "url-unusable",
            u.what,
            f"url {u.url!r} is not a usable path or link: the build showed the record as "
            "plain text, with no page",
        )
        for u in unusable
    ]
