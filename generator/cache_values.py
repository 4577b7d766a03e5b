"""What the crawl read from a cached answer, kept with it so the next build need not read again.

    dump_readings({name: value}) -> bytes       (a pickle)
    load_readings(blob) -> {name: value}
    READING_CODE                                 (which code wrote them)

Decoding the JSON of twenty thousand cached answers and normalizing every record costs seconds;
unpickling what that gave costs a fraction of it. A reading is named by what made it (e.g.
"one generator.normalize.product") and is valid only for the body it was read from (the cache
keeps it with that body) and for the code that read it: ``READING_CODE`` digests the modules
that shape a reading, and a cache written by other code has its readings ignored - never an
old shape read by a new generator.

The cache folder is this build's own state, written by this code: its pickles are as trusted
as the generator itself.

Model records are frozen dataclasses with slots, whose default pickling restores each field
through a Python loop; here each one is pickled as a call of its class with its fields, which
unpickles several times faster. The pickler is private: pickling elsewhere is not affected.
"""

from __future__ import annotations

import copyreg
import dataclasses
import hashlib
import io
import operator
import pickle
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from generator import model
from generator.client import paging

_PACKAGE = Path(__file__).resolve().parent
#: The modules whose code shapes a reading: the records, their decoding, the list envelope and
#: how the fetcher reads answers.
_SHAPING = (
    "model.py",
    "normalize.py",
    "plain_text.py",
    "wire_values.py",
    "client/paging.py",
    "crawl_fetch.py",
    "crawl_products.py",
    "product_pack.py",
)


def _code_digest() -> str:
    digest = hashlib.sha1(usedforsecurity=False)
    digest.update(f"pickle {pickle.HIGHEST_PROTOCOL}\n".encode())
    for name in _SHAPING:
        digest.update(name.encode() + b"\0" + (_PACKAGE / name).read_bytes())
    return digest.hexdigest()


READING_CODE = _code_digest()


def _reducer(cls: type) -> Callable[[Any], tuple[type, tuple[object, ...]]]:
    names = [field.name for field in dataclasses.fields(cls)]
    if len(names) == 1:
        (name,) = names
        return lambda record: (cls, (getattr(record, name),))
    fields = operator.attrgetter(*names)
    return lambda record: (cls, fields(record))


def _records() -> dict[type, Callable[[Any], tuple[type, tuple[object, ...]]]]:
    classes = [
        value
        for value in vars(model).values()
        if isinstance(value, type)
        and dataclasses.is_dataclass(value)
        and value.__module__ == model.__name__
    ]
    return {cls: _reducer(cls) for cls in [*classes, paging.Page]}


_DISPATCH: Mapping[type, Callable[[Any], Any]] = {
    **copyreg.dispatch_table,
    **_records(),
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
