"""The merchant's side of the store: the services behind the admin API (and the back office).

Each module is one area (orders, catalogue, customers, inbox, webhooks, the store); each takes a
connection and plain values and raises the plain errors of ``companion.admin.errors``: no HTTP
here, the routes (``companion.routes.admin``) translate.
"""
