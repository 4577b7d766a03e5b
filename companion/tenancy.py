"""Which store a request is for: from its publishable key, else from its Host header.

Rules, in order:
1. ``X-Service-Key: pk_live_...`` present: the key's store. An unknown or revoked key is a 401
   at once (the same answer for both; the request log says which). A worker keeps
   the store of a key it has seen (``companion.keys.cache``, which says how a revocation reaches
   it); unknown keys are looked up every time.
2. No key: the store linked to the Host header in ``store_hosts`` (lower case, port stripped).
3. No key and an unknown host: if the database holds exactly one store, that store (so a local
   companion answers unkeyed calls from any host name); otherwise a 401 asking for a key.

The resolved ``Tenant`` is put on ``request.state.tenant`` (``deps.CurrentTenant`` reads it).
A cached key is resolved on the event loop; database work runs in a worker thread.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

import anyio.to_thread
from sqlalchemy import Engine, select
from starlette.types import ASGIApp, Receive, Scope, Send

from companion.db.schema import api_keys, store_hosts, stores
from companion.errors_http import problem_response
from companion.keys.cache import KeyCache
from companion.keys.material import PUBLISHABLE_PREFIX, SECRET_PREFIX, hash_key
from companion.logging_http import note_refusal
from companion.problems import Problem, unauthorized
from companion.tenant import Tenant

SERVICE_KEY_HEADER = "x-service-key"
MAX_KEY_LENGTH = 200
#: Digests of keys as sent, kept per worker (past this many, forgotten all at once).
MAX_DIGESTS = 10_000


def host_name(host_header: str) -> str:
    """``Shop.Example:8001`` -> ``shop.example``; ``[::1]:8001`` -> ``[::1]``."""
    host = host_header.strip().lower()
    if host.startswith("["):
        end = host.find("]")
        return host[: end + 1] if end != -1 else host
    return host.rsplit(":", 1)[0].rstrip(".") if ":" in host else host.rstrip(".")


#: Why a key was refused, as the request log says it (``logging_http.note_refusal``).
MALFORMED_KEY, UNKNOWN_KEY, REVOKED_KEY = "malformed_key", "unknown_key", "revoked_key"
SECRET_KEY = "secret_key"


class KeyRefused(Exception):
    """A key that opens no store: ``problem`` is the answer, ``reason`` what the log says."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.problem = secret_key_refused() if reason == SECRET_KEY else invalid_key()


def secret_key_refused() -> Problem:
    return unauthorized(
        "secret_key_refused",
        "a secret key (sk_live_...) serves the admin API only; the public API takes a "
        "publishable key (pk_live_...)",
    )


def sends_secret_key(key: str, authorization: str) -> bool:
    """A secret key in X-Service-Key (``key``, stripped) or as a bearer token: never taken by
    the public API (the spec: the kinds are not interchangeable), even where a customer token is
    expected."""
    bearer = authorization.strip()
    return key.startswith(SECRET_PREFIX) or bearer[7:].strip().startswith(SECRET_PREFIX)


_KEY, _HOST, _AUTHORIZATION = SERVICE_KEY_HEADER.encode(), b"host", b"authorization"


def key_headers(scope: Scope) -> tuple[str, str, str]:
    """X-Service-Key (stripped), Host and Authorization as sent ("" when absent; the first of
    each), read in one pass over the raw headers (ASGI names them in lower case)."""
    key = host = authorization = None
    for name, value in scope["headers"]:
        if name == _KEY:
            key = value.decode("latin-1") if key is None else key
        elif name == _HOST:
            host = value.decode("latin-1") if host is None else host
        elif name == _AUTHORIZATION:
            authorization = value.decode("latin-1") if authorization is None else authorization
    return (key or "").strip(), host or "", authorization or ""


def invalid_key() -> Problem:
    return unauthorized(
        "invalid_key",
        "X-Service-Key is not a valid publishable key of this API (unknown or revoked)",
    )


def key_required(host: str) -> Problem:
    shown = host[:100] or "(none)"
    return unauthorized(
        "key_required",
        f"send X-Service-Key with a publishable key (pk_live_...); host {shown} is not a store",
    )


def well_formed(key: str) -> bool:
    return key.startswith(PUBLISHABLE_PREFIX) and len(key) <= MAX_KEY_LENGTH


def tenant_for_digest(engine: Engine, digest: str) -> Tenant:
    """The tenant of the active key with this digest; ``KeyRefused`` if there is none."""
    query = select(api_keys.c.id, api_keys.c.store_id, api_keys.c.revoked_at).where(
        api_keys.c.key_hash == digest, api_keys.c.kind == "publishable"
    )
    with engine.connect() as conn:
        row = conn.execute(query).first()
    if row is None:
        raise KeyRefused(UNKNOWN_KEY)
    if row.revoked_at is not None:
        raise KeyRefused(REVOKED_KEY)
    return Tenant(store_id=row.store_id, key_id=row.id)


def tenant_for_host(engine: Engine, host: str) -> Tenant:
    with engine.connect() as conn:
        store_id = conn.execute(
            select(store_hosts.c.store_id).where(store_hosts.c.host == host[:255])
        ).scalar()
        if store_id is None:
            only = conn.execute(select(stores.c.id).order_by(stores.c.id).limit(2)).scalars().all()
            if len(only) != 1:
                raise key_required(host)
            store_id = only[0]
    return Tenant(store_id=store_id, key_id=None)


class TenancyMiddleware:
    """Resolves the tenant of every request under ``prefixes`` except ``open_paths``."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        engine: Engine,
        prefixes: tuple[str, ...],
        open_paths: Collection[str],
        keys: KeyCache | None = None,
        poll: Callable[[Scope], object] = lambda _scope: None,
    ) -> None:
        self.app = app
        self.engine = engine
        self.prefixes = prefixes
        self.open_paths = frozenset(open_paths)
        self.keys = keys or KeyCache()
        # Takes in revocations by other processes before the cache is read (once a request:
        # ``feeds.poll_once``).
        self.poll = poll
        self._digests: dict[str, str] = {}

    def applies(self, path: str) -> bool:
        return path.startswith(self.prefixes) and path not in self.open_paths

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if not self.applies(path):
            await self.app(scope, receive, send)
            return
        key, host, authorization = key_headers(scope)
        try:
            if sends_secret_key(key, authorization):
                raise KeyRefused(SECRET_KEY)
            tenant = await self.tenant(key, host, scope)
        except KeyRefused as refused:
            note_refusal(scope, refused.reason)
            await problem_response(refused.problem)(scope, receive, send)
            return
        except Problem as problem:
            await problem_response(problem)(scope, receive, send)
            return
        scope.setdefault("state", {})["tenant"] = tenant
        await self.app(scope, receive, send)

    def held_key(self, scope: Scope, key: str, authorization: str) -> Tenant | None:
        """The tenant of a request under this layer's paths whose well-formed publishable key
        this worker holds, found without waiting (``companion.chain_bypass``); None: anything
        else, which ``__call__`` decides. ``key`` (stripped) and ``authorization``: the
        request's first X-Service-Key and Authorization, which the caller read."""
        if not key or not self.applies(scope["path"]) or sends_secret_key(key, authorization):
            return None
        digest = self.digest(key)
        return None if digest is None else self.known(digest, scope)

    async def tenant(self, key: str, host: str, scope: Scope) -> Tenant:
        if not key:
            return await anyio.to_thread.run_sync(tenant_for_host, self.engine, host_name(host))
        digest = self.digest(key)
        if digest is None:
            raise KeyRefused(MALFORMED_KEY)
        tenant = self.known(digest, scope)
        if tenant is None:
            generation = self.keys.generation()
            tenant = await anyio.to_thread.run_sync(tenant_for_digest, self.engine, digest)
            self.keys.put(digest, tenant, generation)
        return tenant

    def digest(self, key: str) -> str | None:
        """The digest of a well-formed key (None: not one), the last ones seen kept: a key is
        sent with every request of a storefront, and publishable keys are public anyway."""
        digest = self._digests.get(key)
        if digest is None:
            if not well_formed(key):
                return None
            if len(self._digests) >= MAX_DIGESTS:
                self._digests.clear()
            digest = self._digests[key] = hash_key(key)
        return digest

    def known(self, digest: str, scope: Scope) -> Tenant | None:
        """The tenant of a key this worker holds (revocations taken in first); None: look the
        key up (``tenant``)."""
        self.poll(scope)
        return self.keys.get(digest)
