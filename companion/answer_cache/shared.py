"""Catalogue answers one worker read, handed to the other workers of the same server.

Each worker keeps the answers it read itself; with several workers, a page one of them read is
a first read for each of the others, about ten times the CPU of a kept answer. So a worker that
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
"""

from __future__ import annotations

import hashlib
import json
import os
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

    def _path(self, key: Key) -> Path:
        store_id, path, query = key
        digest = hashlib.blake2b(f"{store_id} {path}?".encode() + query, digest_size=8)
        return self.directory / f"{int.from_bytes(digest.digest(), 'big') % self.slots:04x}"

    def put(self, key: Key, answer: SharedAnswer) -> None:
        if len(answer.body) > MAX_BODY:
            return
        head = {
            "key": [key[0], key[1], key[2].decode("latin-1")],
            "headers": [[k.decode("latin-1"), v.decode("latin-1")] for k, v in answer.headers],
            "etag": answer.etag,
            "products": None if answer.products is None else sorted(answer.products),
            "counts": answer.counts,
            "since": answer.since.isoformat(),
            "until": None if answer.until is None else answer.until.isoformat(),
            "read_at": answer.read_at,
        }
        target = self._path(key)
        partial = target.with_name(f".{target.name}.{os.getpid()}")
        try:
            partial.write_bytes(json.dumps(head).encode() + b"\n" + answer.body)
            os.replace(partial, target)
        except OSError:
            partial.unlink(missing_ok=True)

    def get(self, key: Key) -> SharedAnswer | None:
        """The answer shared for ``key``, if any (whether it is still good is the taker's to
        check)."""
        try:
            data = self._path(key).read_bytes()
            line, _, body = data.partition(b"\n")
            head = json.loads(line)
            if head["key"] != [key[0], key[1], key[2].decode("latin-1")]:
                return None  # another key's answer in the same slot
            products = head["products"]
            until = head["until"]
            return SharedAnswer(
                tuple((k.encode("latin-1"), v.encode("latin-1")) for k, v in head["headers"]),
                body,
                head["etag"],
                None if products is None else frozenset(products),
                bool(head["counts"]),
                datetime.fromisoformat(head["since"]),
                None if until is None else datetime.fromisoformat(until),
                float(head["read_at"]),
            )
        except (OSError, ValueError, KeyError, TypeError):
            return None
