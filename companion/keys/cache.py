"""The tenants of recently used publishable keys, kept in one worker.

A hot key then costs no database round trip. A kept key is used only while the worker learns of
every revocation before its next request (``trusted``): on SQLite through the database file's
change counter, read before each request (``companion.answer_cache.feeds``); on PostgreSQL
through its listener (``keys.listener``), which the revoking command waits for. Either moves a
process-wide generation (``lifecycle.revocations``), as a revocation in this process does, and a
cache that sees it move forgets every key; a lookup that started before the move is not kept.
While nothing is trusted (the listener's connection is down) every request looks its key up.
Unknown and revoked keys are never kept: a new key works at once, and each use of a bad key is
looked up again.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from companion.keys.lifecycle import Generation, revocations
from companion.tenant import Tenant

#: Seconds a key's tenant is reused before the key is looked up again: a guard only, against a
#: change nobody was told of (a key's row edited by hand on PostgreSQL).
KEY_TTL_SECONDS = 300.0
#: Keys kept per worker; past this, the oldest entries make room.
MAX_KEYS = 10_000


class KeyCache:
    def __init__(
        self,
        *,
        trusted: Callable[[], bool] = lambda: False,
        ttl: float = KEY_TTL_SECONDS,
        max_keys: int = MAX_KEYS,
        monotonic: Callable[[], float] = time.monotonic,
        generation: Generation = revocations,
    ) -> None:
        self.trusted = trusted
        self.ttl = ttl
        self.max_keys = max_keys
        self._monotonic = monotonic
        self._revocations = generation
        self._tenants: dict[str, tuple[Tenant, float]] = {}  # key digest -> (tenant, expiry)
        self._generation = generation.value

    def generation(self) -> int:
        """Pass to ``put``: taken before a lookup, it keeps a revocation during the lookup out."""
        return self._revocations.value

    def get(self, digest: str) -> Tenant | None:
        if self._revocations.value != self._generation:
            self._tenants.clear()
            self._generation = self._revocations.value
        entry = self._tenants.get(digest)
        if entry is None:
            return None
        tenant, expiry = entry
        if self._monotonic() >= expiry or not self.trusted():
            del self._tenants[digest]
            return None
        return tenant

    def put(self, digest: str, tenant: Tenant, generation: int) -> None:
        if generation != self._revocations.value or not self.trusted():
            return  # a key was revoked while this one was looked up: it may have been this one
        if len(self._tenants) >= self.max_keys:
            for oldest in list(self._tenants)[: max(1, self.max_keys // 10)]:
                del self._tenants[oldest]
        self._tenants[digest] = (tenant, self._monotonic() + self.ttl)
