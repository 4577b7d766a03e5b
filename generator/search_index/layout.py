"""The index as files, each a query's fetch (``index_files``):

- ``index.json``, the manifest: the version (``?v=``) of every shard and chunk, the chunk
  size, the merchant's synonyms; a query fetches it first;
- ``t/<ab>.json``, a term shard: every word starting with those two letters (a one-letter word
  alone in ``t/<a>.json``), each with four lists of product ids, delta-coded: those whose name
  has it first, second, further on, and whose other words (brand, category path, SKUs, option
  values) have it (a query ranks "áo thun" above "áo polo thể thao" for "ao th"); a query
  fetches the shard of each word it has;
- ``r/<n>.json``, a record chunk: the records of products ``n * CHUNK`` to ``(n + 1) * CHUNK
  - 1`` by id; a query fetches those of the results it shows;
- ``f/<n>.json``, a column chunk: what a sort and the filters read of products ``n * COLUMNS``
  to ``(n + 1) * COLUMNS - 1``, column by column (``columns``); a sort or a filter over a
  broad query's results fetches these, then the record chunks of the page it shows only;
- ``pages.json``: the categories, collections and articles it suggests.

A product's change moves its record chunk, its column chunk and the shards of the words it
gained or lost; each file's version is its digest, so the others keep theirs (and the browser's
copies).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from generator.search_index.fold import words
from generator.search_index.records import Entry

#: Products a record chunk holds (by id): a first query's five suggestions fetch at most five
#: chunks of about 4.5 kB gzipped each. A cold query's time is mostly its number of files
#: (each costs about the same at 4x CPU, 7 kB or 100 kB), so fewer, larger chunks than 64.
CHUNK = 128
#: Products a column chunk holds (by id), a whole number of record chunks: a sort or filter
#: over every product fetches about 5 bytes gzipped a product, in files of about 5 kB.
COLUMNS = 8 * CHUNK
MANIFEST = "index.json"
#: What the islands are told the format is; raised when it changes.
FORMAT = 3


def shard_key(word: str) -> str:
    return word[:2]


def _deltas(ids: Iterable[int]) -> list[int]:
    out: list[int] = []
    last = 0
    for value in sorted(ids):
        out.append(value - last)
        last = value
    return out


def _dump(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def version(data: bytes) -> str:
    return hashlib.sha1(data, usedforsecurity=False).hexdigest()[:8]


def _same(held: Any) -> Any:
    return held


def _coded(terms: Mapping[str, Sequence[list[int]]]) -> dict[str, list[list[int]]]:
    """A shard as its file has it: the words in order, their id lists delta-coded."""
    return {word: [_deltas(ids) for ids in terms[word]] for word in sorted(terms)}


def _seconds(stamp: str | None) -> int | None:
    return None if stamp is None else int(datetime.fromisoformat(stamp).timestamp())


def columns(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """A column chunk: of each product (in id order), what a sort and the filters read, a list
    each: ``i`` ids and ``t`` published times (seconds; null without one) delta-coded, ``p``
    effective prices, ``b`` brands and ``o`` option values as places in the chunk's ``B``
    brand names and ``O`` [option, value] pairs, ``s`` in stock as 1 or 0."""
    brands: dict[str, int] = {}
    values: dict[tuple[str, str], int] = {}
    out: dict[str, list[Any]] = {"i": [], "p": [], "t": [], "b": [], "o": [], "s": []}
    last_id = last_time = 0
    for record in records:
        out["i"].append(record["id"] - last_id)
        last_id = record["id"]
        seconds = _seconds(record["t"])
        out["t"].append(None if seconds is None else seconds - last_time)
        last_time = last_time if seconds is None else seconds
        out["p"].append(record["p"])
        brand = record["b"]
        out["b"].append(None if brand is None else brands.setdefault(brand, len(brands)))
        out["o"].append(
            [
                values.setdefault((name, value), len(values))
                for name, held in record["o"].items()
                for value in held
            ]
        )
        out["s"].append(1 if record["s"] else 0)
    return {**out, "B": list(brands), "O": [list(pair) for pair in values]}


#: Each file by its name: (what it holds, its bytes); a build's files are the next one's
#: ``previous``.
Built = dict[str, tuple[Any, bytes]]


def index_files(
    entries: Sequence[Entry],
    pages: list[list[Any]],
    synonyms: Sequence[Sequence[str]],
    previous: Mapping[str, tuple[Any, bytes]] | None = None,
) -> Built:
    """Every file of the index by its name under ``_search/``; a file holding what it held in
    ``previous`` keeps those very bytes (not encoded again)."""
    postings: dict[str, tuple[list[int], list[int], list[int], list[int]]] = {}
    chunks: dict[int, list[dict[str, Any]]] = {}
    for entry in sorted(entries, key=lambda e: e.id):
        chunks.setdefault(entry.id // CHUNK, []).append(entry.record)
        seen: set[str] = set()
        for position, word in enumerate(entry.name_words):
            if word in seen:
                continue
            seen.add(word)
            lists = postings.setdefault(word, ([], [], [], []))
            lists[min(position, 2)].append(entry.id)
        for word in entry.other_words - seen:
            postings.setdefault(word, ([], [], [], []))[3].append(entry.id)
    shards: dict[str, dict[str, tuple[list[int], list[int], list[int], list[int]]]] = {}
    for word, lists in postings.items():
        shards.setdefault(shard_key(word), {})[word] = lists
    before = previous or {}
    built: Built = {}

    def add(name: str, held: Any, encode: Callable[[Any], Any] = _same) -> str:
        kept = before.get(name)
        data = kept[1] if kept is not None and kept[0] == held else _dump(encode(held))
        built[name] = (held, data)
        return version(data)

    versions: dict[str, dict[str, str]] = {"t": {}, "r": {}, "f": {}}
    for key, terms in sorted(shards.items()):
        versions["t"][key] = add(f"t/{key}.json", terms, _coded)
    columned: dict[int, list[dict[str, Any]]] = {}
    for number, records in sorted(chunks.items()):
        versions["r"][str(number)] = add(f"r/{number}.json", records)
        columned.setdefault(number * CHUNK // COLUMNS, []).extend(records)
    for number, records in sorted(columned.items()):
        # Held as the records it is made of: an unchanged chunk is not made again.
        versions["f"][str(number)] = add(f"f/{number}.json", records, columns)
    pages_version = add("pages.json", pages)
    manifest = {
        "format": FORMAT,
        "chunk": CHUNK,
        "columns": COLUMNS,
        "count": len(entries),
        "pages": pages_version,
        "t": versions["t"],
        "r": versions["r"],
        "f": versions["f"],
        "synonyms": [[words(w) for w in group] for group in synonyms],
    }
    add(MANIFEST, manifest)
    return built
