"""The load test's baseline: a bare ASGI endpoint served the way the companion is served.

Same uvicorn settings (``companion.server.uvicorn_options``: uvloop, httptools, keep-alive),
same number of worker processes, one fixed JSON answer, no middleware and no database. Driven
at the shoppers' pace, it gives what this machine costs per request at that moment before any
companion code runs, so the companion's figures can be read against it in a fast hour and a
slow one.

    python -m benchmarks.loadtest_bare PORT WORKERS    (serves until SIGTERM)
"""

from __future__ import annotations

import json
import sys
from typing import Any

# About the size of a product page's answer, built once.
BODY = json.dumps(
    {"id": 1, "name": "Áo thun cổ tròn", "price": 199000, "tags": ["bare"] * 50},
    ensure_ascii=False,
).encode()
HEADERS = [
    (b"content-type", b"application/json"),
    (b"content-length", str(len(BODY)).encode()),
]


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    await send({"type": "http.response.start", "status": 200, "headers": HEADERS})
    await send({"type": "http.response.body", "body": BODY})


def main() -> None:
    import uvicorn

    from companion.server import uvicorn_options

    port, workers = int(sys.argv[1]), int(sys.argv[2])
    uvicorn.run(
        "benchmarks.loadtest_bare:app", workers=workers, **uvicorn_options("127.0.0.1", port)
    )


if __name__ == "__main__":
    main()
