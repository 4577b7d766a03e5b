"""Seed data: the deterministic demo store."""
