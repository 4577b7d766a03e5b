"""What the source publishes for the demo store, and so what no other store may use.

The seed writes these values (``companion.seed``); the running companion knows the demo store by
its publishable key, and refuses to start when another store holds the gateway credentials.
"""

from __future__ import annotations

#: The demo's publishable key. Public by design (it opens only public data), so it is fixed.
DEMO_KEY = "pk_live_demo"
#: The demo store's sandbox gateway credentials: fixed, so that signed test fixtures are stable;
#: the sandbox moves no money.
DEMO_MERCHANT_CODE = "DEMOSHOP"
DEMO_HASH_SECRET = "sandbox-demo-hash-secret-not-for-production"
#: The demo store's owner account in the back office (/admin), for local use only: the password
#: is in the README, so the companion refuses to start when another store holds it.
DEMO_STAFF_EMAIL = "chu@demo.localhost"
DEMO_STAFF_PASSWORD = "demo-admin-2026"
#: Its argon2id hash, made once (the seed hashes nothing: a hash costs tens of milliseconds).
DEMO_STAFF_PASSWORD_HASH = (
    "$argon2id$v=19$m=65536,t=3,p=4$pyTg4J5PQ67NHRgwTW7llQ"
    "$l6GFL/RRTs1E+o5M6nVhQJ+iHHkpzvy+2XsntSMR4kw"
)
