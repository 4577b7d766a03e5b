"""What the demo store schedules: banners and flash sales, placed around "now".

Unlike the catalogue (fixed to ``BASE``), these rows are anchored on the instant of seeding so
that whenever the demo is served something is running, something has ended and something is
still to come. Two seeds with the same ``now`` give the same rows.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from companion.commerce.discounts import format_vnd
from companion.seed.commerce import FREE_SHIPPING_OVER
from companion.seed.paths import SUMMER_SALE_PATH, category_url
from companion.seed.pictures import banner_picture
from companion.seed.product_rows import ProductFacts

DAY = timedelta(days=1)
FLASH_SALE_SIZE = 12


def banner_rows(
    store_id: int, now: datetime, *, late_collection_path: str, summer_saving: int
) -> list[dict[str, Any]]:
    """home_hero: two running, one expired; home_middle: one running, one not started yet.

    A title promises only what the store keeps: the summer sale's "up to" is ``summer_saving``
    (the largest saving its products show without a flash sale; 0 says none), free shipping
    names the order it starts from."""
    summer = "Khuyến mãi hè" + (f" – giảm đến {summer_saving}%" if summer_saving else "")
    banners: list[tuple[str, str, str | None, str, int, datetime, datetime | None]] = [
        (
            "Bộ sưu tập Thu Đông",
            "hero-1",
            category_url("thoi-trang-nu"),
            "home_hero",
            0,
            now - 10 * DAY,
            now + 20 * DAY,
        ),
        (
            summer,
            "hero-2",
            SUMMER_SALE_PATH,
            "home_hero",
            1,
            now - 3 * DAY,
            None,
        ),
        (
            "Sale giữa mùa (đã kết thúc)",
            "hero-3",
            category_url("thoi-trang-nam"),
            "home_hero",
            2,
            now - 40 * DAY,
            now - DAY,
        ),
        (
            f"Miễn phí vận chuyển toàn quốc cho đơn từ {format_vnd(FREE_SHIPPING_OVER)}",
            "middle-1",
            None,
            "home_middle",
            0,
            now - 5 * DAY,
            now + 60 * DAY,
        ),
        (
            "Sắp ra mắt: bộ sưu tập Tết",
            "middle-2",
            late_collection_path,
            "home_middle",
            1,
            now + 7 * DAY,
            now + 37 * DAY,
        ),
    ]
    return [
        {
            "store_id": store_id,
            "title": title,
            "image_url": banner_picture(image),
            "link_url": link_url,
            "location_code": location,
            "position": position,
            "starts_at": starts_at,
            "ends_at": ends_at,
            "updated_at": min(now, starts_at),
        }
        for title, image, link_url, location, position, starts_at, ends_at in banners
    ]


@dataclass(frozen=True, slots=True)
class FlashSaleDraft:
    row: dict[str, Any]
    size: int


def draft_flash_sales(store_id: int, now: datetime) -> list[FlashSaleDraft]:
    """One running (now-1 day to now+30 days), one ended, one scheduled."""
    sales = [
        ("Giờ vàng giá sốc", now - DAY, now + 30 * DAY, 30, FLASH_SALE_SIZE),
        ("Xả hàng cuối mùa", now - 45 * DAY, now - 38 * DAY, 40, 8),
        ("Ngày hội thành viên", now + 5 * DAY, now + 8 * DAY, 50, 8),
    ]
    return [
        FlashSaleDraft(
            {
                "store_id": store_id,
                "name": name,
                "starts_at": starts_at,
                "ends_at": ends_at,
                "discount_percent": percent,
                "updated_at": min(now, starts_at),
            },
            size,
        )
        for name, starts_at, ends_at, percent, size in sales
    ]


def flash_sale_product_rows(
    rng: random.Random,
    *,
    store_id: int,
    sales: Sequence[FlashSaleDraft],
    sale_ids: Sequence[int],
    products: Sequence[ProductFacts],
) -> list[dict[str, Any]]:
    """Each sale's products: published, priced, linked and in stock (a sale worth showing)."""
    pool = [p.id for p in products if p.published and p.priced and p.linked and p.in_stock]
    rows = []
    for sale, sale_id in zip(sales, sale_ids, strict=True):
        members = rng.sample(pool, min(sale.size, len(pool)))
        rows += [
            {
                "store_id": store_id,
                "flash_sale_id": sale_id,
                "product_id": product_id,
                "position": position,
            }
            for position, product_id in enumerate(members)
        ]
    return rows
