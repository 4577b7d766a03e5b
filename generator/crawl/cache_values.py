"""What the crawl read from a cached answer, kept with it so the next build need not read again.

    dump_readings({name: value}) -> bytes       (a pickle)
    load_readings(blob) -> {name: value}
    READING_CODE                                 (which code wrote them)

Decoding the JSON of twenty thousand cached answers and normalizing every record costs seconds;
unpickling what that gave costs a fraction of it. A reading is named by what made it (e.g.
"one generator.crawl.normalize.product") and is valid only for the body it was read from (the cache
keeps it with that body) and for the code that read it: ``READING_CODE`` digests the modules
that shape a reading, and a cache written by other code has its readings ignored - never an
old shape read by a new generator.

The cache folder is this build's own state, written by this code: its pickles are as trusted
as the generator itself.

Model records are pickled as calls of their classes (``records``), which unpickles several
times faster. The pickler is private: pickling elsewhere is not affected.
"""

from __future__ import annotations

import copyreg
import hashlib
import importlib.util
import io
import pickle
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from generator import model
from generator.client import paging
from generator.records import reducer, reducers

#: The modules whose code shapes a reading: the records, their decoding, the list envelope and
#: how the fetcher reads answers. Named as modules: one renamed or moved fails here at import,
#: instead of silently dropping out of the digest.
_SHAPING = (
    "generator.model",
    "generator.records",
    "generator.plain_text",
    "generator.client.paging",
    "generator.crawl.normalize",
    "generator.crawl.wire_values",
    "generator.crawl.fetch",
    "generator.crawl.products",
    "generator.crawl.pack",
)


def _code_digest() -> str:
    digest = hashlib.sha1(usedforsecurity=False)
    digest.update(f"pickle {pickle.HIGHEST_PROTOCOL}\n".encode())
    for name in _SHAPING:
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None:
            raise ImportError(f"{name}, whose code shapes the crawl cache's readings, is missing")
        digest.update(name.encode() + b"\0" + Path(spec.origin).read_bytes())
    return digest.hexdigest()


READING_CODE = _code_digest()


_DISPATCH: Mapping[type, Callable[[Any], Any]] = {
    **copyreg.dispatch_table,
    **reducers(model),
    paging.Page: reducer(paging.Page),
}


def dump_records(value: object) -> bytes:
    """``value`` pickled, its model records as calls of their classes."""
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = _DISPATCH
    pickler.dump(value)
    return buffer.getvalue()


def load_records(blob: bytes) -> object:
    return pickle.loads(blob)


def dump_readings(readings: Mapping[str, object]) -> bytes:
    return dump_records(dict(readings))


def load_readings(blob: bytes) -> dict[str, object]:
    """The readings of ``blob``; {} when it cannot be read (it is only a shortcut)."""
    try:
        found = load_records(blob)
    except Exception:  # noqa: BLE001 - a damaged blob means reading the body again
        return {}
    return found if isinstance(found, dict) else {}
