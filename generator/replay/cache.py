"""The crawl cache: what every GET of the last crawl answered, kept in the cache folder.

    CrawlCache.open(cache_dir) -> CrawlCache              (its index read into memory)
    cache.lookup(key) -> CachedAnswer | None              (key: ``describe_endpoint(...)``)
    cache.store(key, answer)                              (remembered for the next build)
    cache.carry_over(key)                                 (the last answer kept as it is)
    cache.prepare_save()                                  (the crawl is done: keep only
                                                           what save needs)
    cache.written_whole                                   (prepared: to a new file, whole)
    cache.save()                                          (after a successful build only)
    cache.reading(key, answer, name) / cache.add_reading(key, name, value)
                                                          (what the crawl read from an answer)

Each answer carries the ``version`` the crawl gave it (a digest of the list entry that
describes the entity: its card, with ``updated_at`` and prices), the server's ``ETag`` and the
JSON body. The fetcher reuses a detail whose version has not moved without asking the API at
all, and asks lists again with ``If-None-Match`` (a 304 reuses the body). ``save`` keeps only
the answers this crawl used, so entities that went away leave the cache with their pages.
With each answer it keeps what the crawl read from it (the normalized records, pickled; see
``cache_values``), so replaying an unchanged answer costs no JSON decoding.

Opening the cache reads only its index (key, status, version, ETag and a digest of each body):
a rebuild replays most answers without their bodies, and a reading (a product's pack, say) is
read from the file when the crawl asks for it. A large store's cache is hundreds of MB of JSON
that a rebuild never needs in memory.

The file is SQLite (``crawl.sqlite3``: the index in a table of its own, bodies and readings in
another), written in one transaction at the end of a build: a
failed build leaves the previous cache as it was. ``save`` writes only what changed since the
file was read (new and changed answers, the removal of those this crawl did not use); a cache
that started empty (``--full``, a first build) is written whole to a new file that then takes
the old one's place: each answer's row as the answer arrives (its body is read back from there
when asked for, so a first crawl holds no bodies in memory), the readings when the crawl
ends. It is build state, never part of the output.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from generator.errors import StorefrontError
from generator.replay.cache_values import READING_CODE, CardTable, dump_readings, load_readings

CACHE_FILE = "crawl.sqlite3"
#: Bumped whenever the stored shape changes; another file is ignored (a full crawl follows).
SCHEMA_VERSION = 4
#: The code a cache file holding a crawl that did not finish is marked with (``recover_partial``).
RESUMED_CODE = "resumed"
#: Keys asked in one query (SQLite allows 32,766 parameters; a list page has at most 100).
_KEYS_PER_QUERY = 500


#: ``reading`` found nothing usable.
NO_READING: Final = object()


class CacheMiss(StorefrontError):
    """--from-cache asked for an answer the last crawl did not store."""


class CacheUnreadable(StorefrontError):
    """The crawl cache's index failed to read part way (a file damaged since it was opened)."""


class CacheUnwritable(StorefrontError):
    """The new cache file cannot be written while the crawl fills it (a full disk, most
    often); raised as itself, not as SQLite's error, so that it leaves the crawl's concurrent
    tasks whole and the build can say in one line what it means."""

    def __init__(self, reason: sqlite3.Error) -> None:
        super().__init__(f"cannot write the crawl cache ({reason})")
        self.reason = reason


class CachedAnswer:
    """One answer: status (200, or an absent status - 404/405/410 - the crawl treats as "not
    offered"), the version the crawl gave it, the server's ETag and the JSON body (b"null" for
    an absent answer). An answer of the cache file reads its body from the file when asked.
    Two answers are equal when status, version, ETag and body are."""

    __slots__ = ("status", "version", "etag", "_body", "_digest", "_load", "_key", "_decoded")

    def __init__(
        self,
        status: int,
        version: str | None,
        etag: str | None,
        body: bytes | None = None,
        *,
        digest: str | None = None,
        load: Callable[[str], bytes] | None = None,
        key: str = "",
        decoded: object = None,
    ) -> None:
        """``body``, or ``digest`` and ``load`` (``load(key)`` reads the body when it is asked
        for: one reader and the key per answer, not a closure each). ``decoded``: the body as
        the client already decoded it, which ``data`` gives once instead of decoding again."""
        if body is None and (digest is None or load is None):
            raise ValueError("an answer needs its body, or its digest and a way to read it")
        self.status = status
        self.version = version
        self.etag = etag
        self._body = body
        self._digest = digest
        self._load = load
        self._key = key
        self._decoded = decoded

    @property
    def body(self) -> bytes:
        if self._body is not None:
            return self._body
        assert self._load is not None
        return self._load(
            self._key
        )  # not kept: bodies are rarely read twice, and memory is the point

    @property
    def data(self) -> object:
        decoded, self._decoded = self._decoded, None  # given once: the reader owns it
        return decoded if decoded is not None else json.loads(self.body)

    @property
    def digest(self) -> str:
        if self._digest is None:
            self._digest = hashlib.sha1(self.body, usedforsecurity=False).hexdigest()
        return self._digest

    def with_version(self, version: str | None) -> CachedAnswer:
        """The same answer (its body shared, or read when asked for) under ``version``."""
        if self._body is not None:
            return CachedAnswer(self.status, version, self.etag, self._body)
        return CachedAnswer(
            self.status, version, self.etag, digest=self._digest, load=self._load, key=self._key
        )

    @property
    def in_memory(self) -> bool:
        return self._body is not None

    def read_from(self, load: Callable[[str], bytes]) -> str | None:
        """The key this answer's body is read under through ``load``; None when the body is
        held in memory or read from elsewhere."""
        return self._key if self._body is None and self._load == load else None

    def same_body(self, other: CachedAnswer) -> bool:
        return other is self or other.digest == self.digest

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CachedAnswer):
            return NotImplemented
        return (
            self.status == other.status
            and self.version == other.version
            and self.etag == other.etag
            and self.same_body(other)
        )

    def __hash__(self) -> int:
        return hash((self.status, self.version, self.etag, self.digest))

    def __repr__(self) -> str:
        return f"CachedAnswer({self.status}, {self.version!r}, {self.etag!r}, {self.digest})"


def encode_body(data: object) -> bytes:
    """The stored (and digested) form of a decoded JSON body: compact and stable."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


#: An answer as the index has it: key, status, version, etag, digest, has readings.
IndexRow = tuple[str, int, str | None, str | None, str, bool]
#: A stored answer: key, status, version, etag, digest, readings, body.
Row = tuple[str, int, str | None, str | None, str, bytes | None, bytes]


@dataclass(frozen=True, slots=True)
class _Changes:
    whole: bool  # every answer, to a new file; else the difference to the file read
    rows: Iterable[Row]  # the answers to write (none once prepared: written whole already)
    gone: list[tuple[str]]  # the keys to delete (the difference only)


#: The layout: the index of every answer in a table of its own, small enough to be read whole
#: in a few pages; bodies and readings beside it, read one answer at a time.
_TABLES = (
    "CREATE TABLE answers (key TEXT PRIMARY KEY, status INTEGER, version TEXT, etag TEXT, "
    "digest TEXT, has_readings INTEGER) WITHOUT ROWID",
    "CREATE TABLE bodies (key TEXT PRIMARY KEY, readings BLOB, body BLOB)",
)


def _put(db: sqlite3.Connection, rows: Iterable[Row]) -> None:
    """Write ``rows`` (replacing rows of the same keys)."""
    rows = list(rows)
    db.executemany(
        "INSERT OR REPLACE INTO answers VALUES (?, ?, ?, ?, ?, ?)",
        [
            (key, status, version, etag, digest, readings is not None)
            for key, status, version, etag, digest, readings, _ in rows
        ],
    )
    db.executemany(
        "INSERT OR REPLACE INTO bodies VALUES (?, ?, ?)",
        [(key, readings, body) for key, _, _, _, _, readings, body in rows],
    )


_INDEX_QUERY = "SELECT key, status, version, etag, digest, has_readings FROM answers"


class _File:
    """The cache file as it was opened: bodies and readings read from it on demand."""

    def __init__(self, path: Path) -> None:
        self._db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)

    def body(self, key: str) -> bytes:
        row = self._db.execute("SELECT body FROM bodies WHERE key = ?", (key,)).fetchone()
        if row is None:
            raise CacheMiss(f"the crawl cache lost the answer for {key} while it was read")
        return bytes(row[0])

    def readings(self, key: str) -> bytes | None:
        row = self._db.execute("SELECT readings FROM bodies WHERE key = ?", (key,)).fetchone()
        return None if row is None or row[0] is None else bytes(row[0])

    def readings_of(self, keys: Sequence[str]) -> dict[str, bytes]:
        """The readings of each of ``keys`` that has some."""
        found: dict[str, bytes] = {}
        for start in range(0, len(keys), _KEYS_PER_QUERY):
            batch = keys[start : start + _KEYS_PER_QUERY]
            rows = self._db.execute(
                "SELECT key, readings FROM bodies WHERE readings IS NOT NULL AND key IN "
                f"({', '.join('?' * len(batch))})",
                batch,
            )
            found.update((key, bytes(blob)) for key, blob in rows)
        return found

    def code(self) -> str | None:
        """The code that wrote the readings; None when the file has another layout."""
        (schema,) = self._db.execute("SELECT schema FROM meta").fetchone()
        if schema != SCHEMA_VERSION:
            return None
        (code,) = self._db.execute("SELECT code FROM meta").fetchone()
        return str(code)

    def rows(self) -> list[IndexRow]:
        """Every answer without its body."""
        return self._db.execute(_INDEX_QUERY).fetchall()

    def row(self, key: str) -> IndexRow | None:
        """One answer without its body."""
        found: IndexRow | None = self._db.execute(
            f"{_INDEX_QUERY} WHERE key = ?", (key,)
        ).fetchone()
        return found

    def close(self) -> None:
        self._db.close()


class _Spill:
    """The new cache file of a cache written whole, filled while the crawl runs: each fresh
    answer's row goes to the file as it arrives and its body is read back from there when asked
    for, so a first crawl holds no bodies in memory. One connection writes and reads (it sees
    its own rows before they are committed); ``finish`` commits and closes."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        _remove_database(path)
        self.path = path
        try:
            self._db = self._created(path)
        except sqlite3.Error as exc:
            raise CacheUnwritable(exc) from None

    @staticmethod
    def _created(path: Path) -> sqlite3.Connection:
        db = sqlite3.connect(path, check_same_thread=False)
        # Each answer committed as it comes, so that a crawl stopped in any way (even killed)
        # leaves all it fetched to the next build (``recover_partial``); no fsync: a crash of
        # the process loses nothing the system has, and a crash of the system only costs
        # requests. Without the fsync a commit costs about 20 microseconds.
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=OFF")
        db.execute("CREATE TABLE meta (schema INTEGER, code TEXT)")
        db.execute("INSERT INTO meta VALUES (?, ?)", (SCHEMA_VERSION, READING_CODE))
        for statement in _TABLES:
            db.execute(statement)
        db.commit()
        return db

    def put(self, row: Row) -> None:
        try:
            _put(self._db, [row])
            self._db.commit()
        except sqlite3.Error as exc:
            raise CacheUnwritable(exc) from None

    def keep(self) -> int:
        """Commit and close, leaving the file for the next build to continue from; how many
        answers it holds."""
        try:
            self._db.commit()
            (count,) = self._db.execute("SELECT count(*) FROM answers").fetchone()
            self._db.close()
        except sqlite3.Error:
            return 0
        return int(count)

    def restamp(self, key: str, answer: CachedAnswer) -> None:
        self._db.execute(
            "UPDATE answers SET status = ?, version = ?, etag = ? WHERE key = ?",
            (answer.status, answer.version, answer.etag, key),
        )

    def set_readings(self, key: str, blob: bytes) -> None:
        self._db.execute("UPDATE answers SET has_readings = 1 WHERE key = ?", (key,))
        self._db.execute("UPDATE bodies SET readings = ? WHERE key = ?", (blob, key))

    def body(self, key: str) -> bytes:
        row = self._db.execute("SELECT body FROM bodies WHERE key = ?", (key,)).fetchone()
        if row is None:
            raise CacheMiss(f"the new crawl cache lost the answer for {key} while it was read")
        return bytes(row[0])

    def finish(self) -> None:
        self._db.commit()
        # Back to a file that stands alone: it replaces the cache file, whose readers expect
        # no write-ahead log beside it.
        self._db.execute("PRAGMA journal_mode=DELETE")
        self._db.close()

    def discard(self) -> None:
        self._db.close()
        _remove_database(self.path)


class _Index(Mapping[str, CachedAnswer]):
    """The answers of a cache file, each made from its row when first asked for: a large
    store's file lists a hundred thousand, and a rebuild asks for them while its requests are
    in flight rather than all before its first.

    The rows may be read in a thread of their own (``in_background``), while the build sends
    its first requests: an answer asked for before they are all read is read by itself."""

    def __init__(self, source: _File, path: Path, *, in_background: bool = False) -> None:
        self._made: dict[str, CachedAnswer] = {}
        self._load = source.body
        self._source = source
        self._rows: dict[str, IndexRow] | None = None  # not made yet; None: still being read
        self._with_readings: set[str] = set()  # of the rows read (made or not)
        self._reading: _RowsReader | None = None
        if in_background:
            self._reading = _RowsReader(path)
        else:
            self._take(source.rows())

    def _take(self, rows: list[IndexRow]) -> None:
        made = self._made
        self._rows = {row[0]: row for row in rows if row[0] not in made}
        self._with_readings.update(row[0] for row in rows if row[5])

    def _all_rows(self) -> dict[str, IndexRow]:
        """Every row not made yet (waiting for the thread reading them, if it still does)."""
        if self._rows is None:
            assert self._reading is not None
            self._take(self._reading.result())
            self._reading = None
        assert self._rows is not None
        return self._rows

    def _row(self, key: str) -> IndexRow:
        if self._rows is None and self._reading is not None and not self._reading.done():
            row = self._source.row(key)  # the rows are still being read: this one alone
            if row is None:
                raise KeyError(key)
            if row[5]:
                self._with_readings.add(key)
            return row
        return self._all_rows().pop(key)  # KeyError: not there

    def __getitem__(self, key: str) -> CachedAnswer:
        made = self._made.get(key)
        if made is None:
            _, status, version, etag, digest, _ = self._row(key)
            made = CachedAnswer(status, version, etag, digest=digest, load=self._load, key=key)
            self._made[key] = made
        return made

    def get(self, key: str, default: CachedAnswer | None = None) -> CachedAnswer | None:  # type: ignore[override]
        # Asked for every answer a rebuild replays, often twice: not through ``Mapping.get``.
        made = self._made.get(key)
        if made is not None:
            return made
        try:
            return self[key]
        except KeyError:
            return default

    def made(self, key: str) -> CachedAnswer | None:
        """The answer of ``key`` if it was made already (None: not asked for, or not there)."""
        return self._made.get(key)

    def has_readings(self, key: str) -> bool:
        """Whether the file keeps readings with the answer of ``key`` (asked for already)."""
        return key in self._with_readings

    def __iter__(self) -> Iterator[str]:
        rows = self._all_rows()
        yield from list(self._made)
        yield from list(rows)

    def __len__(self) -> int:
        return len(self._made) + len(self._all_rows())

    def close(self) -> None:
        """Done with: a thread still reading the rows is waited for (it closes its own
        connection)."""
        if self._reading is not None:
            self._reading.result()
            self._reading = None


class _RowsReader:
    """The rows of a cache file's index, read in a thread on a connection of its own."""

    def __init__(self, path: Path) -> None:
        self._rows: list[IndexRow] = []
        self._failed: BaseException | None = None
        self._thread = threading.Thread(
            target=self._run, args=(path,), name="crawl-cache-index", daemon=True
        )
        self._thread.start()

    def _run(self, path: Path) -> None:
        try:
            reader = _File(path)
            try:
                self._rows = reader.rows()
            finally:
                reader.close()
        except BaseException as exc:  # handed to the thread that asks for the rows
            self._failed = exc

    def done(self) -> bool:
        return not self._thread.is_alive()

    def result(self) -> list[IndexRow]:
        self._thread.join()
        if self._failed is not None:
            raise CacheUnreadable(
                f"the crawl cache's index could not be read ({self._failed}); "
                "build once with --full to write it anew"
            )
        return self._rows


class CrawlCache:
    def __init__(
        self,
        path: Path,
        answers: Mapping[str, CachedAnswer],
        *,
        source: _File | None = None,
        same_code: bool = False,
        resumed: bool = False,
    ) -> None:
        """``answers``: those of the file at ``path`` (read through ``source``); ``same_code``:
        this code wrote the file, so its readings can be used and ``save`` may write only the
        difference; ``resumed``: the file holds a crawl that did not finish."""
        self.path = path
        self.resumed = resumed
        self._previous = answers
        self._source = source
        self._same_code = same_code
        self._loaded: dict[str, dict[str, object]] = {}
        self._prefetched: dict[str, bytes] = {}  # readings read ahead, not decoded yet
        #: The product cards of the readings decoded so far: a later reading listing the same
        #: cards takes these objects instead of decoding its own (``cache_values``).
        self._cards: CardTable = {}
        #: This crawl's readings by key, with the digest of the body they were read from.
        self._fresh: dict[str, tuple[str, dict[str, object]]] = {}
        #: Saved as the difference to the file read (this code wrote it), else written whole.
        self._writes_difference = same_code and path.is_file()
        self._current: dict[str, CachedAnswer] = {}
        self._stored: set[str] = set()  # keys given an answer by ``store`` (maybe changed)
        self._spill: _Spill | None = None  # written whole: the new file, filled as it goes
        self._save_plan: _Changes | None = None
        #: Answers of the last crawl used again as they are (no request, or no body sent).
        self.reused = 0

    @classmethod
    def open(cls, cache_dir: Path, *, in_background: bool = False) -> CrawlCache:
        """The cache of ``cache_dir``; empty when there is none yet or it is unreadable.
        ``in_background``: its index is read in a thread while the first answers are asked
        for one by one (a rebuild's first requests need only a few)."""
        path = cache_dir / CACHE_FILE
        recover_partial(path)
        found = cls._read(path, path, in_background=in_background)
        return found if found is not None else cls(path, {})  # not ``or``: that asks its len

    @property
    def written_whole(self) -> bool:
        """Whether, prepared, it has written every answer to a new file (a crawl that started
        with nothing to differ from), rather than the difference to the file it read."""
        return self._save_plan is not None and self._save_plan.whole

    @classmethod
    def _read(cls, path: Path, file: Path, *, in_background: bool = False) -> CrawlCache | None:
        """The cache of ``path`` as ``file`` holds it; None when ``file`` is missing or
        unreadable."""
        found = _read_index(file, in_background=in_background)
        if found is None:
            return None
        source, answers, code = found
        return cls(
            path,
            answers,
            source=source,
            same_code=code == READING_CODE,
            resumed=code == RESUMED_CODE,
        )

    @classmethod
    def empty(cls, cache_dir: Path) -> CrawlCache:
        """A cache that remembers nothing from before (``--full``) but saves this crawl."""
        return cls(cache_dir / CACHE_FILE, {})

    def __len__(self) -> int:
        return len(self._previous)

    @property
    def blank(self) -> bool:
        """Whether it starts with no answer of an earlier crawl (``--full``, a first build);
        known without waiting for an index still being read."""
        return isinstance(self._previous, dict) and not self._previous

    def lookup(self, key: str) -> CachedAnswer | None:
        return self._current.get(key) or self._previous.get(key)

    def store(self, key: str, answer: CachedAnswer) -> None:
        """Remember ``answer`` for the next build (in a cache written whole, its row is written
        to the new file now and the body read back from there when asked for)."""
        if not self._writes_difference:
            answer = self._spilled(key, answer)
        self._current[key] = answer
        self._stored.add(key)

    def _spill_file(self) -> _Spill:
        if self._spill is None:
            self._spill = _Spill(self._new_file())
        return self._spill

    def _spilled(self, key: str, answer: CachedAnswer) -> CachedAnswer:
        spill = self._spill_file()
        if answer.read_from(spill.body) == key:  # its row is there: only the stamp moved
            spill.restamp(key, answer)
            return answer
        if not answer.in_memory:
            return answer  # read from the old file: written when the save is prepared
        a = answer
        spill.put((key, a.status, a.version, a.etag, a.digest, None, a.body))
        return CachedAnswer(a.status, a.version, a.etag, digest=a.digest, load=spill.body, key=key)

    def carry_over(self, key: str, answer: CachedAnswer | None = None) -> CachedAnswer | None:
        """The previous answer of ``key`` (``answer``, when the caller has looked it up
        already), kept for the next build as it is."""
        if answer is None:
            answer = self.lookup(key)
        if answer is not None:
            # Counted once: not again when a continued crawl's second pass meets it, nor when
            # this build asked for it itself.
            if key not in self._current:
                self.reused += 1
            self._current[key] = answer
        return answer

    def reading(self, key: str, answer: CachedAnswer, name: str) -> object:
        """What the last build read from ``answer`` as ``name``, when it read that very body;
        else ``NO_READING``."""
        previous = self._previous.get(key)
        if previous is None or not self._has_readings(key) or not previous.same_body(answer):
            return NO_READING
        loaded = self._loaded.get(key)
        if loaded is None:
            blob = self._prefetched.pop(key, None)
            if blob is None and self._source is not None:
                blob = self._source.readings(key)
            loaded = self._loaded[key] = (
                load_readings(blob, self._cards) if blob is not None else {}
            )
        return loaded.get(name, NO_READING)

    def prefetch_readings(self, keys: Iterable[str]) -> None:
        """Read the last build's readings of ``keys`` in one query, ahead of ``reading``
        asking for them one by one (a rebuild replays a list page's products together)."""
        wanted = [
            key
            for key in keys
            if self._has_readings(key) and key not in self._loaded and key not in self._prefetched
        ]
        if wanted and self._source is not None:
            self._prefetched.update(self._source.readings_of(wanted))

    def add_reading(self, key: str, answer: CachedAnswer, name: str, value: object) -> None:
        """What this build read from ``answer`` as ``name``, kept with the answer of ``key``
        when that still has the same body at the end."""
        found = self._fresh.get(key)
        if found is None or found[0] != answer.digest:
            found = self._fresh[key] = (answer.digest, {})
        found[1][name] = value

    def _blob(self, key: str, answer: CachedAnswer) -> bytes | None:
        """The readings to store with ``answer``: this build's, else the last build's when the
        body is the same."""
        fresh = self._fresh.get(key)
        if fresh is not None and fresh[0] == answer.digest:
            return dump_readings(fresh[1])
        previous = self._previous.get(key)
        if previous is not None and self._has_readings(key) and previous.same_body(answer):
            return self._source.readings(key) if self._source is not None else None
        return None

    def keep_partial(self) -> int:
        """After a crawl that did not finish: leave what it fetched for the next build (which
        continues from it, see ``recover_partial``); how many answers that is. Only a cache
        written whole keeps its answers in a file as they come; one writing its difference
        (a rebuild) keeps none, and the next rebuild asks again what this one asked."""
        spill, self._spill = self._spill, None
        return spill.keep() if spill is not None else 0

    def prepare_save(self) -> None:
        """Work out now what ``save`` will write, and let go of the rest.

        Once the crawl is done the answers it reused as they were are needed by nothing but
        ``save``, which writes only what changed; a cache that is written whole is written to
        its new file now (it takes the old one's place at ``save``), so that its answers need
        not stay in memory either. A build prepares its cache before planning and rendering,
        so that memory serves them instead. Afterwards the cache answers no lookups: a further
        crawl opens the file again."""
        if self._writes_difference and self.path.is_file():  # still there to differ from
            self._save_plan = self._difference()
        else:
            self._write_whole()
            self._save_plan = _Changes(True, [], [])
        self._let_go()

    def save(self) -> None:
        """Replace the stored answers by those of this crawl, in one transaction."""
        changes = self._save_plan
        if changes is None:
            self.prepare_save()
            changes = self._save_plan
        assert changes is not None
        if changes.whole:
            self._new_file().replace(self.path)  # atomic: a reader sees the old or the new
        else:
            self._write_changes(changes)
        self._save_plan = None

    def _has_readings(self, key: str) -> bool:
        """Whether the file read keeps readings this code can use with the answer of ``key``
        (one the crawl has asked for)."""
        previous = self._previous
        return self._same_code and isinstance(previous, _Index) and previous.has_readings(key)

    def _let_go(self) -> None:
        if isinstance(self._previous, _Index):
            self._previous.close()
        if self._source is not None:
            self._source.close()
        self._source = None
        self._previous = {}
        self._same_code = False
        self._loaded = {}
        self._prefetched = {}
        self._cards = {}
        self._fresh = {}
        self._current = {}
        self._stored = set()

    def _difference(self) -> _Changes:
        """What ``save`` writes: the difference to the file this cache was read from."""
        previous, current = self._previous, self._current
        # Every answer this crawl has is one of the file's, or one ``store`` gave it: when as
        # many of the file's are here as the file holds, none went away.
        stored_new = sum(1 for key in self._stored if key in current and previous.get(key) is None)
        if len(current) - stored_new == len(previous):
            gone: list[tuple[str]] = []
        else:
            gone = [(key,) for key in previous if key not in current]
        # Only an answer ``store`` gave or with readings of this crawl can differ from the
        # file's; one kept as it was read is the very object the index made for it.
        made = previous.made if isinstance(previous, _Index) else previous.get
        changed = [
            key
            for key in self._stored | self._fresh.keys()
            if (answer := current.get(key)) is not None
            and (key in self._fresh or (made(key) is not answer and previous.get(key) != answer))
        ]
        return _Changes(False, [self._row(key) for key in sorted(changed)], gone)

    def _write_changes(self, changes: _Changes) -> None:
        db = sqlite3.connect(self.path)
        try:
            with db:  # one transaction: committed whole, or rolled back
                db.execute("UPDATE meta SET code = ?", (READING_CODE,))
                db.executemany("DELETE FROM answers WHERE key = ?", changes.gone)
                db.executemany("DELETE FROM bodies WHERE key = ?", changes.gone)
                _put(db, changes.rows)
        finally:
            db.close()

    def _new_file(self) -> Path:
        return self.path.with_name(self.path.name + ".tmp")

    def _write_whole(self) -> None:
        """Finish the new file (a cache that started empty, or one written by other code):
        the answers spilled as they came get their readings; answers kept from the old file
        are written now, one after another."""
        spill, self._spill = self._spill_file(), None
        try:
            for key, answer in self._current.items():
                if answer.read_from(spill.body) == key:
                    blob = self._blob(key, answer)
                    if blob is not None:
                        spill.set_readings(key, blob)
                else:
                    spill.put(self._row(key))
        except BaseException:
            spill.discard()
            raise
        spill.finish()

    def _row(self, key: str) -> Row:
        a = self._current[key]
        return (key, a.status, a.version, a.etag, a.digest, self._blob(key, a), a.body)


def recover_partial(path: Path) -> int:
    """Fold the answers a crawl that did not finish left beside the cache file at ``path`` into
    it (they are newer), or make them the cache file when there is none; how many. A file that
    cannot be read is removed: the crawl then asks again."""
    partial = path.with_name(path.name + ".tmp")
    if not partial.is_file():
        return 0
    try:
        db = sqlite3.connect(partial)  # opening it replays its write-ahead log
        try:
            (schema,) = db.execute("SELECT schema FROM meta").fetchone()
            (count,) = db.execute("SELECT count(*) FROM answers").fetchone()
            db.execute("PRAGMA journal_mode=DELETE")
        finally:
            db.close()
        if schema != SCHEMA_VERSION or not count:
            _remove_database(partial)
            return 0
        if not path.is_file():
            os.replace(partial, path)
            partial = path  # its rows are the cache's now; marked resumed below
        db = sqlite3.connect(path)
        try:
            if partial != path:
                db.execute("ATTACH DATABASE ? AS partial", (str(partial),))
                db.execute("INSERT OR REPLACE INTO answers SELECT * FROM partial.answers")
                db.execute("INSERT OR REPLACE INTO bodies SELECT * FROM partial.bodies")
            # Read as a file another code wrote: the crawl continuing from it writes its new
            # file whole, answers spilled as they come, so that a stop again keeps them too.
            db.execute("UPDATE meta SET code = ?", (RESUMED_CODE,))
            db.commit()
        finally:
            db.close()
        if partial == path:
            return int(count)
    except (sqlite3.Error, TypeError, ValueError, OSError):
        count = 0
    _remove_database(partial)
    return int(count)


def _remove_database(path: Path) -> None:
    """A SQLite file and what its write-ahead log leaves beside it."""
    for name in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        name.unlink(missing_ok=True)


def _read_index(path: Path, *, in_background: bool = False) -> tuple[_File, _Index, str] | None:
    """The file of ``path`` opened, its answers without their bodies and the code that wrote
    their readings; None when there is no usable file."""
    if not path.is_file():
        return None
    source: _File | None = None
    try:
        source = _File(path)
        code = source.code()
        index = None if code is None else _Index(source, path, in_background=in_background)
    except (sqlite3.Error, TypeError, ValueError):
        code = index = None  # a damaged or foreign file: start over rather than fail the build
    if code is None or index is None or source is None:
        if source is not None:
            source.close()
        return None
    return source, index, code
