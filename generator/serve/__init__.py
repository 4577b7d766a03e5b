"""`storefront serve`: the output served as nginx serves it, with the API and the session layer.

stack.py     the app serve and watch run: static files, /public/ to the API, /session/
app.py       the static site and the dispatch by path; static.py, files by the output rules
api_proxy.py /public/ to --api-url: plain paths only (api_path.py), the headers the API reads
session.py   the /session/* endpoints the islands call
visitor.py   one visitor: its two cookies, its API client, its write guard
service.py   `storefront session`: the session endpoints alone, with workers and a log
proxies.py   X-Forwarded-* believed from configured proxies only
"""
