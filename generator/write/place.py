"""Where the builds of one output keep their lock and working folders (``Place``), and the
output's build lock a build holds from its first request to its end (``hold_output``).

Light on imports: a build takes the lock before its crawl, while the render's modules load
in the background.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from generator.errors import WriteError
from generator.write.lock import held
from generator.write.mount_point import FILE_SYSTEM_ENTRIES, is_mount_point
from generator.write.target import MARKER_FILE, real_target

MARKER_TEXT = b"Written by `storefront build`; the next build of this folder updates its files.\n"
_FOLDER_MODE = 0o755


@dataclass(frozen=True, slots=True)
class OutputHold:
    """The output's build lock, held by a build across its stages (``hold_output``): a stage
    given it works under it rather than taking the lock again, so no other build can come in
    between the stages."""

    lock_file: Path


@contextmanager
def hold_output(out_dir: Path) -> Iterator[OutputHold]:
    """Hold ``out_dir``'s build lock for the block; fails at once, in one line, when another
    build holds it or the output's folder cannot take it."""
    _target, place = place_of(out_dir)
    with held(place.lock_file, busy=f"is writing {out_dir}"):
        yield OutputHold(place.lock_file)


def place_of(out_dir: Path) -> tuple[Path, Place]:
    """The real output folder (its parent made) and where its builds keep their lock."""
    target = real_target(out_dir)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise WriteError(
            f"cannot make the folder {target.parent} of the output {out_dir}: {exc.strerror}; "
            "pick another --out"
        ) from None
    return target, Place.of(target)


@dataclass(frozen=True, slots=True)
class Place:
    """Where the builds of one output keep their lock and working folders: beside the output,
    named after it (``<out>.lock``, ``<out>.tmp-*`` for staging, ``<out>.old-*`` for the
    output being replaced), or hidden inside it when it is a mount point (``.storefront.lock``,
    ``.storefront.tmp-*``, ``.storefront.old-*``), which cannot be renamed.

    A working folder carries the marker file from the start. A killed build leaves its working
    folders behind; the next one removes them while it holds the lock, so a running build's
    folders are never touched."""

    folder: Path
    prefix: str
    inside: bool  # the output is a mount point: updated by its contents (``mount_point``)

    @staticmethod
    def of(target: Path) -> Place:
        if target.is_dir() and is_mount_point(target):
            return Place(target, ".storefront.", inside=True)
        return Place(target.parent, f"{target.name}.", inside=False)

    @property
    def lock_file(self) -> Path:
        return self.folder / f"{self.prefix}lock"

    @property
    def kept(self) -> frozenset[str]:
        """Entries of the output that are not the build's, and that it leaves alone."""
        return FILE_SYSTEM_ENTRIES if self.inside else frozenset()

    def new_folder(self, kind: str) -> Path:
        """A new working folder, ``<prefix><kind>-<random>``, holding only the marker file."""
        folder = Path(tempfile.mkdtemp(prefix=f"{self.prefix}{kind}-", dir=self.folder))
        folder.chmod(_FOLDER_MODE)  # mkdtemp makes it private; a web server must read it
        (folder / MARKER_FILE).write_bytes(MARKER_TEXT)
        return folder

    def free_name(self, kind: str) -> Path:
        """A unique path for a working folder, not taken yet."""
        name = Path(tempfile.mkdtemp(prefix=f"{self.prefix}{kind}-", dir=self.folder))
        name.rmdir()  # only the unique name is wanted
        return name

    def leftovers(self) -> list[Path]:
        """Working folders of earlier builds: named as this place names them and holding the
        marker file, or empty (a build killed before it wrote the marker); a folder holding
        anything else is not a build's, and is left alone."""
        names = (f"{self.prefix}tmp-", f"{self.prefix}old-")
        with os.scandir(self.folder) as entries:
            return [
                Path(entry.path)
                for entry in entries
                if entry.name.startswith(names)
                and entry.is_dir(follow_symlinks=False)
                and (os.path.isfile(os.path.join(entry.path, MARKER_FILE)) or _empty(entry.path))
            ]


def _empty(folder: str) -> bool:
    with os.scandir(folder) as entries:
        return next(entries, None) is None
