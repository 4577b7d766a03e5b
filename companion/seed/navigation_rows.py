"""Menus of the demo store: "main" (two levels) and "footer".

Items link to category urls, to the custom paths (a CMS page, a collection, a product and a
collection beyond the first 200 of the listing), to an external site, and some are headings
with url NULL.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from companion.seed.paths import ABOUT_PATH, PRODUCT_ALIAS_PATH, SUMMER_SALE_PATH, page_url
from companion.seed.timeline import BASE
from companion.seed.vocabulary import DEPARTMENTS

FACEBOOK = "https://www.facebook.com/thoitrangsaigon"


@dataclass(frozen=True, slots=True)
class MenuEntry:
    label: str
    url: str | None  # None: a heading, shown as plain text
    children: tuple[MenuEntry, ...] = ()


@dataclass(frozen=True, slots=True)
class Menu:
    code: str
    name: str
    entries: tuple[MenuEntry, ...]


def demo_menus(
    category_urls: Mapping[str, str | None], collection_paths: Sequence[tuple[str, str]]
) -> tuple[Menu, ...]:
    """The menus, given each category's url by name and (name, path) of pathed collections.

    ``collection_paths`` is in listing order; in a store of 230 collections its last entry lies
    beyond the first 200.
    """

    def department(index: int, label: str) -> MenuEntry:
        dept = DEPARTMENTS[index]
        lines = tuple(MenuEntry(line.name, category_urls[line.name]) for line in dept.lines)
        return MenuEntry(label, category_urls[dept.name], lines)

    def category(name: str) -> MenuEntry:
        return MenuEntry(name, category_urls[name])

    featured = [MenuEntry(name, path) for name, path in collection_paths[1:3]]
    main = (
        department(0, "Nữ"),
        department(1, "Nam"),
        MenuEntry(
            "Giày & Túi",
            None,
            tuple(category(name) for name in ("Giày thể thao", "Sandal", "Túi xách tay", "Balo")),
        ),
        MenuEntry("Áo dài Tết", PRODUCT_ALIAS_PATH),
        MenuEntry("Khuyến mãi hè", SUMMER_SALE_PATH),
        MenuEntry(
            "Bộ sưu tập",
            None,
            (*featured, MenuEntry(*collection_paths[-1])),
        ),
        MenuEntry("Giới thiệu", ABOUT_PATH),
    )
    footer = (
        MenuEntry(
            "Về chúng tôi",
            None,
            (MenuEntry("Giới thiệu", ABOUT_PATH), MenuEntry("Liên hệ", page_url("lien-he"))),
        ),
        MenuEntry(
            "Hỗ trợ khách hàng",
            None,
            (
                MenuEntry("Chính sách đổi trả", page_url("chinh-sach-doi-tra")),
                MenuEntry("Chính sách bảo mật", page_url("chinh-sach-bao-mat")),
                MenuEntry("Điều khoản dịch vụ", page_url("dieu-khoan-dich-vu")),
            ),
        ),
        MenuEntry("Facebook", FACEBOOK),
    )
    return (Menu("main", "Menu chính", main), Menu("footer", "Chân trang", footer))


def menu_row(store_id: int, menu: Menu) -> dict[str, Any]:
    return {"store_id": store_id, "code": menu.code, "name": menu.name, "updated_at": BASE}


def menu_item_rows(
    store_id: int, menu_id: int, entries: Sequence[MenuEntry], parent_id: int | None = None
) -> list[dict[str, Any]]:
    """Rows of one level of a menu (children are inserted after their parents' ids are known)."""
    return [
        {
            "store_id": store_id,
            "menu_id": menu_id,
            "parent_id": parent_id,
            "label": entry.label,
            "url": entry.url,
            "position": position,
        }
        for position, entry in enumerate(entries)
    ]
