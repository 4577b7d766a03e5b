"""A full build's crawl: its catalog read once, from the API, and the crawl cache it leaves
whole for the next build."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from generator import pipeline
from tests.support.incremental_store import DemoStore, build_asked, config_for


def test_a_full_build_reads_its_catalog_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = DemoStore(tmp_path, products=4)
    crawls: list[bool] = []  # per crawl: whether it asked the API
    real: Callable[..., Any] = pipeline.crawl

    async def counted(client: object, **options: Any) -> Any:
        crawls.append(client is not None)
        return await real(client, **options)

    monkeypatch.setattr(pipeline, "crawl", counted)
    asked = build_asked(store, config_for(tmp_path, full=True))
    assert any(path.startswith("/products/") for path in asked)
    assert crawls == [True]
    # What it wrote is the whole crawl: a rebuild replays every detail from it.
    again = build_asked(store, config_for(tmp_path))
    assert not [path for path in again if path.startswith("/products/")]
