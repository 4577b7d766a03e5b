"""Commerce side of the demo store: coupons, promotions, gateways, shipping, warehouses,
pickup locations and loyalty rules.

The coupons cover every verdict a quote can give: a valid one (GIAM10), one with a minimum
order (GIAM50K), an expired one (HETHAN), one not started yet (SAPTOI) and an exhausted one
(HETLUOT). The sandbox gateway's merchant code and hash secret are the fixed values the source
publishes (``companion.demo_published``): the demo store's alone, the companion refuses to start
when another store holds them.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import Connection, insert, select

from companion.db import commerce_schema as c
from companion.db.schema import categories
from companion.demo_published import DEMO_HASH_SECRET as DEMO_HASH_SECRET
from companion.demo_published import DEMO_MERCHANT_CODE as DEMO_MERCHANT_CODE
from companion.payments.gateways import COD, COD_NAME

DAY = timedelta(days=1)
#: Standard delivery is free from this subtotal: the rule, and the promise the home page shows
#: (``store_rows.promotion_rows`` writes its text from this number).
FREE_SHIPPING_OVER = 500_000
#: "Buy 2, 15% off" the tops and trousers: the order promotion, and the words of the text
#: promotion the home page shows (``store_rows.promotion_rows``). The categories are the leaves
#: whose name starts with one of ``BUNDLE_WORDS``.
BUNDLE_WORDS = ("Áo", "Quần")
BUNDLE_COUNT = 2
BUNDLE_PERCENT = 15
BUNDLE_LABEL = f"{' & '.join(BUNDLE_WORDS).capitalize()}: mua {BUNDLE_COUNT} giảm {BUNDLE_PERCENT}%"


def seed_commerce(
    conn: Connection,
    *,
    store_id: int,
    now: datetime,
    merchant_code: str = DEMO_MERCHANT_CODE,
    hash_secret: str = DEMO_HASH_SECRET,
) -> None:
    """Add the demo store's commerce data. Called by the demo seeder after the catalogue; a
    store that is not the demo gives its gateway its own ``merchant_code`` and ``hash_secret``
    (the companion refuses to start with the demo's on another store)."""
    conn.execute(
        insert(c.commerce_settings).values(
            store_id=store_id,
            vat_percent=10,
            prices_include_tax=True,
            points_earn_per_vnd=10_000,
            point_value_vnd=100,
        )
    )
    conn.execute(insert(c.payment_gateways), gateway_rows(store_id, merchant_code, hash_secret))
    conn.execute(insert(c.coupons), coupon_rows(store_id, now))
    conn.execute(insert(c.order_promotions), promotion_rows(store_id, now))
    conn.execute(insert(c.shipping_methods), shipping_rows(store_id))
    warehouse_ids: list[int] = []
    for row in warehouse_rows(store_id):
        key = conn.execute(insert(c.warehouses).values(**row)).inserted_primary_key
        assert key is not None
        warehouse_ids.append(int(key[0]))
    conn.execute(insert(c.pickup_locations), pickup_rows(store_id, warehouse_ids))


def seed_bundle_promotion(conn: Connection, *, store_id: int, now: datetime) -> None:
    """The "buy 2, 15% off" promotion on the store's categories it names (after the catalogue)."""
    named = [
        row.id
        for row in conn.execute(
            select(categories.c.id, categories.c.name).where(
                categories.c.store_id == store_id, categories.c.parent_id.is_not(None)
            )
        )
        if row.name.split()[0] in BUNDLE_WORDS
    ]
    key = conn.execute(
        insert(c.order_promotions).values(
            store_id=store_id,
            label=BUNDLE_LABEL,
            kind="percent",
            value=BUNDLE_PERCENT,
            min_order=0,
            max_discount=None,
            starts_at=now - 30 * DAY,
            ends_at=now + 365 * DAY,
            active=True,
            min_quantity=BUNDLE_COUNT,
        )
    ).inserted_primary_key
    assert key is not None
    conn.execute(
        insert(c.order_promotion_categories),
        [
            {"store_id": store_id, "promotion_id": int(key[0]), "category_id": category_id}
            for category_id in named
        ],
    )


def gateway_rows(store_id: int, merchant_code: str, hash_secret: str) -> list[dict[str, object]]:
    return [
        {
            "store_id": store_id,
            "code": COD,
            "name": COD_NAME,
            "enabled": True,
            "position": 0,
            "merchant_code": None,
            "hash_secret": None,
        },
        {
            "store_id": store_id,
            "code": "vnpay",
            "name": "VNPay (sandbox)",
            "enabled": True,
            "position": 1,
            "merchant_code": merchant_code,
            "hash_secret": hash_secret,
        },
    ]


def coupon_rows(store_id: int, now: datetime) -> list[dict[str, object]]:
    def coupon(code: str, kind: str, value: int, **extra: object) -> dict[str, object]:
        row: dict[str, object] = {
            "store_id": store_id,
            "code": code,
            "kind": kind,
            "value": value,
            "min_order": 0,
            "max_discount": None,
            "starts_at": now - 30 * DAY,
            "ends_at": now + 365 * DAY,
            "usage_limit": None,
            "used_count": 0,
            "active": True,
        }
        row.update(extra)
        return row

    return [
        coupon("GIAM10", "percent", 10, max_discount=100_000),
        coupon("GIAM50K", "fixed", 50_000, min_order=500_000),
        coupon("HETHAN", "percent", 20, starts_at=now - 60 * DAY, ends_at=now - DAY),
        coupon("SAPTOI", "fixed", 30_000, starts_at=now + 7 * DAY),
        coupon("HETLUOT", "fixed", 20_000, usage_limit=100, used_count=100),
    ]


def promotion_rows(store_id: int, now: datetime) -> list[dict[str, object]]:
    return [
        {
            "store_id": store_id,
            "label": "Giảm 5% cho đơn từ 2.000.000 ₫",
            "kind": "percent",
            "value": 5,
            "min_order": 2_000_000,
            "max_discount": 200_000,
            "starts_at": now - 30 * DAY,
            "ends_at": now + 365 * DAY,
            "active": True,
        }
    ]


def shipping_rows(store_id: int) -> list[dict[str, object]]:
    def method(
        code: str,
        name: str,
        kind: str,
        fee: int,
        free_over: int | None,
        days: str | None,
        position: int,
    ) -> dict[str, object]:
        return {
            "store_id": store_id,
            "code": code,
            "name": name,
            "kind": kind,
            "fee": fee,
            "free_over": free_over,
            "estimated_days": days,
            "enabled": True,
            "position": position,
        }

    return [
        method(
            "standard", "Giao hàng tiêu chuẩn", "delivery", 30_000, FREE_SHIPPING_OVER, "2-4", 0
        ),
        method("express", "Giao hàng nhanh", "delivery", 50_000, None, "1-2", 1),
        method("pickup", "Nhận tại cửa hàng", "pickup", 0, None, None, 2),
    ]


def warehouse_rows(store_id: int) -> list[dict[str, object]]:
    return [
        {
            "store_id": store_id,
            "code": "HCM-01",
            "name": "Kho Thủ Đức",
            "address": "12 Đường Võ Văn Ngân, Phường Thủ Đức",
            "city": "Thành phố Hồ Chí Minh",
            "phone": "028 3896 0000",
            "position": 0,
        },
        {
            "store_id": store_id,
            "code": "HN-01",
            "name": "Kho Long Biên",
            "address": "45 Đường Nguyễn Văn Cừ, Phường Long Biên",
            "city": "Thành phố Hà Nội",
            "phone": "024 3872 0000",
            "position": 1,
        },
    ]


def pickup_rows(store_id: int, warehouse_ids: list[int]) -> list[dict[str, object]]:
    return [
        {
            "store_id": store_id,
            "name": "Cửa hàng Quận 1",
            "address": "88 Đường Lê Lợi, Phường Sài Gòn",
            "city": "Thành phố Hồ Chí Minh",
            "phone": "028 3822 0000",
            "opening_hours": "09:00-21:00",
            "warehouse_id": warehouse_ids[0],
            "position": 0,
        },
        {
            "store_id": store_id,
            "name": "Cửa hàng Hoàn Kiếm",
            "address": "21 Phố Hàng Bài, Phường Hoàn Kiếm",
            "city": "Thành phố Hà Nội",
            "phone": "024 3825 0000",
            "opening_hours": "09:00-21:00",
            "warehouse_id": warehouse_ids[1],
            "position": 1,
        },
    ]
