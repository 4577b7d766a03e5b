"""The index written into the output, incrementally: ``write_search_index``.

Each product's entry (by what it is made from) and the index's files are kept between builds,
in ``<cache-dir>/search-index.pickle``: a build makes again only the files that the products
it finds changed move (``layout.index_files``), and writes those whose bytes differ from what
the last build wrote, or that are no longer in the output; files the index no longer has are
deleted. A file is written in a scratch folder on the output's disk (beside the published
folder, hidden inside it when it is a mount point) and renamed over its place, so a browser
never reads half of one; the manifest comes last, as it names the version of every other file.
The state names the output it describes, and is forgotten before the first file changes: a build
stopped halfway leaves files the state does not describe, so the next one writes every file.
"""

from __future__ import annotations

import gc
import os
import pickle
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from generator.model import Catalog
from generator.plan.site_plan import SitePlan
from generator.search_index.layout import MANIFEST, NOTHING, SHARD_BYTES, Built, index_files
from generator.search_index.records import Entry, EntryKey, detail_of, other_pages, product_entries
from generator.source_digest import code_digest

#: The index's folder in the output (``/_search/``), and its build state under --cache-dir.
FOLDER = "_search"
STATE_FILE = "search-index.pickle"
_STATE_FORMAT = 4


@dataclass(frozen=True, slots=True)
class IndexReport:
    files: int  # in the index
    made: int  # product pages whose entry was made anew (the others kept from the last build)
    written: int  # by this build
    deleted: int
    bytes: int  # the index's size
    seconds: float


@dataclass(slots=True)
class _State:
    entries: dict[EntryKey, Entry] = field(default_factory=dict)
    index: Built = NOTHING
    out: str = ""  # the output folder whose ``_search`` holds ``index``'s files (resolved)


def _load(cache_dir: Path) -> _State:
    # Tens of thousands of small containers: the cycle collector need not scan them as they
    # are made (it would, several times over).
    collecting = gc.isenabled()
    gc.disable()
    try:
        with open(cache_dir / STATE_FILE, "rb") as file:
            kept = pickle.load(file)
    except (OSError, pickle.PickleError, EOFError, AttributeError, ValueError):
        return _State()
    finally:
        if collecting:
            gc.enable()
    if not isinstance(kept, tuple) or len(kept) != 4 or kept[0] != _state_format():
        return _State()
    return _State(kept[1], kept[2], kept[3])


def _state_format() -> tuple[int, str]:
    """What the state's entries and files were made by: another version of the generator may
    make them otherwise."""
    return _STATE_FORMAT, code_digest()


def _forget(cache_dir: Path) -> None:
    (cache_dir / STATE_FILE).unlink(missing_ok=True)


def _save(cache_dir: Path, state: _State) -> None:
    cache_dir.mkdir(parents=True, exist_ok=True)
    temporary = cache_dir / (STATE_FILE + ".tmp")
    with open(temporary, "wb") as file:
        pickle.dump((_state_format(), state.entries, state.index, state.out), file, protocol=5)
    os.replace(temporary, cache_dir / STATE_FILE)


def _present(root: Path) -> set[str]:
    found: set[str] = set()
    for folder, _, names in os.walk(root):
        relative = os.path.relpath(folder, root)
        for name in names:
            found.add(name if relative == "." else f"{relative}/{name}".replace(os.sep, "/"))
    return found


def write_search_index(
    catalog: Catalog,
    plan: SitePlan,
    out_dir: Path,
    cache_dir: Path,
    *,
    scratch: Path,
    synonyms: Sequence[Sequence[str]] = (),
    full: bool = False,
    shard_bytes: int = SHARD_BYTES,
) -> IndexReport:
    """The index of ``catalog`` (as ``plan`` publishes it) under ``out_dir/_search``; each
    changed file is written in ``scratch`` (on the output's file system) and moved into place."""
    started = time.perf_counter()
    state = _State() if full else _load(cache_dir)
    entries: dict[EntryKey, Entry] = {}
    listed: list[Entry] = []
    for key, entry in product_entries(catalog, plan, detail_of, state.entries):
        listed.append(entry)
        if key is not None:
            entries[key] = entry
    made = sum(1 for key in entries if key not in state.entries)
    built = index_files(listed, other_pages(plan), synonyms, state.index, shard_bytes=shard_bytes)
    files = built.files
    root = out_dir / FOLDER
    out = str(out_dir.resolve())
    # What is on disk, as far as the state knows: nothing when it describes another output
    # (a cache shared by two), whose files this output's may not be.
    there = state.index.files if state.out == out else {}
    present = _present(root) if root.is_dir() else set()
    # The manifest last: it names the version of every other file, so a browser that reads it
    # finds the files it names already there. Unchanged: the bytes of the last build, in place.
    changed = [
        name
        for name in sorted(files, key=lambda name: name == MANIFEST)
        if name not in present or there.get(name) != files[name]
    ]
    gone = present - files.keys()
    if changed or gone:
        _forget(cache_dir)
    for number, name in enumerate(changed):
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = scratch / f"search-{number}"
        temporary.write_bytes(files[name])
        os.replace(temporary, target)
    for name in gone:
        (root / name).unlink(missing_ok=True)
    written, deleted = len(changed), len(gone)
    size = sum(map(len, files.values()))
    # A rebuild that moved nothing in the index (a page edited, no product) keeps the state it
    # loaded: saving it again is most of such a rebuild's index time.
    if (
        written
        or deleted
        or state.out != out
        or entries.keys() != state.entries.keys()
        or files.keys() != state.index.files.keys()
        or built.split != state.index.split
    ):
        _save(cache_dir, _State(entries, built, out))
    return IndexReport(len(files), made, written, deleted, size, time.perf_counter() - started)


def remove_search_index(out_dir: Path) -> None:
    """The index of a build whose theme turned it off: gone, so no page finds a stale one."""
    import shutil

    shutil.rmtree(out_dir / FOLDER, ignore_errors=True)
