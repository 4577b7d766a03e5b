"""Catalogue answers kept per worker and served again until the data they show changes."""
