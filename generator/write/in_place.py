"""Update an output in place: ``fits(out, files, gone)``, then ``commit_in_place(...)``.

An incremental build renders only the pages whose inputs moved. Building a whole new output to
swap in would still cost it work in proportion to the store (a link for every unchanged page,
then deleting the old folder). Instead it stages what it wrote (the changed pages, and the
assets, sitemap, host files and marker every build writes) in a folder beside the output, as a
full build does, and then:

1. checks that every staged file can take its place (``fits``): no folder where a file goes, no
   file where a folder must be; when one cannot, the build swaps in a whole new output instead;
2. deletes the files of the last build that this one no longer writes (``gone``: pages that
   went away, a sitemap file fewer, an asset removed from the theme), and the folders they
   leave empty - so the output holds exactly what a full build would write;
3. moves each staged file into place with an atomic rename: a reader sees the old page or the
   new one, never half a page, and the output folder itself never disappears.

A failure before step 2 (a template error, an API answer that stops the crawl, a collision)
changes nothing in the output. The build forgets its page records before step 2 and writes
them again after step 3, so a build interrupted in between is followed by one that renders
every page and swaps in a new output (see ``write.site``).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable
from pathlib import Path

from generator.errors import WriteError


def fits(out: Path, files: Iterable[str], gone: Iterable[str] = ()) -> bool:
    """Whether each file can be renamed into ``out``: its place is a file or free, and every
    folder above it is a folder or free. Files in ``gone`` count as already deleted."""
    deleted = set(gone)
    checked: dict[str, bool] = {}  # folder -> it is a folder or free
    for relative in files:
        target = os.path.join(out, relative)
        if os.path.isdir(target) and not os.path.islink(target):
            return False
        parts = relative.split("/")[:-1]
        for depth in range(1, len(parts) + 1):
            folder = "/".join(parts[:depth])
            known = checked.get(folder)
            if known is None:
                path = os.path.join(out, folder)
                known = folder in deleted or os.path.isdir(path) or not os.path.lexists(path)
                checked[folder] = known
            if not known:
                return False
    return True


def commit_in_place(staging: Path, out: Path, files: Iterable[str], gone: Iterable[str]) -> None:
    """Delete ``gone`` from ``out``, then move each of ``files`` from ``staging`` into place."""
    for relative in sorted(set(gone)):
        _delete(out, relative)
    made: set[str] = set()
    for relative in files:
        destination = os.path.join(out, relative)
        parent = os.path.dirname(destination)
        if parent not in made:
            os.makedirs(parent, exist_ok=True)
            made.add(parent)
        try:
            os.replace(os.path.join(staging, relative), destination)
        except OSError as exc:
            raise WriteError(
                f"cannot move {relative} into {out}: {exc.strerror}; the next build "
                "writes the whole output again"
            ) from None
    shutil.rmtree(staging, ignore_errors=True)


def _delete(out: Path, relative: str) -> None:
    """``out/relative`` and then each folder above it that it leaves empty."""
    try:
        os.unlink(os.path.join(out, relative))
    except FileNotFoundError:
        return
    except OSError as exc:
        raise WriteError(f"cannot delete {relative} from {out}: {exc.strerror}") from None
    parts = relative.split("/")[:-1]
    while parts:
        try:
            os.rmdir(os.path.join(out, *parts))
        except OSError:
            return  # not empty (or not ours to remove): the folders above stay too
        parts.pop()
