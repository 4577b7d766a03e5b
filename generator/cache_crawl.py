"""The crawl cache: what every GET of the last crawl answered, kept in the cache folder.

    CrawlCache.open(cache_dir) -> CrawlCache      (read once into memory)
    cache.lookup(key) -> CachedAnswer | None      (key: ``describe_endpoint(path, params)``)
    cache.store(key, answer)                      (remembered for the next build)
    cache.save()                                  (after a successful build only)

Each answer carries the ``version`` the crawl gave it (a digest of the list entry that
describes the entity: its card, with ``updated_at`` and prices), the server's ``ETag`` and the
JSON body. The fetcher reuses a detail whose version has not moved without asking the API at
all, and asks lists again with ``If-None-Match`` (a 304 reuses the body). ``save`` keeps only
the answers this crawl used, so entities that went away leave the cache with their pages.

The file is SQLite (``crawl.sqlite3``), written in one transaction at the end of a build: a
failed build leaves the previous cache as it was. It is build state, never part of the output.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from generator.errors import StorefrontError

CACHE_FILE = "crawl.sqlite3"
#: Bumped whenever the stored shape changes; an older file is ignored (a full crawl follows).
SCHEMA_VERSION = 1


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


class CrawlCache:
    def __init__(self, path: Path, answers: dict[str, CachedAnswer]) -> None:
        self.path = path
        self._previous = answers
        self._current: dict[str, CachedAnswer] = {}
        #: Answers of the last crawl used again as they are (no request, or no body sent).
        self.reused = 0

    @classmethod
    def open(cls, cache_dir: Path) -> CrawlCache:
        """The cache of ``cache_dir``; empty when there is none yet or it is unreadable."""
        path = cache_dir / CACHE_FILE
        return cls(path, _read(path))

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

    def save(self) -> None:
        """Replace the stored answers by those of this crawl, in one transaction."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.unlink(missing_ok=True)
        with sqlite3.connect(tmp) as db:
            db.execute("PRAGMA journal_mode=OFF")
            db.execute("CREATE TABLE meta (schema INTEGER)")
            db.execute("INSERT INTO meta VALUES (?)", (SCHEMA_VERSION,))
            db.execute(
                "CREATE TABLE answers (key TEXT PRIMARY KEY, status INTEGER, version TEXT, "
                "etag TEXT, body BLOB)"
            )
            db.executemany(
                "INSERT INTO answers VALUES (?, ?, ?, ?, ?)",
                (
                    (key, a.status, a.version, a.etag, a.body)
                    for key, a in sorted(self._current.items())
                ),
            )
        db.close()
        tmp.replace(self.path)  # atomic: a reader sees the old cache or the new one


def _read(path: Path) -> dict[str, CachedAnswer]:
    if not path.is_file():
        return {}
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            (schema,) = db.execute("SELECT schema FROM meta").fetchone()
            if schema != SCHEMA_VERSION:
                return {}
            rows = db.execute("SELECT key, status, version, etag, body FROM answers").fetchall()
        finally:
            db.close()
    except (sqlite3.Error, TypeError):
        return {}  # a damaged or foreign file: start over rather than fail the build
    return {
        key: CachedAnswer(status, version, etag, bytes(body))
        for key, status, version, etag, body in rows
    }
