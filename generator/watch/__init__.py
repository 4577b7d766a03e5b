"""`storefront watch`: build, serve, and rebuild on every change.

loop.py      the rebuild loop: triggers folded into one build at a time
poll.py      content changes seen by polling the first list pages
webhook.py   content changes from the companion's signed webhook
reload.py    open tabs told to reload (or shown the error), the script added at serve time
"""
