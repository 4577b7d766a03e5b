"""--cache-dir, the build state kept between builds: ``check_cache_dir`` before the first
request, and ``hold_cache_dir`` for the whole build.

The folder is the build's alone: it may not be or hold the output folder or the theme layer,
or be inside either (a build would publish its state, or replace it with the output), and a
folder that holds files but none of a build's state (a folder of the merchant's own) is refused
rather than filled. A build marks the folder as its own (``MARKER``); one a build of an earlier
version made is known by its files. One build at a time uses it: two builds of different
outputs sharing it would each rewrite the crawl cache the other is reading.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from generator.errors import ConfigError
from generator.write.lock import held

#: Marks a folder as a build's state, so the next build may use it.
MARKER = ".storefront-cache"
#: The lock file of the builds using the folder.
LOCK = ".lock"
#: Entries of a build's state that builds of earlier versions left without the marker.
_STATE_ENTRIES = frozenset(
    {
        "crawl.sqlite3",
        "pages.pickle",
        "search-index.pickle",
        "schedule.json",
        "catalog.pickle",
        "parsed-templates.txt",
        "requests",
        "templates",
        "companion.sqlite3",
    }
)


def check_cache_dir(cache_dir: Path, *, out: Path, theme: Path | None) -> None:
    """Refuse, in one line, a --cache-dir a build may not use; make it when it is missing."""
    place = cache_dir.resolve()
    if place == Path(place.anchor) or place == Path.home().resolve():
        raise ConfigError(
            f"--cache-dir {cache_dir}: refusing a root or home folder; choose a subfolder"
        )
    for other, flag in ((out, "--out"), (theme, "the theme layer")):
        if other is not None and _overlap(place, other.resolve()):
            raise ConfigError(
                f"--cache-dir {cache_dir} overlaps {flag} ({other}); give the build state a "
                "folder of its own, such as .storefront-cache"
            )
    try:
        place.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(
            f"--cache-dir {cache_dir}: cannot make this folder ({exc.strerror}); pick another"
        ) from None
    if not os.access(place, os.W_OK | os.X_OK):
        raise ConfigError(
            f"--cache-dir {cache_dir}: cannot write in this folder (read-only?); pick another"
        )
    names = {entry.name for entry in place.iterdir()}
    if names and MARKER not in names and not names & _STATE_ENTRIES:
        raise ConfigError(
            f"--cache-dir {cache_dir}: it holds files that are not a build's state; empty it "
            "or choose another folder"
        )


def _overlap(one: Path, other: Path) -> bool:
    return one == other or one.is_relative_to(other) or other.is_relative_to(one)


@contextmanager
def hold_cache_dir(cache_dir: Path) -> Iterator[None]:
    """Hold the folder's lock for the block, marked as a build's; fails at once, in one line,
    when another build holds it."""
    with held(cache_dir / LOCK, busy=f"is using the cache folder {cache_dir} (--cache-dir)"):
        marker = cache_dir / MARKER
        if not marker.exists():
            marker.write_bytes(b"The build state of `storefront build`, kept between builds.\n")
        yield
