"""The progress display counts every item, though it redraws only now and then."""

from __future__ import annotations

import io

from rich.console import Console

from generator.progress import BuildProgress


def test_bars_show_every_item_and_request_at_the_end() -> None:
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=120, color_system=None)
    with BuildProgress(console) as progress:
        for _ in range(5):
            progress.request_done("GET /products", 200, 0.01)
        progress.request_done("GET /store", 500, 0.01)
        progress.phase_started("products", 1234)
        for _ in range(1234):
            progress.item_done("products")
        progress.rendering(3)
        for _ in range(3):
            progress.rendered()
    text = out.getvalue()
    assert "1234/1234" in text
    assert "3/3" in text
    assert "1 failed" in text


def test_without_a_terminal_it_prints_phases_and_draws_no_bars() -> None:
    out = io.StringIO()
    console = Console(file=out, force_terminal=False, width=120)
    with BuildProgress(console) as progress:
        progress.phase_started("products", 2)
        progress.item_done("products")
        progress.item_done("products")
    assert out.getvalue() == "products (2)…\n"
