"""--from-cache keeps the catalog it replayed, and loads it while the crawl it came from holds."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from companion.webhooks.events import Entity
from generator.replay.snapshot import SNAPSHOT_FILE
from tests.support.incremental_store import CrawledStores, build, config_for, folder_bytes

#: A line the replay prints as it walks the crawl cache's products; a kept catalog prints none.
REPLAYED = "products ("


def test_a_second_from_cache_build_loads_the_kept_catalog(
    tmp_path: Path, crawled_stores: CrawledStores
) -> None:
    crawled_stores.copy(tmp_path, products=4).close()
    snapshot = tmp_path / "cache" / SNAPSHOT_FILE
    assert not snapshot.exists()  # a crawl keeps none: only --from-cache replays
    first, printed_first = build(None, config_for(tmp_path, out="a", full=True, from_cache=True))
    assert REPLAYED in printed_first
    assert snapshot.is_file()
    second, printed_second = build(None, config_for(tmp_path, out="b", full=True, from_cache=True))
    assert REPLAYED not in printed_second
    assert folder_bytes(tmp_path / "b") == folder_bytes(tmp_path / "a")
    assert second.requests == 0
    assert _reused(printed_second) == _reused(printed_first)


def test_a_from_cache_build_of_a_kept_catalog_renders_only_what_moved(
    tmp_path: Path, crawled_stores: CrawledStores
) -> None:
    # Re-theming in CI: the second build from the same crawl loads the kept catalog, and the
    # last build's page records as well; with nothing changed, it renders nothing.
    crawled_stores.copy(tmp_path, products=4).close()
    build(None, config_for(tmp_path, out="site", from_cache=True))
    _, printed = build(None, config_for(tmp_path, out="site", from_cache=True))
    assert REPLAYED not in printed  # the kept catalog
    assert "rendered 0 pages" in printed


def test_a_crawl_drops_the_kept_catalog_and_the_next_replay_shows_it(
    tmp_path: Path, crawled_stores: CrawledStores
) -> None:
    store = crawled_stores.copy(tmp_path, products=4)
    try:
        build(None, config_for(tmp_path, out="kept", full=True, from_cache=True))
        assert (tmp_path / "cache" / SNAPSHOT_FILE).is_file()
        store.set_price(store.ids(Entity.PRODUCT)[0], 123_000)
        build(store, config_for(tmp_path))
    finally:
        store.close()
    assert not (tmp_path / "cache" / SNAPSHOT_FILE).exists()
    _, printed = build(None, config_for(tmp_path, out="again", full=True, from_cache=True))
    assert REPLAYED in printed
    assert folder_bytes(tmp_path / "again") == folder_bytes(tmp_path / "out")
    assert folder_bytes(tmp_path / "again") != folder_bytes(tmp_path / "kept")


def test_a_damaged_snapshot_means_a_replay_and_the_same_site(
    tmp_path: Path, crawled_stores: CrawledStores
) -> None:
    crawled_stores.copy(tmp_path, products=4).close()
    build(None, config_for(tmp_path, out="a", full=True, from_cache=True))
    snapshot = tmp_path / "cache" / SNAPSHOT_FILE
    whole = snapshot.read_bytes()
    snapshot.write_bytes(whole[: len(whole) // 2])  # its key intact, its catalog cut short
    _, printed = build(None, config_for(tmp_path, out="b", full=True, from_cache=True))
    assert REPLAYED in printed
    assert folder_bytes(tmp_path / "b") == folder_bytes(tmp_path / "a")
    assert snapshot.read_bytes() == whole  # kept again, whole


def test_a_cache_folder_that_cannot_take_it_keeps_none_and_the_build_goes_on(
    tmp_path: Path, crawled_stores: CrawledStores
) -> None:
    crawled_stores.copy(tmp_path, products=4).close()
    # Where this process writes the file before moving it in: a folder, so it cannot.
    (tmp_path / "cache" / f"{SNAPSHOT_FILE}.{os.getpid()}.tmp").mkdir()
    build(None, config_for(tmp_path, out="a", full=True, from_cache=True))
    assert not (tmp_path / "cache" / SNAPSHOT_FILE).exists()
    _, printed = build(None, config_for(tmp_path, out="b", full=True, from_cache=True))
    assert REPLAYED in printed
    assert folder_bytes(tmp_path / "b") == folder_bytes(tmp_path / "a")


def test_other_crawl_settings_replay_the_crawl(
    tmp_path: Path, crawled_stores: CrawledStores
) -> None:
    crawled_stores.copy(tmp_path, products=6).close()
    build(None, config_for(tmp_path, out="a", full=True, from_cache=True))
    related = replace(config_for(tmp_path, out="b", full=True, from_cache=True), related_products=2)
    _, printed = build(None, related)
    assert REPLAYED in printed  # related products are chosen as the catalog is made


def test_the_key_is_the_same_in_every_process(tmp_path: Path) -> None:
    """Settings hold sets, whose ``repr`` follows the process's string hashing: the key must
    not, or no later build would ever find the snapshot."""
    (tmp_path / "crawl.sqlite3").write_bytes(b"")
    code = (
        "import sys; from pathlib import Path; from generator.crawl.settings import "
        "CrawlSettings; from generator.replay.snapshot import snapshot_key; "
        "print(snapshot_key(Path(sys.argv[1]), CrawlSettings()))"
    )
    keys = {
        subprocess.run(
            [sys.executable, "-c", code, str(tmp_path)],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        for seed in ("1", "2", "3")
    }
    assert len(keys) == 1 and "None" not in keys


def _reused(printed: str) -> str:
    """What the build's line says it took from the crawl cache."""
    return printed.split(" from the crawl cache")[0].rsplit(" ", 1)[-1]
