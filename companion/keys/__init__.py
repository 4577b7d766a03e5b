"""Publishable API keys: their material (stored as a digest), their lifecycle (create, list,
revoke), the per-worker cache of their stores and the `keys` commands."""
