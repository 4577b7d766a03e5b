"""Catalogue answers one worker read, handed to the other workers of the same server.

Each worker keeps the answers it read itself; with several workers, a page one of them read is
a first read for each of the others, much dearer than a kept answer. So a worker that
reads and keeps an answer also writes it here, in a directory that
``storefront api --workers N`` makes for its workers (one host: they share its disk and its
clock) and removes when it stops; a worker that does not hold an answer looks here before
reading it.

An answer found here carries when its reading began (``read_at``, ``time.monotonic``: one
clock for every process of a host). Whoever takes it checks it against its own marks of what
changed (``changes``): a write that the answer may not show committed after its reading began,
so that worker marked it after that time too. Nothing marked since then, for what the answer
shows, means the answer is as good as one it read itself (``AnswerCache._adopt``).

The directory holds at most ``SLOTS`` answers (a key's slot is a hash of it; a newer answer
replaces whatever was there) of at most ``MAX_BODY`` bytes each. A file is written whole before
it is renamed into place, so a reader sees an old answer or a new one, never half of one. A
directory that cannot be read or written only means answers are not shared.

A worker takes an answer here for each page it had not read, and code run that rarely costs far
more than its size (none of it is in the processor's caches), so a file is one ``marshal``
record read in one call: the same interpreter writes and reads it, in a directory only the
server's user can write (``tempfile.mkdtemp``).
"""

from __future__ import annotations

import contextlib
import marshal
import os
import zlib
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

#: Answers kept in the directory at most, and the largest one shared.
SLOTS = 4096
MAX_BODY = 64 * 1024
#: The environment variable that names the directory to a server's worker processes.
DIRECTORY_VARIABLE = "STOREFRONT_SHARED_ANSWERS"

Key = tuple[int, str, bytes]  # the answer cache's key: store, path, query string
Headers = tuple[tuple[bytes, bytes], ...]


@dataclass(frozen=True, slots=True)
class SharedAnswer:
    headers: Headers
    body: bytes
    etag: str
    products: frozenset[int] | None  # whose stock it shows (None: it may show any product's)
    counts: bool  # it shows their stock counts, not only whether they are in stock
    since: datetime  # when it was read, by the reader's clock
    until: datetime | None  # the next flash-sale start or end then
    read_at: float  # time.monotonic() before its reading began


class SharedAnswers:
    def __init__(self, directory: Path, *, slots: int = SLOTS) -> None:
        self.directory = directory
        self.slots = slots
        self._prefix = os.path.join(directory, "")

    def _path(self, key: Key) -> str:
        store_id, path, query = key
        named = b"%d %s?%s" % (store_id, path.encode("utf-8", "surrogatepass"), query)
        slot = zlib.crc32(named) % self.slots
        return f"{self._prefix}{slot:04x}"

    def put(self, key: Key, answer: SharedAnswer) -> None:
        if len(answer.body) > MAX_BODY:
            return
        until = None if answer.until is None else answer.until.isoformat()
        record = (
            key,
            answer.headers,
            answer.etag,
            answer.products,
            answer.counts,
            answer.since.isoformat(),
            until,
            answer.read_at,
            answer.body,
        )
        target = self._path(key)
        partial = os.path.join(self.directory, f".{os.path.basename(target)}.{os.getpid()}")
        try:
            with open(partial, "wb") as out:
                out.write(marshal.dumps(record))
            os.replace(partial, target)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(partial)

    def get(self, key: Key) -> SharedAnswer | None:
        """The answer shared for ``key``, if any (whether it is still good is the taker's to
        check)."""
        try:
            with open(self._path(key), "rb", buffering=0) as slot:
                record = marshal.loads(slot.readall())
            found, headers, etag, products, counts, since, until, read_at, body = record
            if found != key:
                return None  # another key's answer in the same slot
            return SharedAnswer(
                headers,
                body,
                etag,
                products,
                counts,
                datetime.fromisoformat(since),
                None if until is None else datetime.fromisoformat(until),
                read_at,
            )
        except (OSError, ValueError, EOFError, TypeError):
            return None
