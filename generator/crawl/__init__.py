"""The crawl: what to ask the API, and the ``Catalog`` its answers make (``catalog.gather``).

catalog.py        the whole crawl, in its phases: context, lists, routes, details (``gather``)
context.py        store, menus, category tree, banners and the other site-wide blocks
sitemap.py        the sitemap's paths, for paths no list explains; its counts bound
                  the list walks
routes.py         /routes/resolve for those paths; custom and dead paths
products.py       product details and variants (replayed from the cache during the walk)
categories.py     category pages; collections.py, collection pages; content.py, articles,
                  CMS pages and flash sales
filters.py        each category's /filters configuration (display only)
related.py        related products and articles, chosen locally
versions.py       what each derived answer depends on, digested (its version)
ask.py            the one interface the phases ask through (``generator.replay`` implements
                  it, keeping and replaying answers; the phases never import it)
pickled.py        records pickled as calls of their classes; a card's digest
normalize.py      wire values into the model, once (wire_values.py: money, time, urls)
pack.py           products packed between the crawl and their page's render
observer.py, settings.py   progress hooks and the crawl's settings
"""
