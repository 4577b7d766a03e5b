"""A store's tax and loyalty rules (table commerce_settings; defaults when it has no row)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, bindparam, select

from companion.commerce.quote import TaxRule
from companion.db.commerce_schema import commerce_settings


@dataclass(frozen=True, slots=True)
class LoyaltyRule:
    earn_per_vnd: int  # one point per this many VND paid for goods
    point_value_vnd: int  # what one redeemed point takes off

    def points_earned(self, goods_total: int) -> int:
        return goods_total // self.earn_per_vnd if self.earn_per_vnd > 0 else 0


@dataclass(frozen=True, slots=True)
class StoreRules:
    tax: TaxRule
    loyalty: LoyaltyRule


DEFAULT_RULES = StoreRules(TaxRule(10, True), LoyaltyRule(10_000, 100))


# Read by every quote and order: built once, the store bound at each call.
_RULES = select(
    commerce_settings.c.vat_percent,
    commerce_settings.c.prices_include_tax,
    commerce_settings.c.points_earn_per_vnd,
    commerce_settings.c.point_value_vnd,
).where(commerce_settings.c.store_id == bindparam("store_id"))


def store_rules(conn: Connection, *, store_id: int) -> StoreRules:
    row = conn.execute(_RULES, {"store_id": store_id}).first()
    if row is None:
        return DEFAULT_RULES
    return StoreRules(
        TaxRule(row.vat_percent, bool(row.prices_include_tax)),
        LoyaltyRule(row.points_earn_per_vnd, row.point_value_vnd),
    )
