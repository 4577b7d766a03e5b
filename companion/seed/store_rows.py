"""The demo store itself: its row, host names, publishable key, custom variables, promotions."""

from __future__ import annotations

from typing import Any

from companion.commerce.discounts import format_vnd
from companion.demo_published import DEMO_KEY as DEMO_KEY  # seeded with the store
from companion.seed.commerce import BUNDLE_LABEL, FREE_SHIPPING_OVER
from companion.seed.images import LOGO_URL
from companion.seed.paths import SUMMER_SALE_PATH, page_url
from companion.seed.timeline import BASE, HISTORY

STORE_NAME = "Thời Trang Sài Gòn"
#: Host names that select the demo store for requests without a key.
DEMO_HOSTS = ("localhost", "127.0.0.1", "demo.localhost")

OPENED_AT = BASE - HISTORY


def store_row() -> dict[str, Any]:
    return {
        "name": STORE_NAME,
        "logo_url": LOGO_URL,
        "email": "hotro@thoitrangsaigon.vn",
        "phone": "028 3822 6868",
        "address": "135 Nam Kỳ Khởi Nghĩa, Phường Bến Thành, TP. Hồ Chí Minh",
        "social": {
            "facebook": "https://www.facebook.com/thoitrangsaigon",
            "instagram": "https://www.instagram.com/thoitrangsaigon",
            "tiktok": "https://www.tiktok.com/@thoitrangsaigon",
            "youtube": "https://www.youtube.com/@thoitrangsaigon",
            "zalo": "https://zalo.me/thoitrangsaigon",
        },
        "currency_code": "VND",
        "locale": "vi",
        "created_at": OPENED_AT,
    }


def host_rows(store_id: int) -> list[dict[str, Any]]:
    return [{"host": host, "store_id": store_id} for host in DEMO_HOSTS]


def custom_variable_rows(store_id: int) -> list[dict[str, Any]]:
    values = {
        "hotline": "1900 6868",
        "free_shipping_threshold": str(FREE_SHIPPING_OVER),
        "working_hours": "8:00 – 22:00, Thứ Hai – Chủ Nhật",
        "zalo_oa": "https://zalo.me/thoitrangsaigon",
        "return_days": "30",
    }
    return [{"store_id": store_id, "key": key, "value": value} for key, value in values.items()]


def promotion_rows(store_id: int) -> list[dict[str, Any]]:
    """Three visible promotions (one without a link, one with '&' to escape), one hidden."""
    promotions: list[tuple[str, str | None, bool]] = [
        (f"Miễn phí vận chuyển cho đơn từ {format_vnd(FREE_SHIPPING_OVER)}", None, True),
        (f"{BUNDLE_LABEL} – chỉ trong mùa hè", SUMMER_SALE_PATH, True),
        ("Đổi trả miễn phí trong 30 ngày", page_url("chinh-sach-doi-tra"), True),
        ("Lì xì đầu năm: giảm 50.000 ₫ (đã kết thúc)", None, False),
    ]
    return [
        {"store_id": store_id, "text": text, "link_url": link, "visible": visible, "position": i}
        for i, (text, link, visible) in enumerate(promotions)
    ]
