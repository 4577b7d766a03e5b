"""HTTP routes of the companion: `read` (catalogue, /public/v1) and `commerce` (both prefixes)."""
