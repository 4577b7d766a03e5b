"""The index written into the output, incrementally: ``write_search_index``.

Every build works out every file's bytes (cheap: the products' details are kept between
builds, by their pack's digest, in ``<cache-dir>/search-index.pickle``) and writes only those
that differ from what the last build wrote and that are still in the output; files the index
no longer has are deleted. A file is written beside its place and renamed over it, so a
browser never reads half of one.
"""

from __future__ import annotations

import os
import pickle
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from generator.model import Catalog, PackedProduct
from generator.plan.site_plan import SitePlan
from generator.search_index.layout import index_files, version
from generator.search_index.records import Detail, Entry, detail_of, other_pages, product_entries

#: The index's folder in the output (``/_search/``), and its build state under --cache-dir.
FOLDER = "_search"
STATE_FILE = "search-index.pickle"
_STATE_FORMAT = 1


@dataclass(frozen=True, slots=True)
class IndexReport:
    files: int  # in the index
    written: int  # by this build
    deleted: int
    bytes: int  # the index's size
    seconds: float


@dataclass(slots=True)
class _State:
    details: dict[bytes, Detail] = field(default_factory=dict)
    versions: dict[str, str] = field(default_factory=dict)  # file -> version written


def _load(cache_dir: Path) -> _State:
    try:
        with open(cache_dir / STATE_FILE, "rb") as file:
            kept = pickle.load(file)
    except (OSError, pickle.PickleError, EOFError, AttributeError, ValueError):
        return _State()
    if not isinstance(kept, tuple) or len(kept) != 3 or kept[0] != _STATE_FORMAT:
        return _State()
    return _State(kept[1], kept[2])


def _save(cache_dir: Path, state: _State) -> None:
    cache_dir.mkdir(parents=True, exist_ok=True)
    temporary = cache_dir / (STATE_FILE + ".tmp")
    with open(temporary, "wb") as file:
        pickle.dump((_STATE_FORMAT, state.details, state.versions), file, protocol=5)
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
    synonyms: Sequence[Sequence[str]] = (),
    full: bool = False,
) -> IndexReport:
    """The index of ``catalog`` (as ``plan`` publishes it) under ``out_dir/_search``."""
    started = time.perf_counter()
    state = _State() if full else _load(cache_dir)
    details: dict[bytes, Detail] = {}
    entries: list[Entry] = []
    pending: list[PackedProduct] = []
    for packed, entry in product_entries(catalog, plan, state.details):
        if entry is None:
            assert packed is not None, "a card alone has its entry"
            pending.append(packed)
            continue
        entries.append(entry)
        if packed is not None:
            details[packed.head.digest] = state.details[packed.head.digest]
    for packed in pending:
        details[packed.head.digest] = detail_of(packed)
    if pending:
        entries = [entry for _, entry in product_entries(catalog, plan, details) if entry]
    files = index_files(entries, other_pages(plan), synonyms)
    root = out_dir / FOLDER
    present = _present(root) if root.is_dir() else set()
    versions: dict[str, str] = {}
    written = 0
    size = 0
    for name, data in files.items():
        size += len(data)
        versions[name] = stamp = version(data)
        if name in present and state.versions.get(name) == stamp:
            continue
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = target.with_name(target.name + ".tmp")
        temporary.write_bytes(data)
        os.replace(temporary, target)
        written += 1
    deleted = 0
    for name in present - files.keys():
        (root / name).unlink(missing_ok=True)
        deleted += 1
    _save(cache_dir, _State(details, versions))
    return IndexReport(len(files), written, deleted, size, time.perf_counter() - started)


def remove_search_index(out_dir: Path) -> None:
    """The index of a build whose theme turned it off: gone, so no page finds a stale one."""
    import shutil

    shutil.rmtree(out_dir / FOLDER, ignore_errors=True)
