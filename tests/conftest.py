"""Settings for the whole suite."""

from __future__ import annotations

import gc

import pytest

from tests.support.incremental_store import CrawledStores


def pytest_collection_finish(session: pytest.Session) -> None:
    """Leave what collection made (every test module, pytest's own state) out of the cyclic
    garbage collector's passes: a build's ``release_memory`` runs a full collection, which
    would otherwise walk those objects too, a fifth of a second each time."""
    gc.freeze()


@pytest.fixture(scope="session")
def crawled_stores(tmp_path_factory: pytest.TempPathFactory) -> CrawledStores:
    """Demo stores seeded and crawled once a session, copied into the tests that ask."""
    return CrawledStores(tmp_path_factory.mktemp("crawled"))
