"""Where the demo store's pages live: url prefixes and the merchant-chosen custom paths.

One place, so menus, banners and promotions link to exactly the paths the rows carry.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from companion.seed.timeline import BASE

#: Custom path of the "Giới thiệu" CMS page (its own url is under /trang/).
ABOUT_PATH = "/gioi-thieu-cong-ty"
#: Custom path of the "Khuyến mãi hè" collection (its only path).
SUMMER_SALE_PATH = "/khuyen-mai-he"
#: Custom path of the first product, beside its own /san-pham/ url.
PRODUCT_ALIAS_PATH = "/ao-dai-tet"


def product_url(slug: str) -> str:
    return f"/san-pham/{slug}"


def category_url(slug: str) -> str:
    return f"/danh-muc/{slug}"


def page_url(slug: str) -> str:
    return f"/trang/{slug}"


def collection_path(slug: str) -> str:
    return f"/bo-suu-tap/{slug}"


def custom_path_rows(
    store_id: int, targets: Iterable[tuple[str, str, int]]
) -> list[dict[str, Any]]:
    """custom_paths rows from (path, target_type, target_id) triples."""
    return [
        {
            "store_id": store_id,
            "path": path,
            "target_type": target_type,
            "target_id": target_id,
            "created_at": BASE,
            "updated_at": BASE,
        }
        for path, target_type, target_id in targets
    ]
