"""The last crawl's catalog, kept whole for ``--from-cache``: ``load_snapshot`` / ``save_snapshot``.

A ``--from-cache`` build gets its catalog by replaying every answer of the crawl cache through
the crawl (twenty thousand readings at 10,000 products, each looked up, unpickled and checked):
about 0.6 s there, where the catalog itself, pickled whole, loads in a tenth of it. So the first
``--from-cache`` build after a crawl keeps the catalog it replayed (``catalog.pickle`` beside the
crawl cache), and the next ones load it while its key holds: the generator's code, the crawl
cache file it was replayed from (size, modification time, inode) and the crawl settings. A
build that crawls removes it as it saves the crawl cache.

It is only a shortcut: a snapshot that is missing, stale, damaged or cannot be written means a
replay, never an error. Like the crawl cache, it is this build's own state, written by this
code: its pickle is as trusted as the generator itself.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import marshal
import os
from dataclasses import dataclass
from pathlib import Path

from generator.crawl.pickled import dump_records, load_records
from generator.crawl.settings import CrawlSettings
from generator.model import Catalog
from generator.replay.cache import CACHE_FILE
from generator.source_digest import code_digest

SNAPSHOT_FILE = "catalog.pickle"
#: The file starts with the length of its header (4 bytes), then the header, then the catalog.
_LENGTH_BYTES = 4


@dataclass(frozen=True, slots=True)
class Snapshot:
    catalog: Catalog
    reused: int  # the answers the replay took from the crawl cache (for the summary)


def snapshot_key(cache_dir: Path, settings: CrawlSettings) -> str | None:
    """What a snapshot must have been made from to stand for a replay of ``cache_dir``'s crawl
    cache now; None without a crawl cache."""
    try:
        found = (cache_dir / CACHE_FILE).stat()
    except OSError:
        return None
    made_from = (
        code_digest(),
        found.st_size,
        found.st_mtime_ns,
        found.st_ino,
        _settings_text(settings),
    )
    return hashlib.sha1(repr(made_from).encode(), usedforsecurity=False).hexdigest()


def _settings_text(settings: CrawlSettings) -> str:
    """The settings (related products, page sizes...) spelt the same in every process: a set's
    ``repr`` follows the process's string hashing."""
    values = []
    for field in dataclasses.fields(settings):
        value = getattr(settings, field.name)
        values.append((field.name, sorted(value) if isinstance(value, frozenset) else value))
    return repr(values)


def load_snapshot(cache_dir: Path, key: str) -> Snapshot | None:
    """The catalog kept under ``key``; None when there is none or it was made otherwise."""
    try:
        blob = (cache_dir / SNAPSHOT_FILE).read_bytes()
        length = int.from_bytes(blob[:_LENGTH_BYTES], "big")
        kept_key, reused = marshal.loads(blob[_LENGTH_BYTES : _LENGTH_BYTES + length])
        if kept_key != key:
            return None
        catalog = load_records(memoryview(blob)[_LENGTH_BYTES + length :])
    except Exception:  # noqa: BLE001 - a damaged snapshot means a replay
        return None
    if not isinstance(catalog, Catalog) or not isinstance(reused, int):
        return None
    return Snapshot(catalog, reused)


def save_snapshot(cache_dir: Path, key: str, snapshot: Snapshot) -> None:
    """Keep ``snapshot`` under ``key``, atomically; a folder that cannot take it keeps none."""
    header = marshal.dumps((key, snapshot.reused))
    try:
        catalog = dump_records(snapshot.catalog)
    except Exception:  # noqa: BLE001 - only a shortcut: the build goes on, the next replays
        return
    path = cache_dir / SNAPSHOT_FILE
    partial = path.with_name(f"{SNAPSHOT_FILE}.{os.getpid()}.tmp")
    try:
        with partial.open("wb") as out:
            out.write(len(header).to_bytes(_LENGTH_BYTES, "big"))
            out.write(header)
            out.write(catalog)
        partial.replace(path)
    except OSError:
        with contextlib.suppress(OSError):
            partial.unlink(missing_ok=True)


def forget_snapshot(cache_dir: Path) -> None:
    """Remove the kept catalog: the crawl cache is about to hold another crawl."""
    with contextlib.suppress(OSError):
        (cache_dir / SNAPSHOT_FILE).unlink(missing_ok=True)
