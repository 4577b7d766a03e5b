"""The product search index a build publishes under ``/_search/``: the islands search it in the
browser, so a query costs the store no API request.

    report = write_search_index(catalog, plan, out_dir, cache_dir, scratch=..., synonyms=...)

Split so a query fetches only what it needs (``layout``): a small manifest, the term shard of
each word's first two letters, the record chunks of the results shown. Words are folded for
Vietnamese (``fold``). Rebuilt incrementally (``store``): only the files whose bytes moved are
written.
"""

from generator.search_index.store import IndexReport, write_search_index

__all__ = ["IndexReport", "write_search_index"]
