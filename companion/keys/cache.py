"""The tenants of recently used publishable keys, kept in one worker for a few seconds.

A hot key then costs no database round trip. How fast a revocation takes effect:
- revoked in this process (``lifecycle.revoke_key`` on any engine): at once. Every revocation
  moves a process-wide generation (``lifecycle.revocations``), and a cache that sees it move
  forgets every key; a lookup that started before the revocation is not kept;
- revoked by another process (the ``keys revoke`` command, another worker): on PostgreSQL, as
  soon as the revocation's notification arrives (``companion.answer_cache.feeds``; entries then
  live ``NOTIFIED_TTL_SECONDS``); without notifications (SQLite, or while the feed's connection
  is down), within ``KEY_TTL_SECONDS``, when the cached entry expires and the key is looked up
  again.
Unknown and revoked keys are never cached: a new key works at once, and each use of a bad key is
looked up again.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from companion.keys.lifecycle import revocations
from companion.tenant import Tenant

#: Seconds a key's tenant is reused before the key is looked up again.
KEY_TTL_SECONDS = 5.0
#: Seconds a key's tenant is reused while revocations by other processes are notified: the
#: lookup then only guards against a notification lost in a way nobody noticed.
NOTIFIED_TTL_SECONDS = 300.0
#: Keys kept per worker; past this, the oldest entries make room.
MAX_KEYS = 10_000


class KeyCache:
    def __init__(
        self,
        *,
        ttl: float = KEY_TTL_SECONDS,
        max_keys: int = MAX_KEYS,
        monotonic: Callable[[], float] = time.monotonic,
        notified: Callable[[], bool] = lambda: False,
        notified_ttl: float = NOTIFIED_TTL_SECONDS,
    ) -> None:
        self.ttl = ttl
        self.notified = notified
        self.notified_ttl = notified_ttl
        self.max_keys = max_keys
        self._monotonic = monotonic
        self._tenants: dict[str, tuple[Tenant, float]] = {}  # key digest -> (tenant, expiry)
        self._generation = revocations.value

    def generation(self) -> int:
        """Pass to ``put``: taken before a lookup, it keeps a revocation during the lookup out."""
        return revocations.value

    def get(self, digest: str) -> Tenant | None:
        if revocations.value != self._generation:
            self._tenants.clear()
            self._generation = revocations.value
        entry = self._tenants.get(digest)
        if entry is None:
            return None
        tenant, expiry = entry
        if self._monotonic() >= expiry:
            del self._tenants[digest]
            return None
        return tenant

    def put(self, digest: str, tenant: Tenant, generation: int) -> None:
        if generation != revocations.value:
            return  # a key was revoked while this one was looked up: it may have been this one
        if len(self._tenants) >= self.max_keys:
            for oldest in list(self._tenants)[: max(1, self.max_keys // 10)]:
                del self._tenants[oldest]
        ttl = self.notified_ttl if self.notified() else self.ttl
        self._tenants[digest] = (tenant, self._monotonic() + ttl)
