"""The sweep of lapsed login counts removes at most its share at once, whatever plan the
database takes for it (PostgreSQL ran its limited select once per row when it was a subquery
of the delete, and removed every lapsed count)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine, func, insert, select, text

from companion.customers.login_attempts import SWEPT_AT_ONCE, sweep_lapsed
from companion.db.commerce_schema import login_attempts
from companion.db.schema import stores
from tests.companion.databases import postgres_engine

NOW = datetime(2026, 11, 20, 3, 0, 0)
WINDOW = timedelta(minutes=15)


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    with postgres_engine(tmp_path, "the planner's choices are PostgreSQL's") as made:
        with made.begin() as conn:
            conn.execute(insert(stores).values(id=1, name="Shop", social={}, created_at=NOW))
            conn.execute(
                insert(login_attempts),
                [
                    {
                        "store_id": 1,
                        "subject": f"client:{n}",
                        "attempts": 1,
                        "window_started_at": NOW - WINDOW - timedelta(seconds=n + 1),
                    }
                    for n in range(3 * SWEPT_AT_ONCE)
                ]
                + [{"store_id": 1, "subject": "live", "attempts": 2, "window_started_at": NOW}],
            )
        yield made


@pytest.mark.parametrize("plan", ["as it chooses", "nested loops only"])
def test_a_sweep_removes_its_share_and_no_live_count(engine: Engine, plan: str) -> None:
    if plan == "nested loops only":  # the plan that ran the subquery once per row
        with engine.begin() as conn:
            for setting in ("enable_hashjoin", "enable_mergejoin", "enable_hashagg"):
                conn.execute(text(f"ALTER DATABASE {engine.url.database} SET {setting} = off"))
        engine.dispose()  # new connections take the settings
    removed = sweep_lapsed(engine, store_id=1, window=WINDOW, now=NOW)
    with engine.connect() as conn:
        left = conn.execute(select(func.count()).select_from(login_attempts)).scalar_one()
        live = conn.execute(
            select(func.count()).where(login_attempts.c.subject == "live")
        ).scalar_one()
    assert removed == SWEPT_AT_ONCE
    assert left == 3 * SWEPT_AT_ONCE + 1 - SWEPT_AT_ONCE
    assert live == 1
