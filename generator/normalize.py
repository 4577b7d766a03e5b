"""Wire values to model values: pure functions, no I/O.

Extended by the crawl work; ``format_vnd`` is shared with the renderer.
"""

from __future__ import annotations


def format_vnd(amount: int) -> str:
    """Vietnamese price format: 120000 -> '120.000 ₫' (dot thousands, non-breaking space)."""
    sign = "-" if amount < 0 else ""
    return f"{sign}{abs(amount):,}".replace(",", ".") + "\u00a0₫"
