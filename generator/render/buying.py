"""What a product page shows a buyer: its options as radio groups, a stock state, a saving.

The product island (``islands/add-to-cart.js``) applies the same rules to the variants the
page carries (``variants_data``), so the static page and the island say the same thing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from generator.crawl.normalize import format_vnd
from generator.model import LOW_STOCK, Variant


@dataclass(frozen=True, slots=True)
class OptionValue:
    value: str
    available: bool  # some variant in stock has it
    checked: bool  # the first variant in stock has it


@dataclass(frozen=True, slots=True)
class OptionGroup:
    name: str
    values: tuple[OptionValue, ...]


def first_choice(variants: Sequence[Variant]) -> Variant | None:
    """The variant a page starts with: the first in stock, else the first."""
    return next((v for v in variants if v.in_stock), variants[0] if variants else None)


def option_groups(variants: Sequence[Variant]) -> tuple[OptionGroup, ...]:
    """One radio group per option name, its values in the order variants first use them.
    Nothing when there is nothing to choose (one variant: the button adds it), or when some
    variants have no options (the page then lists the variants themselves)."""
    if len(variants) < 2 or any(not v.options for v in variants):
        return ()
    chosen = first_choice(variants)
    picked = dict(chosen.options) if chosen is not None else {}
    values: dict[str, dict[str, bool]] = {}
    for variant in variants:
        for name, value in variant.options:
            seen = values.setdefault(name, {})
            seen[value] = seen.get(value, False) or variant.in_stock
    return tuple(
        OptionGroup(
            name,
            tuple(OptionValue(v, ok, picked.get(name) == v) for v, ok in found.items()),
        )
        for name, found in values.items()
    )


def stock_state(in_stock: bool, stock: int | None = None) -> str:
    """The stock state, its key in the theme's words.toml [stock] (and ``stock-<state>``, its
    CSS class): out, low (a known stock at or under LOW_STOCK), in."""
    if not in_stock:
        return "out"
    if stock is not None and stock <= LOW_STOCK:
        return "low"
    return "in"


def saving(now: int, was: int) -> str:
    """'20%'; the amount when the percentage would round to under 1% (the theme's price
    partial says what it is)."""
    percent = round((was - now) * 100 / was)
    if percent >= 1:
        return f"{percent}%"
    return format_vnd(was - now)


def variants_data(variants: Sequence[Variant]) -> list[dict[str, object]]:
    """The variants as the product island reads them from the page (no request to show it):
    its stock number only where the page would say it is low ("Sắp hết"), so a rebuild is not
    owed for every sale of an item with plenty left. A field without a value is left out (the island
    reads it as none): every product page carries these bytes."""
    return [
        _present(
            id=v.id,
            name=v.name,
            options=dict(v.options),
            price=v.price,
            compare_at_price=v.compare_at_price,
            effective_price=v.effective_price,
            in_stock=v.in_stock,
            stock=v.stock if stock_state(v.in_stock, v.stock) == "low" else None,
        )
        for v in variants
    ]


def _present(**fields: object) -> dict[str, object]:
    return {name: value for name, value in fields.items() if value is not None}
