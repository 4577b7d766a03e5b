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
