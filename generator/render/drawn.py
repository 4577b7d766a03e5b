"""What the islands draw from the API's data, as the theme draws it: a product card and a
price rendered by the theme's own partials (``partials/drawn.html``) from a card whose values
are ``<slot name=...>`` elements. The page carries them in ``<template data-part>``s; the
islands clone one and put the data's text in its slots (``islands/main.js``), so a theme that
overrides ``partials/price.html`` or ``partials/product_card.html`` changes those cards too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from markupsafe import Markup

#: The price states a drawn price has: no price (ask the store), a price, a price below an
#: earlier one.
PRICE_STATES = ("contact", "now", "was")


class Priced(Protocol):
    @property
    def price(self) -> int | None: ...
    @property
    def effective_price(self) -> int | None: ...
    @property
    def compare_at_price(self) -> int | None: ...


def paid_now(item: Priced) -> int | None:
    """What a visitor pays for ``item`` now: its sale price, else its price."""
    return item.effective_price if item.effective_price is not None else item.price


def slot(name: str) -> Markup:
    """The element an island replaces with the value ``name``'s text."""
    return Markup(f"<slot name={name}></slot>")


@dataclass(frozen=True, slots=True)
class SlotPrice:
    """``price_of`` a slot card: the values of its state, as slots."""

    now: Markup | None
    was: Markup | None
    off: Markup | None


@dataclass(frozen=True, slots=True)
class SlotCard:
    """A product card of ``state`` whose text is slots: its link and image are written (an
    island sets their ``href`` and ``src``, or leaves them out), out of stock so that its stock
    mark is there for an island to keep or remove."""

    state: str = "now"
    in_stock: bool = False
    id: int = 0
    name: Markup = slot("name")
    url: str = "/"
    image_url: str = "/"

    @property
    def price_view(self) -> SlotPrice:
        if self.state not in PRICE_STATES:
            raise ValueError(f"a drawn price is one of {PRICE_STATES}, not {self.state!r}")
        if self.state == "contact":
            return SlotPrice(None, None, None)
        if self.state == "now":
            return SlotPrice(slot("now"), None, None)
        return SlotPrice(slot("now"), slot("was"), slot("off"))


def price_states(variants: Sequence[Priced]) -> tuple[str, ...]:
    """The states the product page's prices take (its variants'), as ``partials/drawn.html``
    names them: contact, now, save (a price below an earlier one, with the saving)."""
    states = {_state(v) for v in variants}
    return tuple(s for s in ("contact", "now", "save") if s in states)


def _state(item: Priced) -> str:
    now = paid_now(item)
    if now is None:
        return "contact"
    earlier = (item.compare_at_price, item.price)
    return "save" if any(e is not None and e > now for e in earlier) else "now"


def slot_card(state: str = "now") -> SlotCard:
    """The card ``partials/drawn.html`` renders for the islands (a template global)."""
    return SlotCard(state)
