"""The index as files, each a query's fetch (``index_files``):

- ``index.json``, the manifest: the version (``?v=``) of every shard and chunk, the chunk
  size, the merchant's synonyms; a query fetches it first;
- ``t/<ab>.json``, a term shard: every word starting with those two letters (a one-letter word
  alone in ``t/<a>.json``), each with three lists of product ids, delta-coded: those whose name
  starts with it, whose name holds it elsewhere, whose other words (brand, category path,
  SKUs, option values) do; a query fetches the shard of each word it has;
- ``r/<n>.json``, a record chunk: the records of products ``n * CHUNK`` to ``(n + 1) * CHUNK
  - 1`` by id; a query fetches those of the results it shows;
- ``pages.json``: the categories, collections and articles it suggests.

A product's change moves its chunk and the shards of the words it gained or lost; each file's
version is its digest, so the others keep theirs (and the browser's copies).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from typing import Any

from generator.search_index.fold import words
from generator.search_index.records import Entry

#: Products a record chunk holds (by id): a first query's five suggestions fetch at most five
#: chunks of about 4 kB gzipped each.
CHUNK = 64
MANIFEST = "index.json"
#: What the islands are told the format is; raised when it changes.
FORMAT = 1


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


def index_files(
    entries: Sequence[Entry],
    pages: list[list[Any]],
    synonyms: Sequence[Sequence[str]],
) -> dict[str, bytes]:
    """Every file of the index by its name under ``_search/``."""
    postings: dict[str, tuple[list[int], list[int], list[int]]] = {}
    chunks: dict[int, list[dict[str, Any]]] = {}
    for entry in entries:
        chunks.setdefault(entry.id // CHUNK, []).append(entry.record)
        seen: set[str] = set()
        for position, word in enumerate(entry.name_words):
            if word in seen:
                continue
            seen.add(word)
            lists = postings.setdefault(word, ([], [], []))
            lists[0 if position == 0 else 1].append(entry.id)
        for word in entry.other_words - seen:
            postings.setdefault(word, ([], [], []))[2].append(entry.id)
    shards: dict[str, dict[str, list[list[int]]]] = {}
    for word, lists in postings.items():
        shards.setdefault(shard_key(word), {})[word] = [_deltas(ids) for ids in lists]
    files: dict[str, bytes] = {}
    versions: dict[str, dict[str, str]] = {"t": {}, "r": {}}
    for key, terms in sorted(shards.items()):
        data = _dump(dict(sorted(terms.items())))
        files[f"t/{key}.json"] = data
        versions["t"][key] = version(data)
    for number, records in sorted(chunks.items()):
        data = _dump(sorted(records, key=lambda r: int(r["id"])))
        files[f"r/{number}.json"] = data
        versions["r"][str(number)] = version(data)
    pages_data = _dump(pages)
    files["pages.json"] = pages_data
    manifest = {
        "format": FORMAT,
        "chunk": CHUNK,
        "count": len(entries),
        "pages": version(pages_data),
        "t": versions["t"],
        "r": versions["r"],
        "synonyms": [[words(w) for w in group] for group in synonyms],
    }
    files[MANIFEST] = _dump(manifest)
    return files
