"""Content-change events (the companion's webhook payloads) and which list pages they can move.

A rebuild handed events needs not walk every list: when each event is a product update that
moves no list's membership or order (a price, a name, a description...), the only list pages
that changed are those holding the named products. ``EventScope.replays`` says which cached
answers such a rebuild replays as they are: the pages of the walked lists (``/products``,
``/articles``, ``/categories?parent=``, ``/sitemap/<section>``) and of the categories' product
listings (``/products?category=``, newest first: an update moves no product within them) that
do not hold a named product. Everything else is asked as without events, and the answers
derived from the lists keep their versions (``versions``), so the named products' details, the
newest products and the collections that held them are asked again. The named products' detail
and variants are asked again in any case (with their ETags): a stock change may leave the card
as it was while a variant ran out or ran low.

Any other event (a product created, deleted, moved to another category, unpublished; any
category, collection, article, page or menu event) cannot say which pages moved: the rebuild
walks every list, as a rebuild without events does. docs/webhooks.md lists what is asked.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

from generator.errors import ConfigError

#: Product columns whose change moves no list's membership or order, nor any path.
UNMOVING_COLUMNS = frozenset(
    {
        "name",
        "search_name",
        "price",
        "compare_at_price",
        "brand_id",
        "image_url",
        "description_html",
        "sku",
        "meta_title",
        "meta_description",
        "updated_at",
        # Stock moves no list (no list of the spec hides or sorts by it). A product whose
        # stock moved is asked again (``EventScope.asks``): its card may say the same while
        # a variant ran out or ran low.
        "stock",
        "in_stock",
    }
)

#: A product's own answers: its detail and its variants' pages.
_PRODUCT_ANSWER = re.compile(r"/products/(\d+)(?:/variants)?")

#: The walked lists an event-driven rebuild replays, by path prefix (a path alone, or with
#: nothing but these query parameters).
_WALKED = ("/products", "/articles", "/categories")
_WALK_PARAMS = frozenset({"limit", "cursor", "parent", "category"})


@dataclass(frozen=True, slots=True)
class EventScope:
    """The products the events name (all of them updates that move no list)."""

    products: frozenset[int]

    def asks(self, key: str) -> bool:
        """True when ``key`` is the detail or a variants page of a named product: asked again
        whatever its version says."""
        found = _PRODUCT_ANSWER.fullmatch(urlsplit(key.removeprefix("GET ")).path)
        return found is not None and int(found.group(1)) in self.products

    def replays(self, key: str, body: Callable[[], object]) -> bool:
        """True when the cached answer of ``key`` (``body()`` decodes it, read only for a
        product page) is a page of a walked list that the events cannot have moved."""
        parts = urlsplit(key.removeprefix("GET "))
        params = {name for name, _ in parse_qsl(parts.query, keep_blank_values=True)}
        walked = parts.path in _WALKED and params <= _WALK_PARAMS
        if parts.path.startswith("/sitemap/"):
            return True  # its entries are paths and dates: a product update moves neither
        if not walked or (parts.path == "/categories" and "parent" not in params):
            return False
        if parts.path != "/products":
            return True
        page = body()
        items = page.get("items") if isinstance(page, dict) else page
        if not isinstance(items, list):
            return False
        return not any(isinstance(item, dict) and item.get("id") in self.products for item in items)


def scope_of(payloads: Iterable[object]) -> EventScope | None:
    """The scope of a rebuild started by these webhook payloads; None when one of them cannot
    say which list pages moved (the rebuild walks every list)."""
    products: set[int] = set()
    for payload in payloads:
        data = payload.get("data") if isinstance(payload, dict) else None
        if not isinstance(data, dict):
            return None
        entity, action, ident = data.get("entity"), data.get("action"), data.get("id")
        changed = data.get("changed", [])
        if (
            entity != "product"
            or action != "updated"
            or not isinstance(ident, int)
            or not isinstance(changed, list)
            or not set(changed) <= UNMOVING_COLUMNS
        ):
            return None
        products.add(ident)
    return EventScope(frozenset(products)) if products else None


def load_payloads(path: Path) -> list[object]:
    """The webhook payloads in a JSON file: one event object, or an array of them."""
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"--event {path}: not a readable JSON event ({exc})") from None
    payloads = found if isinstance(found, list) else [found]
    for payload in payloads:
        if not isinstance(payload, dict) or not isinstance(payload.get("data"), dict):
            raise ConfigError(f"--event {path}: not a content-change event (no data object)")
    return payloads
