"""The output folder a build may replace: ``real_target``, ``check_replaceable``,
``check_output``.

A build refuses a root or home folder, a file, and a folder it did not write (one without
``MARKER_FILE``). ``check_output`` asks the same before the crawl, so that a wrong ``--out``
costs no requests; the write stage asks again under the output's lock, as it replaces it.
"""

from __future__ import annotations

from pathlib import Path

from generator.errors import WriteError
from generator.write.mount_point import FILE_SYSTEM_ENTRIES, is_mount_point

# Marks a folder as written by a build, so the next build may replace it.
MARKER_FILE = ".storefront-output"


def check_output(out_dir: Path) -> None:
    """Raise the ``WriteError`` the write stage would raise for this output folder."""
    target = real_target(out_dir)
    inside = target.is_dir() and is_mount_point(target)
    check_replaceable(target, out_dir, FILE_SYSTEM_ENTRIES if inside else frozenset())


def real_target(out_dir: Path) -> Path:
    """The real output folder (through symlinks), never a root or home folder."""
    target = out_dir.resolve()
    if target == Path(target.anchor) or target == Path.home().resolve():
        raise WriteError(f"refusing to use {out_dir} as the output folder; choose a subfolder")
    return target


def check_replaceable(target: Path, out_dir: Path, kept: frozenset[str]) -> None:
    """Refuse an output that is not a folder, or a folder a build did not write (hidden entries
    and ``kept`` aside)."""
    if not target.exists():
        return
    if not target.is_dir():
        raise WriteError(f"the output {out_dir} exists and is not a folder; move it or pick --out")
    entries = [e for e in target.iterdir() if not e.name.startswith(".") and e.name not in kept]
    if entries and not (target / MARKER_FILE).is_file():
        raise WriteError(
            f"refusing to replace {out_dir}: it is not empty and was not written by a build "
            "(empty it or choose another --out)"
        )
