"""An output folder that is a mount point: ``is_mount_point(folder)``, ``replace_contents(...)``.

In containers and CI the output folder is often a mount point: a tmpfs, a volume, a folder bound
from the host. It cannot be renamed (EBUSY), so a swap cannot replace it, and nothing beside it
can be renamed into it (EXDEV: another mount). A build then keeps its working folders inside it,
hidden (``.storefront.tmp-*``: hidden files are not served, see deploy/nginx.conf), and replaces
the output's entries instead of the folder (``replace_contents``):

1. the new marker file goes in first, so an output left half updated is still known for a
   build's;
2. each staged entry of the top level takes its place: a file by one atomic rename, a folder (or
   a file where a folder was) by moving the old one aside, then renaming the new one in;
3. the entries of the old output that no build writes any more are moved aside; hidden ones
   stay, as a swap carries them over, and so does ``lost+found`` at a volume's root.

The guarantee is weaker than a swap's: while this runs, a reader may see new pages beside old
ones, and a top-level folder is absent between its two renames. A failure halfway leaves such a
mix; the build has forgotten its page records by then, so the next one writes the whole output.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from generator.errors import WriteError
from generator.write.build_warnings import WARNINGS_FILE

#: What a volume's root holds for its file system, not for the output: never the build's.
FILE_SYSTEM_ENTRIES = frozenset({"lost+found"})
_MOUNT_TABLE = Path("/proc/self/mountinfo")
_ESCAPED = re.compile(rb"\\([0-7]{3})")  # the mount table writes a space as \040


def is_mount_point(folder: Path) -> bool:
    """Whether ``folder`` (a real path) is a mount point: another file system's root
    (``os.path.ismount``), or a folder bound there from the same file system, which only the
    system's mount table tells."""
    return os.path.ismount(folder) or os.fsencode(folder) in _mount_points()


def _mount_points() -> set[bytes]:
    """The mount points in this process's mount table (Linux); none where there is no table."""
    try:
        table = _MOUNT_TABLE.read_bytes()
    except OSError:
        return set()
    points: set[bytes] = set()
    for line in table.splitlines():
        fields = line.split(b" ")
        if len(fields) > 4:
            points.add(_ESCAPED.sub(lambda octal: bytes([int(octal[1], 8)]), fields[4]))
    return points


def replace_contents(staging: Path, target: Path, aside: Path, *, marker: str) -> None:
    """Give ``target`` the entries of ``staging`` (the module's steps 1 to 3); what they replace
    goes into ``aside``, an empty folder in ``target``, for the caller to delete."""
    try:
        _mark(staging / marker, target / marker, aside / f"{marker}.new")
        incoming = {name for name in os.listdir(staging) if name != marker}
        for name in sorted(incoming):
            _move_in(staging / name, target / name, aside / name)
        for name in sorted(os.listdir(target)):
            if name not in incoming and _written_by_builds(name):
                os.rename(target / name, aside / name)
    except OSError as exc:
        raise WriteError(
            f"cannot update the output {target} entry by entry ({exc.filename}: {exc.strerror}); "
            "it may hold old and new files side by side until the next build writes it whole"
        ) from None


def _mark(staged: Path, output: Path, link: Path) -> None:
    """The new marker in the output, by a hard link (a copy where there are none): the staging
    folder keeps it too, so if the build stops halfway both stay known for a build's."""
    try:
        os.link(staged, link)
    except OSError:
        shutil.copyfile(staged, link)
    os.replace(link, output)


def _move_in(new: Path, old: Path, aside: Path) -> None:
    if os.path.lexists(old) and (_is_folder(old) or _is_folder(new)):
        os.rename(old, aside)  # a rename cannot replace a folder, nor put a file over one
    os.replace(new, old)


def _written_by_builds(name: str) -> bool:
    """Whether a build wrote this top-level entry, so the next one may remove it."""
    if name == WARNINGS_FILE:  # hidden, yet the last build's own
        return True
    return not name.startswith(".") and name not in FILE_SYSTEM_ENTRIES


def _is_folder(path: Path) -> bool:
    return os.path.isdir(path) and not os.path.islink(path)
