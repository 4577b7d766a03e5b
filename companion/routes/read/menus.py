"""Navigation menus with their items nested (any depth), siblings by position."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from fastapi import APIRouter
from sqlalchemy import select

from companion.db.schema import menu_items, menus
from companion.deps import CurrentTenant, ReadDb
from companion.routes.one_hop import OneHopRoute
from companion.schemas.envelope import Envelope
from companion.schemas.read import Menu, MenuItem
from companion.wire_values import clean_url

router = APIRouter(route_class=OneHopRoute)


def nest(rows: Sequence[Any]) -> list[MenuItem]:
    """Item rows (already in sibling order) as a tree. An item whose parent is missing is a
    root; items caught in a parent cycle are unreachable and left out."""
    ids = {r.id for r in rows}
    children: dict[int | None, list[Any]] = defaultdict(list)
    for r in rows:
        children[r.parent_id if r.parent_id in ids else None].append(r)

    def build(parent: int | None, seen: frozenset[int]) -> list[MenuItem]:
        return [
            MenuItem(label=r.label, url=clean_url(r.url), children=build(r.id, seen | {r.id}))
            for r in children[parent]
            if r.id not in seen
        ]

    return build(None, frozenset())


@router.get("/menus", summary="Navigation menus with nested items")
def list_menus(db: ReadDb, tenant: CurrentTenant) -> Envelope[Menu]:
    menu_rows = db.execute(
        select(menus).where(menus.c.store_id == tenant.store_id).order_by(menus.c.id)
    ).all()
    item_rows = db.execute(
        select(menu_items)
        .where(menu_items.c.store_id == tenant.store_id)
        .order_by(menu_items.c.position, menu_items.c.id)
    ).all()
    by_menu: dict[int, list[Any]] = defaultdict(list)
    for item in item_rows:
        by_menu[item.menu_id].append(item)
    items = [Menu(id=m.id, code=m.code, name=m.name, items=nest(by_menu[m.id])) for m in menu_rows]
    return Envelope[Menu](items=items, next_cursor=None, has_more=False)
