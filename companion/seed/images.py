"""Image urls of the demo store: small SVG placeholders shipped with the default theme.

They live under /_assets/demo/ of the built site, so the demo looks complete offline and a
browser never reaches for a host that does not exist. A real store's images are its own urls.
"""

from __future__ import annotations

import zlib

DEMO_IMAGES = "/_assets/demo"
#: Pictures of products and banners are drawn for what they show (``pictures``).
_VARIANTS = {"article": 4, "category": 4}


def demo_image(kind: str, key: str) -> str:
    """A stable placeholder of ``kind`` chosen by ``key`` (same key, same picture)."""
    count = _VARIANTS[kind]
    return f"{DEMO_IMAGES}/{kind}-{zlib.crc32(key.encode()) % count + 1}.svg"


LOGO_URL = f"{DEMO_IMAGES}/logo.svg"
