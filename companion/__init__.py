"""The companion: a lightweight, complete implementation of the storefront public API."""
