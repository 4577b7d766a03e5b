"""The companion on a fresh demo store, as a build starts it in-process.

Seeded at ``DEMO_NOW`` and answering on a clock stopped there: the schedules placed around the
seed instant (banners, flash sales, coupons) and everything the API computes from "now" (which
sale is running, sale prices, which articles are published) are the same on every build, so
two builds of the demo give the same pages. ``storefront api`` keeps the wall clock.
"""

from __future__ import annotations

from fastapi import FastAPI

from companion.app import create_app
from companion.clock import ManualClock
from companion.seed.demo import seed_demo
from companion.seed.timeline import DEMO_NOW
from companion.settings import CompanionSettings

__all__ = ["DEMO_NOW", "demo_companion"]


def demo_companion(settings: CompanionSettings, *, products: int) -> FastAPI:
    """The companion on ``settings``' database, seeded with the demo store of ``products``
    products; the caller disposes of ``app.state.services.engine``."""
    app = create_app(settings, clock=ManualClock(DEMO_NOW))
    engine = app.state.services.engine
    try:
        seed_demo(engine, products=products, now=DEMO_NOW)
    except BaseException:
        engine.dispose()
        raise
    return app
