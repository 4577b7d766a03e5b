"""The index as files, each a query's fetch (``index_files``):

- ``index.json``, the manifest: the version (``?v=``) of every shard and chunk, the chunk
  size, the merchant's synonyms; a query fetches it first;
- ``t/<ab>.json``, a term shard: every word starting with those two letters (a one-letter word
  alone in ``t/<a>.json``), each with four lists of product ids, delta-coded: those whose name
  has it first, second, further on, and whose other words (brand, category path, SKUs, option
  values) have it (a query ranks "áo thun" above "áo polo thể thao" for "ao th"); a query
  fetches the shard of each word it has (``shard_key``). A shard of many words past
  ``SHARD_BYTES`` (a store's SKUs share their first letters) is split by the letter after the
  prefix into parts, each as many next letters in order as fit and named by the first letters
  it starts at (``t/sp120.json``), a part of one letter that is still too large split again;
  the manifest gives each split prefix its parts' starts. The split prefix's own shard keeps
  the word that is the prefix itself and, for a query that ends in that prefix, the longer
  words found in the most products, as many as fit (``_split``);
- ``r/<n>.json``, a record chunk: the records of products ``n * CHUNK`` to ``(n + 1) * CHUNK
  - 1`` by id; a query fetches those of the results it shows;
- ``f/<n>.json``, a column chunk: what a sort and the filters read of products ``n * COLUMNS``
  to ``(n + 1) * COLUMNS - 1``, column by column (``columns``); a sort or a filter over a
  broad query's results fetches these, then the record chunks of the page it shows only;
- ``pages.json``: the categories, collections and articles it suggests.

A product's change moves its record chunk, its column chunk and the shards of the words it
gained or lost (in a split shard, maybe the bounds of the parts after them, or the likeliest
words); each file's version is its digest, so the others keep theirs (and the browser's
copies).
"""

from __future__ import annotations

import hashlib
import heapq
import json
from bisect import bisect_left, bisect_right, insort
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import accumulate, chain
from types import MappingProxyType
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
FORMAT = 4
#: A term shard of more than ``SPLIT_WORDS`` words past this many bytes is split (a shopper's
#: phone fetches and reads the whole shard of each word typed). A shard of fewer, common words
#: stays whole: each of its words is in many products, so a query for any of them wants it.
SHARD_BYTES = 128 * 1024
SPLIT_WORDS = 64
#: A split prefix's own shard holds at most this share of it: some of its longer words to
#: suggest while the shopper has typed no further.
LIKELIEST_SHARE = 1 / 4

#: A word's four id lists: name first, name second, name further on, other words.
Lists = tuple[list[int], list[int], list[int], list[int]]


def shard_key(word: str, split: Mapping[str, Sequence[str]] = MappingProxyType({})) -> str:
    """The shard holding ``word``: its first two letters; past a split prefix, the part (named
    by the first letters it starts at, one more than the prefix) that holds the word's next
    letter. For a word the index does not have, a shard it would be in, or a name no shard
    has. The islands' ``shardOf`` is the same."""
    key = word[:2]
    while key in split and len(word) > len(key):
        starts = split[key]
        at = bisect_right(starts, word[: len(key) + 1])
        key = starts[at - 1] if at else word[: len(key) + 1]
    return key


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


def _coded(terms: Mapping[str, Sequence[list[int]]]) -> dict[str, list[list[int]]]:
    """A shard as its file has it: the words in order, their id lists delta-coded."""
    return {word: [_deltas(ids) for ids in terms[word]] for word in sorted(terms)}


def _split(
    postings: Mapping[str, Lists], limit: int = SHARD_BYTES
) -> tuple[dict[str, dict[str, Lists]], dict[str, list[str]]]:
    """The term shards by key, and where each split prefix's parts start (see the module's
    docstring)."""
    shards: dict[str, dict[str, Lists]] = {}
    for word, lists in postings.items():
        shards.setdefault(shard_key(word), {})[word] = lists
    split: dict[str, list[str]] = {}
    for key in [key for key, terms in shards.items() if len(terms) > SPLIT_WORDS]:
        terms = shards.pop(key)
        # In order, the words that begin alike are side by side: a prefix's are a range.
        words = sorted(terms)
        sizes = list(accumulate((_size(w, terms[w]) for w in words), initial=0))
        ranks = [(-sum(map(len, terms[w])), len(w), w) for w in words]
        cut = _Cut(words, sizes, ranks, limit, split)
        for name, lo, hi, likeliest in cut.shards(key, 0, len(words)):
            shards[name] = {w: terms[w] for w in chain(words[lo:hi], likeliest)}
    return shards, dict(sorted(split.items()))


@dataclass(frozen=True, slots=True)
class _Cut:
    """A shard's words in order, the bytes before each (``sizes``), each one's rank for the
    likeliest, and where the prefixes split are noted (``split``)."""

    words: list[str]
    sizes: list[int]
    ranks: list[tuple[int, int, str]]
    limit: int
    split: dict[str, list[str]]

    def shards(self, key: str, lo: int, hi: int) -> Iterator[tuple[str, int, int, list[str]]]:
        """The shards of the words ``lo`` to ``hi`` (those that begin with ``key``, or a part's):
        each one's name, range and likeliest longer words (a split prefix's own shard)."""
        words, sizes = self.words, self.sizes
        if hi - lo <= SPLIT_WORDS or sizes[hi] - sizes[lo] <= self.limit:
            yield key, lo, hi, []
            return
        own = lo + (words[lo] == key)  # the word that is the prefix itself sorts first
        # The next letters in order, as many to a part as fit (one alone may not: split again).
        parts: list[list[Any]] = []
        room = 0
        at = own
        while at < hi:
            start = words[at][: len(key) + 1]
            end = bisect_left(words, start + "\x7f", at, hi)  # a word's letters are [a-z0-9]
            if not parts or sizes[end] - sizes[at] > room:
                parts.append([start, at, end])
                room = self.limit
            parts[-1][2] = end
            room -= sizes[end] - sizes[at]
            at = end
        self.split[key] = [start for start, _, _ in parts]
        room = int(self.limit * LIKELIEST_SHARE) - (sizes[own] - sizes[lo])
        yield key, lo, own, self._likeliest(own, hi, max(0, room))
        for start, part_lo, part_hi in parts:
            yield from self.shards(start, part_lo, part_hi)

    def _likeliest(self, lo: int, hi: int, room: int) -> list[str]:
        """Of the words ``lo`` to ``hi``, those in the most products (the shorter first, then
        in order), as many as fit in ``room`` bytes: what a split prefix's own shard suggests
        for a query that ends there."""
        chosen: list[str] = []
        # A word takes 20 bytes at least: no more than that many can fit.
        for i in heapq.nsmallest(room // 20, range(lo, hi), key=self.ranks.__getitem__):
            room -= self.sizes[i + 1] - self.sizes[i]
            if room < 0:
                break
            chosen.append(self.words[i])
        return chosen


def _size(word: str, lists: Lists) -> int:
    """About the bytes of ``word`` in its shard's file, worked out from its lists' lengths and
    spans (ids ascending) without coding them."""
    size = len(word) + 17  # its quotes, colon and comma, four lists' brackets and commas
    for ids in lists:
        if ids:
            gap = (ids[-1] - ids[0]) // len(ids) + 1
            size += len(ids) * (len(str(gap)) + 1) + len(str(ids[0]))
    return size


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


@dataclass(frozen=True, slots=True)
class Built:
    """An index as a build leaves it for the next: each file's bytes by its name under
    ``_search/``, where the split prefixes' parts start, and the entries it holds by id."""

    files: dict[str, bytes]
    split: dict[str, list[str]]
    entries: dict[int, Entry]


NOTHING = Built({}, {}, {})


def _placed(entry: Entry | None) -> dict[str, int]:
    """Which of its word's four lists holds ``entry``, by word: the place of the word's first
    time in the name (second and further on as one), else its other words'."""
    placed: dict[str, int] = {}
    if entry is None:
        return placed
    for position, word in enumerate(entry.name_words):
        placed.setdefault(word, min(position, 2))
    for word in entry.other_words:
        placed.setdefault(word, 3)
    return placed


def _group(key: str) -> str:
    """A word's group: the shard of its first two letters, before any split (a split is worked
    out within a group, so a group's files are made again together)."""
    return key[:2]


def _decoded(files: Mapping[str, bytes], groups: set[str]) -> dict[str, Lists]:
    """The words of ``groups`` and their id lists (absolute), from their term shards' bytes."""
    postings: dict[str, Lists] = {}
    for name, data in files.items():
        if name.startswith("t/") and _group(name[2:-5]) in groups:
            for word, (first, second, further, other) in json.loads(data).items():
                postings[word] = (
                    list(accumulate(first)),
                    list(accumulate(second)),
                    list(accumulate(further)),
                    list(accumulate(other)),
                )
    return postings


def index_files(
    entries: Sequence[Entry],
    pages: list[list[Any]],
    synonyms: Sequence[Sequence[str]],
    previous: Built = NOTHING,
    *,
    shard_bytes: int = SHARD_BYTES,
) -> Built:
    """Every file of the index of ``entries``: those of ``previous`` that no entry's change
    moves kept as they are, the others made again from the entries that changed (a term
    shard's whole group, a record or column chunk), as a build from nothing would make them."""
    by_id = {entry.id: entry for entry in entries}
    old = previous.entries
    changed = sorted(i for i in by_id.keys() | old.keys() if by_id.get(i) != old.get(i))
    files = dict(previous.files)
    split = dict(previous.split)
    # The words whose lists a change moves; a change of a record alone (a price, the stock)
    # moves none, only its chunks.
    gone: list[tuple[str, int, int]] = []
    came: list[tuple[str, int, int]] = []
    for i in changed:
        before, after = _placed(old.get(i)), _placed(by_id.get(i))
        gone += [(word, place, i) for word, place in before.items() if after.get(word) != place]
        came += [(word, place, i) for word, place in after.items() if before.get(word) != place]
    groups = {_group(word) for word, _, _ in chain(gone, came)}
    postings = _decoded(previous.files, groups)
    for word, place, i in gone:
        postings[word][place].remove(i)
    for word, place, i in came:
        insort(postings.setdefault(word, ([], [], [], []))[place], i)
    for name in [n for n in files if n.startswith("t/") and _group(n[2:-5]) in groups]:
        del files[name]
    for key in [k for k in split if _group(k) in groups]:
        del split[key]
    shards, regrouped = _split(
        {w: lists for w, lists in postings.items() if any(lists)}, shard_bytes
    )
    for key, terms in shards.items():
        files[f"t/{key}.json"] = _dump(_coded(terms))
    split = dict(sorted({**split, **regrouped}.items()))
    _chunks(files, by_id, {i // CHUNK for i in changed}, {i // COLUMNS for i in changed})
    files["pages.json"] = _dump(pages)
    files[MANIFEST] = _dump(_manifest(files, split, len(by_id), synonyms))
    return Built(files, split, by_id)


def _chunks(
    files: dict[str, bytes], by_id: Mapping[int, Entry], records: set[int], columned: set[int]
) -> None:
    """The record chunks numbered ``records`` and the column chunks numbered ``columned`` made
    again in ``files`` from the entries (gone when they hold none)."""
    held: dict[str, list[dict[str, Any]]] = {}
    for i in sorted(by_id):
        if i // CHUNK in records:
            held.setdefault(f"r/{i // CHUNK}.json", []).append(by_id[i].record)
        if i // COLUMNS in columned:
            held.setdefault(f"f/{i // COLUMNS}.json", []).append(by_id[i].record)
    for number in records:
        files.pop(f"r/{number}.json", None)
    for number in columned:
        files.pop(f"f/{number}.json", None)
    for name, chunk in held.items():
        files[name] = _dump(chunk if name.startswith("r/") else columns(chunk))


def _manifest(
    files: Mapping[str, bytes],
    split: dict[str, list[str]],
    count: int,
    synonyms: Sequence[Sequence[str]],
) -> dict[str, Any]:
    versions: dict[str, dict[str, str]] = {"t": {}, "r": {}, "f": {}}
    for name in sorted(files, key=_file_order):
        kind, _, rest = name.partition("/")
        if kind in versions:
            versions[kind][rest.removesuffix(".json")] = version(files[name])
    return {
        "format": FORMAT,
        "chunk": CHUNK,
        "columns": COLUMNS,
        "count": count,
        "pages": version(files["pages.json"]),
        "t": versions["t"],
        "s": split,
        "r": versions["r"],
        "f": versions["f"],
        "synonyms": [[words(w) for w in group] for group in synonyms],
    }


def _file_order(name: str) -> tuple[str, int, str]:
    """Term shards by key; record and column chunks by number."""
    kind, _, rest = name.partition("/")
    stem = rest.removesuffix(".json")
    return (kind, int(stem), "") if kind in ("r", "f") else (kind, 0, stem)
