"""The storefront generator: crawl -> plan -> render -> write (docs/architecture.md)."""
