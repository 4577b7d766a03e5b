"""The replay layer: keeps the API's answers and replays, revalidates or resumes from them.

The crawl's phases ask through ``crawl.ask.Api``; this package implements it for a build
(``fetch.Fetcher``) and never shows through it (an import contract keeps the phases from
importing it).

crawl.py          a build's crawl: the phases through the replay layer, continued after a stop
fetch.py          the ``Api``: asked, or replayed while the declared version holds
cache.py          the crawl cache file; cache_values.py, what is kept with each answer
events.py         a rebuild's content-change events: what they can have moved
resume.py         a crawl continued after a stop
snapshot.py       the last build's catalog, kept for a build that changed nothing
"""
