"""Errors of seeding: one class, whose message is one line naming what to do."""

from __future__ import annotations


class SeedError(Exception):
    """The seed cannot be written (bad size, or the database holds a conflicting store)."""
