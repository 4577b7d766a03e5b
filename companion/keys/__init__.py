"""Publishable API keys: their material (stored as a digest), their lifecycle (create, list,
revoke) and the per-worker cache of their stores."""
