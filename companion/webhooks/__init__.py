"""Content-change webhooks: catalogue writes queue signed events; a worker delivers them.

    catalog_admin (a write) -> queue.emit -> webhook_deliveries -> worker.deliver_due -> HTTP

The payload and the signature are documented in docs/webhooks.md.
"""
