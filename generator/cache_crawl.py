"""The crawl cache: what every GET of the last crawl answered, kept in the cache folder.

    CrawlCache.open(cache_dir) -> CrawlCache      (read once into memory)
    cache.lookup(key) -> CachedAnswer | None      (key: ``describe_endpoint(path, params)``)
    cache.store(key, answer)                      (remembered for the next build)
    cache.settle()                                (the crawl is done: keep only what save needs)
    cache.save()                                  (after a successful build only)
    cache.reading(key, answer, name) / cache.add_reading(key, name, value)
                                                  (what the crawl read from an answer)

Each answer carries the ``version`` the crawl gave it (a digest of the list entry that
describes the entity: its card, with ``updated_at`` and prices), the server's ``ETag`` and the
JSON body. The fetcher reuses a detail whose version has not moved without asking the API at
all, and asks lists again with ``If-None-Match`` (a 304 reuses the body). ``save`` keeps only
the answers this crawl used, so entities that went away leave the cache with their pages.
With each answer it keeps what the crawl read from it (the normalized records, pickled; see
``cache_values``), so replaying an unchanged answer costs no JSON decoding.

The file is SQLite (``crawl.sqlite3``), written in one transaction at the end of a build: a
failed build leaves the previous cache as it was. ``save`` writes only what changed since the
file was read (new and changed answers, the removal of those this crawl did not use); a cache
that started empty (``--full``, a first build) is written whole to a new file that then takes
the old one's place. It is build state, never part of the output.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from generator.cache_values import READING_CODE, dump_readings, load_readings
from generator.errors import StorefrontError

CACHE_FILE = "crawl.sqlite3"
#: Bumped whenever the stored shape changes; an older file is ignored (a full crawl follows).
SCHEMA_VERSION = 2


#: ``reading`` found nothing usable.
NO_READING: Final = object()


class CacheMiss(StorefrontError):
    """--from-cache asked for an answer the last crawl did not store."""


@dataclass(frozen=True, slots=True)
class CachedAnswer:
    status: int  # 200, or an absent status (404/405/410) the crawl treats as "not offered"
    version: str | None
    etag: str | None
    body: bytes  # the JSON text; b"null" for an absent answer

    @property
    def data(self) -> object:
        return json.loads(self.body)

    @property
    def digest(self) -> str:
        return hashlib.sha1(self.body, usedforsecurity=False).hexdigest()


def encode_body(data: object) -> bytes:
    """The stored (and digested) form of a decoded JSON body: compact and stable."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


#: A stored answer: key, status, version, etag, body, readings.
Row = tuple[str, int, str | None, str | None, bytes, bytes | None]


@dataclass(frozen=True, slots=True)
class _Changes:
    whole: bool  # every answer, to a new file; else the difference to the file read
    rows: list[Row]  # the answers to write
    gone: list[tuple[str]]  # the keys to delete (the difference only)


class CrawlCache:
    def __init__(
        self,
        path: Path,
        answers: dict[str, CachedAnswer],
        *,
        readings: dict[str, bytes] | None = None,
        from_file: bool = False,
    ) -> None:
        """``readings``: the pickled readings of ``answers`` by key; ``from_file``: ``answers``
        are what ``path`` holds, so ``save`` may write only the difference."""
        self.path = path
        self._previous = answers
        self._blobs = readings or {}
        self._loaded: dict[str, dict[str, object]] = {}
        self._fresh: dict[str, tuple[bytes, dict[str, object]]] = {}
        self._from_file = from_file
        self._current: dict[str, CachedAnswer] = {}
        self._settled: _Changes | None = None
        #: Answers of the last crawl used again as they are (no request, or no body sent).
        self.reused = 0

    @classmethod
    def open(cls, cache_dir: Path) -> CrawlCache:
        """The cache of ``cache_dir``; empty when there is none yet or it is unreadable."""
        path = cache_dir / CACHE_FILE
        found = _read(path)
        if found is None:
            return cls(path, {})
        answers, readings = found
        # Written by other code: its stored readings must go, so the file is written anew.
        same_code = readings is not None
        return cls(path, answers, readings=readings, from_file=same_code)

    @classmethod
    def empty(cls, cache_dir: Path) -> CrawlCache:
        """A cache that remembers nothing from before (``--full``) but saves this crawl."""
        return cls(cache_dir / CACHE_FILE, {})

    def __len__(self) -> int:
        return len(self._previous)

    def lookup(self, key: str) -> CachedAnswer | None:
        return self._current.get(key) or self._previous.get(key)

    def store(self, key: str, answer: CachedAnswer) -> None:
        self._current[key] = answer

    def keep(self, key: str) -> CachedAnswer | None:
        """The previous answer of ``key``, kept for the next build as it is."""
        answer = self.lookup(key)
        if answer is not None:
            self._current[key] = answer
            self.reused += 1
        return answer

    def reading(self, key: str, answer: CachedAnswer, name: str) -> object:
        """What the last build read from ``answer`` as ``name``, when it read that very body;
        else ``NO_READING``."""
        previous = self._previous.get(key)
        if previous is None or key not in self._blobs:
            return NO_READING
        if previous.body is not answer.body and previous.body != answer.body:
            return NO_READING
        loaded = self._loaded.get(key)
        if loaded is None:
            loaded = self._loaded[key] = load_readings(self._blobs[key])
        return loaded.get(name, NO_READING)

    def add_reading(self, key: str, body: bytes, name: str, value: object) -> None:
        """What this build read from ``body`` as ``name``, kept with the answer of ``key``
        when that is still the body it has at the end."""
        found = self._fresh.get(key)
        if found is None or found[0] is not body:
            found = self._fresh[key] = (body, {})
        found[1][name] = value

    def _blob(self, key: str, answer: CachedAnswer) -> bytes | None:
        """The readings to store with ``answer``: this build's, else the last build's when the
        body is the same."""
        fresh = self._fresh.get(key)
        if fresh is not None and (fresh[0] is answer.body or fresh[0] == answer.body):
            return dump_readings(fresh[1])
        previous = self._previous.get(key)
        if previous is not None and previous.body == answer.body:
            return self._blobs.get(key)
        return None

    def settle(self) -> None:
        """Work out now what ``save`` will write, and let go of the rest.

        Once the crawl is done the answers it reused as they were - their bodies and stored
        readings, tens of MB per 10,000 products - are needed by nothing but ``save``, which
        writes only what changed. A build settles its cache before planning and rendering, so
        that memory serves them instead. Afterwards the cache answers no lookups: a further
        crawl opens the file again."""
        self._settled = self._changes()
        self._previous = {}
        self._blobs = {}
        self._loaded = {}
        self._fresh = {}
        self._current = {}

    def save(self) -> None:
        """Replace the stored answers by those of this crawl, in one transaction."""
        settled = self._settled
        changes = settled if settled is not None else self._changes()
        if changes.whole:
            self._write_all(changes.rows)
        else:
            self._write_changes(changes)
        self._from_file = True
        if settled is not None:
            self._settled = None
            return
        if changes.whole:
            blobs = {row[0]: row[5] for row in changes.rows if row[5] is not None}
        else:
            blobs = {key: blob for key, blob in self._blobs.items() if key in self._current}
            for row in changes.rows:
                if row[5] is None:
                    blobs.pop(row[0], None)
                else:
                    blobs[row[0]] = row[5]
        self._previous = dict(self._current)
        self._blobs = blobs
        self._loaded = {}
        self._fresh = {}

    def _changes(self) -> _Changes:
        """What ``save`` writes: the difference to the file this cache was read from, or every
        answer to a new file (a cache that started empty, or one written by other code)."""
        if self._from_file and self.path.is_file():
            gone = [(key,) for key in self._previous if key not in self._current]
            changed = [
                key
                for key, answer in self._current.items()
                if key in self._fresh or self._previous.get(key) != answer
            ]
            return _Changes(False, [self._row(key) for key in changed], gone)
        return _Changes(True, [self._row(key) for key in sorted(self._current)], [])

    def _write_changes(self, changes: _Changes) -> None:
        db = sqlite3.connect(self.path)
        try:
            with db:  # one transaction: committed whole, or rolled back
                db.execute("UPDATE meta SET code = ?", (READING_CODE,))
                db.executemany("DELETE FROM answers WHERE key = ?", changes.gone)
                db.executemany(
                    "INSERT OR REPLACE INTO answers VALUES (?, ?, ?, ?, ?, ?)", changes.rows
                )
        finally:
            db.close()

    def _write_all(self, rows: list[Row]) -> None:
        """Write every answer to a new file, which then replaces the old one."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.unlink(missing_ok=True)
        with sqlite3.connect(tmp) as db:
            db.execute("PRAGMA journal_mode=OFF")
            db.execute("CREATE TABLE meta (schema INTEGER, code TEXT)")
            db.execute("INSERT INTO meta VALUES (?, ?)", (SCHEMA_VERSION, READING_CODE))
            db.execute(
                "CREATE TABLE answers (key TEXT PRIMARY KEY, status INTEGER, version TEXT, "
                "etag TEXT, body BLOB, readings BLOB)"
            )
            db.executemany("INSERT INTO answers VALUES (?, ?, ?, ?, ?, ?)", rows)
        db.close()
        tmp.replace(self.path)  # atomic: a reader sees the old cache or the new one

    def _row(self, key: str) -> Row:
        a = self._current[key]
        return (key, a.status, a.version, a.etag, a.body, self._blob(key, a))


def _read(path: Path) -> tuple[dict[str, CachedAnswer], dict[str, bytes] | None] | None:
    """The answers ``path`` holds and their readings (None when other code wrote them); None
    when there is no usable file."""
    if not path.is_file():
        return None
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            (schema,) = db.execute("SELECT schema FROM meta").fetchone()
            if schema == 1:  # the answers without readings: read them, write the file anew
                code = None
                rows = db.execute(
                    "SELECT key, status, version, etag, body, NULL FROM answers"
                ).fetchall()
            elif schema == SCHEMA_VERSION:
                (code,) = db.execute("SELECT code FROM meta").fetchone()
                rows = db.execute(
                    "SELECT key, status, version, etag, body, readings FROM answers"
                ).fetchall()
            else:
                return None
        finally:
            db.close()
    except (sqlite3.Error, TypeError, ValueError):
        return None  # a damaged or foreign file: start over rather than fail the build
    answers = {
        key: CachedAnswer(status, version, etag, bytes(body))
        for key, status, version, etag, body, _ in rows
    }
    if code != READING_CODE:
        return answers, None
    return answers, {key: bytes(blob) for key, *_, blob in rows if blob is not None}
