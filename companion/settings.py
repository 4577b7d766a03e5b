"""Settings of one companion app, each declared once with its default."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class CompanionSettings:
    #: SQLite file path or database URL (sqlite:///..., postgresql://...).
    database: str = "storefront.db"
    #: Requests allowed per key (or per store, for unkeyed traffic) in a 60-second window.
    rate_per_minute: int = 600
    #: Requests allowed per key (or per store) in a one-hour window.
    rate_per_hour: int = 20_000
    #: Page size of list endpoints when `limit` is not given.
    default_limit: int = 20
    #: Largest page size; larger `limit` values are clamped to it (collections: 200).
    max_limit: int = 100
    #: Largest page of GET /collections (clients scan the first 200 collections in one call).
    collections_max_limit: int = 200
    #: Secret that signs customer JWTs; generated per database when not given.
    jwt_secret: str | None = None
    #: Lifetime of a customer JWT, in seconds (there is no refresh token).
    jwt_lifetime_seconds: int = 7 * 24 * 3600
    #: Absolute origin where this API is reachable (the sandbox gateway's redirect target).
    public_url: str = "http://127.0.0.1:8001"
    #: Run schema migrations when the app is created.
    migrate: bool = True
    #: Worker processes serving this database. Above 1 (or on PostgreSQL), rate-limit counts
    #: are kept in the database so every worker sees them; the pool is sized per worker.
    workers: int = 1
    #: Publishable key the /session/* endpoints send to this API (None: unkeyed, the store
    #: found by host name or as the only one). Give the session its own key: limits count per key.
    session_key: str | None = None
    #: Origins (scheme://host[:port]) whose pages may write through /session/*; empty: the
    #: request's own origin.
    session_origins: tuple[str, ...] = ()
    #: The store's own site origins (scheme://host[:port]), where a payment may send the shopper
    #: back (``return_url``); besides them only ``public_url``'s origin, ``session_origins`` and
    #: https on the store's host names. A store published on several domains lists each.
    site_origins: tuple[str, ...] = ()
    #: The sandbox gateway (its Pay button marks an order paid, no money moves) serves every
    #: store, not only the demo store; for a test or staging store, never a real one.
    sandbox_payments: bool = False
    #: The companion's extension: an order is charged what its quote says, coupon and order
    #: promotions included (declared to clients as ``order_discounts`` in GET /cart/quote).
    #: Off: as the spec says, they are priced in the quote and not written to the order.
    order_discounts: bool = True
    #: Kept catalogue reads answered past the middleware chain (``companion.chain_bypass``);
    #: off only to measure what it saves.
    chain_bypass: bool = True
    #: Requests one worker serves at once (at most the database pool's 10); the others wait,
    #: reads before writes (companion.admission). Few: a worker runs Python one thread at a
    #: time, so more in flight only share the core and lengthen each other's answers.
    admission_limit: int = 4
    #: Requests that may wait for a slot in one worker; one more is answered 503 at once.
    admission_queue: int = 50
    #: Seconds a request may wait for a slot before it is answered 503.
    admission_wait: float = 2.0
    #: Largest request body, in bytes: a larger one is answered 413 while it is read (bodies
    #: are small JSON; the largest, a full batch of storefront errors, stays well below).
    max_body_bytes: int = 1024 * 1024
    #: Seconds a connection may take to send a request's head (line and headers); then it is
    #: closed (slow clients must not hold connections open).
    header_timeout: float = 15.0
    #: Seconds a request body may go without sending anything more; then it is answered 408.
    body_timeout: float = 30.0
    #: Requests that hash a password (register, login, password change) one worker serves at
    #: once, each in an admission slot: fewer than ``admission_limit``, so the other slots stay
    #: for carts and checkouts (companion.hashing_lane).
    hashing_lane: int = 2
    #: Seconds a hashing request may wait for the lane, outside the admission gate; then 503.
    hashing_wait: float = 2.0
    #: Hashing requests one client may have in the lane or waiting for it (per worker); one
    #: more is answered 429 at once.
    hashing_per_client: int = 1
    #: SMTP server of the order e-mails to shoppers; None: no e-mail is sent.
    smtp_host: str | None = None
    #: Its port (587 with STARTTLS, 465 with implicit TLS, 25 for a local relay).
    smtp_port: int = 587
    #: The From address of the order e-mails (needed with smtp_host).
    smtp_from: str | None = None
    #: "starttls" (upgrade the connection), "tls" (TLS from the start) or "none" (a local relay).
    smtp_tls: str = "starttls"
    #: Login at the SMTP server (from the environment: STOREFRONT_SMTP_USER, _PASSWORD).
    smtp_user: str | None = None
    smtp_password: str | None = field(default=None, repr=False)
    #: The merchant's address: an e-mail of each new and each paid order is sent there (through
    #: the SMTP server above); None: none is sent.
    merchant_email: str | None = None
    #: Seconds to wait for the SMTP server before giving the e-mail up (the order stands).
    smtp_timeout: float = 10.0
    #: Login attempts one client may make at one e-mail in a window; more are refused (429)
    #: until a window has passed since the last one let through (companion.customers.throttle).
    login_attempts: int = 5
    #: Login attempts one client may make in a window, whatever the e-mails.
    login_client_attempts: int = 30
    #: Login attempts at one e-mail in a window from every client together: the only count
    #: that also refuses the owner, so far above ``login_attempts``.
    login_account_attempts: int = 100
    #: Seconds of the login throttle's window.
    login_window_seconds: int = 900
    #: Seconds a back-office (/admin) sign-in lasts; then the staff member signs in again.
    staff_session_seconds: int = 8 * 3600
    #: Seconds a back-office password-reset link stays valid (it is used once).
    staff_reset_seconds: int = 3600
    #: Largest product CSV the back office imports, in bytes: a larger one is refused while it
    #: is read (keep it below ``max_body_bytes``, which every request body is held to first).
    admin_csv_max_bytes: int = 768 * 1024
    #: Most lines (after the header) an imported product CSV may have; more are refused.
    admin_csv_max_rows: int = 5000
    #: Seconds `keys revoke` and `keys rotate` wait for every worker (PostgreSQL) to confirm
    #: that it refuses the old key; past them, the command names the workers that did not.
    key_revoke_wait: float = 10.0


def browsable_origin(host: str, port: int) -> str:
    """``http://host:port`` as a browser on this machine opens it: an any-address bind
    (``0.0.0.0``, ``::``) is no address to open, so it is ``127.0.0.1``."""
    shown = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
    return f"http://[{shown}]:{port}" if ":" in shown else f"http://{shown}:{port}"
