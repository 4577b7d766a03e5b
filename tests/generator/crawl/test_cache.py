"""The crawl cache: versioned details come from the cache, lists go out with If-None-Match."""

from __future__ import annotations

import multiprocessing
import os
import sqlite3
import threading
from pathlib import Path

import anyio
import httpx
import pytest

from generator.client.api import ApiClient
from generator.crawl import normalize
from generator.crawl.settings import CrawlSettings
from generator.model import Tag
from generator.replay import cache as cache_crawl
from generator.replay.cache import (
    CACHE_FILE,
    CachedAnswer,
    CacheMiss,
    CrawlCache,
)
from generator.replay.fetch import Fetcher

BASE = "http://api.test/public/v1"


def _fetcher(cache: CrawlCache, seen: list[httpx.Request], *, etag: str = '"v1"') -> Fetcher:
    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.headers.get("If-None-Match") == etag:
            return httpx.Response(304, headers={"ETag": etag})
        return httpx.Response(200, json={"name": "Shop"}, headers={"ETag": etag})

    http = httpx.AsyncClient(transport=httpx.MockTransport(handler), base_url=BASE)
    return Fetcher(ApiClient(http, key="pk_live_x"), CrawlSettings(), cache=cache)


def _get(fetcher: Fetcher, path: str, version: str | None = None) -> object:
    async def run() -> object:
        return (await fetcher.response(path, version=version)).data

    return anyio.run(run)


def test_unchanged_version_is_answered_from_the_cache_without_a_request(tmp_path: Path) -> None:
    first: list[httpx.Request] = []
    cache = CrawlCache.open(tmp_path)
    assert _get(_fetcher(cache, first), "/products/1", "card-a") == {"name": "Shop"}
    cache.save()

    again: list[httpx.Request] = []
    cache = CrawlCache.open(tmp_path)
    assert _get(_fetcher(cache, again), "/products/1", "card-a") == {"name": "Shop"}
    assert again == []
    assert cache.reused == 1


def test_moved_version_asks_again(tmp_path: Path) -> None:
    cache = CrawlCache.open(tmp_path)
    _get(_fetcher(cache, []), "/products/1", "card-a")
    cache.save()
    seen: list[httpx.Request] = []
    _get(_fetcher(CrawlCache.open(tmp_path), seen), "/products/1", "card-b")
    assert len(seen) == 1


def test_list_is_asked_with_if_none_match_and_a_304_reuses_the_body(tmp_path: Path) -> None:
    cache = CrawlCache.open(tmp_path)
    _get(_fetcher(cache, []), "/store")
    cache.save()
    seen: list[httpx.Request] = []
    assert _get(_fetcher(CrawlCache.open(tmp_path), seen), "/store") == {"name": "Shop"}
    assert [r.headers.get("If-None-Match") for r in seen] == ['"v1"']


def test_answers_this_crawl_did_not_use_leave_the_cache(tmp_path: Path) -> None:
    cache = CrawlCache.open(tmp_path)
    fetcher = _fetcher(cache, [])
    _get(fetcher, "/products/1", "a")
    _get(fetcher, "/products/2", "a")
    cache.save()
    cache = CrawlCache.open(tmp_path)
    _get(_fetcher(cache, []), "/products/1", "a")
    cache.save()
    assert len(CrawlCache.open(tmp_path)) == 1


def test_offline_miss_is_a_one_line_error(tmp_path: Path) -> None:
    fetcher = Fetcher(None, CrawlSettings(), cache=CrawlCache.open(tmp_path))
    with pytest.raises(CacheMiss, match="GET /store"):
        _get(fetcher, "/store")


def test_damaged_cache_file_means_an_empty_cache(tmp_path: Path) -> None:
    (tmp_path / "crawl.sqlite3").write_bytes(b"not a database")
    assert len(CrawlCache.open(tmp_path)) == 0


def _rows(path: Path) -> dict[str, tuple[int, bytes]]:
    """key -> (SQLite rowid, body) of every stored answer."""
    db = sqlite3.connect(path / CACHE_FILE)
    try:
        rows = db.execute("SELECT key, rowid, body FROM bodies").fetchall()
    finally:
        db.close()
    return {key: (rowid, bytes(body)) for key, rowid, body in rows}


def test_save_writes_only_what_changed_and_drops_what_went_unused(tmp_path: Path) -> None:
    cache = CrawlCache.open(tmp_path)
    for key in ("kept", "changed", "unused"):
        cache.store(key, CachedAnswer(200, "v1", None, f'"{key}"'.encode()))
    cache.save()
    before = _rows(tmp_path)

    cache = CrawlCache.open(tmp_path)
    cache.carry_over("kept")
    cache.store("changed", CachedAnswer(200, "v2", None, b'"new"'))
    cache.store("added", CachedAnswer(200, "v1", None, b'"added"'))
    cache.save()
    after = _rows(tmp_path)

    assert sorted(after) == ["added", "changed", "kept"]
    assert after["kept"] == before["kept"]  # the same row: not written again
    assert after["changed"][1] == b'"new"'
    assert CrawlCache.open(tmp_path).lookup("changed") == CachedAnswer(200, "v2", None, b'"new"')


def test_a_save_that_fails_leaves_the_previous_cache_as_it_was(tmp_path: Path) -> None:
    cache = CrawlCache.open(tmp_path)
    cache.store("a", CachedAnswer(200, "v1", None, b'"a"'))
    cache.store("b", CachedAnswer(200, "v1", None, b'"b"'))
    cache.save()
    before = _rows(tmp_path)

    cache = CrawlCache.open(tmp_path)
    cache.store("a", CachedAnswer(200, "v2", None, b'"a2"'))
    # A body SQLite cannot store: the write fails after the first statements ran.
    cache.store("c", CachedAnswer(200, "v1", None, object(), digest="x"))  # type: ignore[arg-type]
    with pytest.raises(sqlite3.Error):
        cache.save()
    assert _rows(tmp_path) == before


READS: list[object] = []


def counted_tag(data: object) -> Tag:
    """``normalize.tag``, noting each call."""
    READS.append(data)
    return normalize.tag(data)


def _tag_fetcher(cache: CrawlCache, seen: list[httpx.Request]) -> Fetcher:
    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"name": "Áo <b>mới</b>", "slug": "ao-moi"})

    http = httpx.AsyncClient(transport=httpx.MockTransport(handler), base_url=BASE)
    return Fetcher(ApiClient(http, key="pk_live_x"), CrawlSettings(), cache=cache)


def _tag(fetcher: Fetcher, path: str = "/tags/1") -> Tag:
    return anyio.run(lambda: fetcher.one(path, counted_tag, version="v"))


def test_a_replayed_answer_gives_what_the_last_build_read_without_reading_again(
    tmp_path: Path,
) -> None:
    READS.clear()
    cache = CrawlCache.open(tmp_path)
    first = _tag(_tag_fetcher(cache, []))
    cache.save()
    assert len(READS) == 1

    seen: list[httpx.Request] = []
    again = _tag(_tag_fetcher(CrawlCache.open(tmp_path), seen))
    assert seen == []  # replayed from the cache
    assert len(READS) == 1  # and not decoded again
    assert again == first == normalize.tag({"name": "Áo <b>mới</b>", "slug": "ao-moi"})


def test_readings_written_by_other_code_are_read_again(tmp_path: Path) -> None:
    READS.clear()
    cache = CrawlCache.open(tmp_path)
    first = _tag(_tag_fetcher(cache, []))
    cache.save()
    db = sqlite3.connect(tmp_path / CACHE_FILE)
    with db:
        db.execute("UPDATE meta SET code = 'an older generator'")
    db.close()

    cache = CrawlCache.open(tmp_path)
    assert _tag(_tag_fetcher(cache, [])) == first
    assert len(READS) == 2  # the stored reading was ignored
    cache.save()  # written anew, with this code's readings
    assert _tag(_tag_fetcher(CrawlCache.open(tmp_path), [])) == first
    assert len(READS) == 2


def _stored(folder: Path) -> list[tuple[object, ...]]:
    with sqlite3.connect(folder / CACHE_FILE) as db:
        rows = db.execute(
            "SELECT key, status, version, etag, body FROM answers JOIN bodies USING (key) "
            "ORDER BY key"
        )
        return [tuple(row) for row in rows]


@pytest.mark.parametrize("start_empty", [False, True])
def test_a_settled_cache_saves_what_an_unsettled_one_saves(
    tmp_path: Path, start_empty: bool
) -> None:
    """A build settles its cache after the crawl (freeing the reused answers) and saves it at
    the end: the file must be the one saving straight away gives, whether the save writes the
    difference or a whole new file."""
    first = CrawlCache.open(tmp_path / "seed")
    fetcher = _fetcher(first, [])
    for number in (1, 2, 3):
        _get(fetcher, f"/products/{number}", "a")
    first.save()
    results = []
    for settle in (False, True):
        folder = tmp_path / str(settle)
        folder.mkdir()
        (folder / CACHE_FILE).write_bytes((tmp_path / "seed" / CACHE_FILE).read_bytes())
        cache = CrawlCache.empty(folder) if start_empty else CrawlCache.open(folder)
        fetcher = _fetcher(cache, [], etag='"v2"')
        _get(fetcher, "/products/1", "a")  # reused as it was (unless the cache started empty)
        _get(fetcher, "/products/2", "b")  # asked again; /products/3 goes away
        _get(fetcher, "/store")  # new
        if settle:
            cache.prepare_save()
            assert cache.lookup("GET /products/1") is None  # let go of
        cache.save()
        results.append(_stored(folder))
    assert results[0] == results[1]
    assert [row[0] for row in results[1]] == ["GET /products/1", "GET /products/2", "GET /store"]


def test_a_replay_with_a_stored_reading_never_reads_the_body(tmp_path: Path) -> None:
    READS.clear()
    cache = CrawlCache.open(tmp_path)
    first = _tag(_tag_fetcher(cache, []))
    cache.save()
    db = sqlite3.connect(tmp_path / CACHE_FILE)
    with db:  # no JSON any more: reading it would fail
        db.execute("UPDATE bodies SET body = x'00'")
    db.close()
    seen: list[httpx.Request] = []
    cache = CrawlCache.open(tmp_path)
    assert _tag(_tag_fetcher(cache, seen)) == first
    assert seen == [] and len(READS) == 1
    cache.save()  # kept as it was: not even written again
    with sqlite3.connect(tmp_path / CACHE_FILE) as db:
        assert db.execute("SELECT body FROM bodies").fetchall() == [(b"\x00",)]


def test_a_cache_written_whole_is_written_when_it_settles_and_moved_in_at_save(
    tmp_path: Path,
) -> None:
    cache = CrawlCache.open(tmp_path)
    cache.store("a", CachedAnswer(200, "v1", None, b'"a"'))
    cache.save()
    before = _rows(tmp_path)
    cache = CrawlCache.empty(tmp_path)
    cache.store("b", CachedAnswer(200, "v1", None, b'"b"'))
    cache.prepare_save()
    assert _rows(tmp_path) == before  # the old file is as it was until save
    assert (tmp_path / (CACHE_FILE + ".tmp")).is_file()
    cache.save()
    assert sorted(_rows(tmp_path)) == ["b"]
    assert not (tmp_path / (CACHE_FILE + ".tmp")).exists()
    assert CrawlCache.open(tmp_path).lookup("b") == CachedAnswer(200, "v1", None, b'"b"')


def test_a_cache_written_whole_keeps_no_body_in_memory_while_the_crawl_runs(
    tmp_path: Path,
) -> None:
    READS.clear()
    cache = CrawlCache.empty(tmp_path)
    first = _tag(_tag_fetcher(cache, []))
    kept = cache.lookup("GET /tags/1")
    assert kept is not None and not kept.in_memory  # its row is in the new file already
    assert kept.data == {"name": "Áo <b>mới</b>", "slug": "ao-moi"}  # read back from there
    cache.store("GET /tags/1", kept.with_version("v2"))  # a new stamp for the same body
    cache.store("GET /store", CachedAnswer(200, None, '"s"', b'{"name":"Shop"}'))
    cache.prepare_save()
    cache.save()
    assert _stored(tmp_path) == [
        ("GET /store", 200, None, '"s"', b'{"name":"Shop"}'),
        ("GET /tags/1", 200, "v2", None, '{"name":"Áo <b>mới</b>","slug":"ao-moi"}'.encode()),
    ]
    seen: list[httpx.Request] = []
    again = anyio.run(
        lambda: _tag_fetcher(CrawlCache.open(tmp_path), seen).one(
            "/tags/1", counted_tag, version="v2"
        )
    )
    assert again == first and seen == [] and len(READS) == 1  # its reading went with it


def test_a_crawl_that_fails_before_it_settles_leaves_the_previous_cache(tmp_path: Path) -> None:
    cache = CrawlCache.open(tmp_path)
    cache.store("a", CachedAnswer(200, "v1", None, b'"a"'))
    cache.save()
    before = _rows(tmp_path)
    cache = CrawlCache.empty(tmp_path)
    cache.store("b", CachedAnswer(200, "v1", None, b'"b"'))  # spilled to the new file
    del cache  # the build stopped here
    assert _rows(tmp_path) == before
    assert CrawlCache.open(tmp_path).lookup("a") == CachedAnswer(200, "v1", None, b'"a"')


def test_what_a_cache_written_whole_wrote_is_replayed_once_it_is_moved_in(
    tmp_path: Path,
) -> None:
    READS.clear()
    cache = CrawlCache.empty(tmp_path)
    first = _tag(_tag_fetcher(cache, []))
    assert not cache.written_whole  # not settled yet
    cache.prepare_save()
    assert cache.written_whole and not (tmp_path / CACHE_FILE).exists()
    cache.save()
    reopened = CrawlCache.open(tmp_path)
    again = anyio.run(
        lambda: Fetcher(None, CrawlSettings(), cache=reopened).one(
            "/tags/1", counted_tag, version="v"
        )
    )
    assert again == first and len(READS) == 1  # offline, from the reading it wrote
    reopened = CrawlCache.open(tmp_path)
    _tag(_tag_fetcher(reopened, []))
    reopened.prepare_save()
    assert not reopened.written_whole  # it writes only its difference


def test_an_answer_gives_what_the_client_decoded_once_then_decodes_its_body() -> None:
    decoded = {"name": "Shop"}
    answer = CachedAnswer(200, None, None, b'{"name":"Shop"}', decoded=decoded)
    assert answer.data is decoded  # not decoded a second time
    again = answer.data
    assert again == decoded and again is not decoded  # from the body, a reader's own copy


def test_readings_read_ahead_in_batches_are_what_each_would_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cache_crawl, "_KEYS_PER_QUERY", 2)  # five keys: three queries
    paths = [f"/tags/{n}" for n in range(1, 6)]
    READS.clear()
    cache = CrawlCache.open(tmp_path)
    fetcher = _tag_fetcher(cache, [])
    first = [_tag(fetcher, path) for path in paths]
    cache.save()
    assert len(READS) == len(paths)

    cache = CrawlCache.open(tmp_path)
    fetcher = _tag_fetcher(cache, [])
    fetcher.expect([*paths, "/tags/99"])  # one never stored: nothing to read
    with sqlite3.connect(tmp_path / CACHE_FILE) as db:  # asked one by one now, none is there
        db.execute("UPDATE bodies SET readings = NULL")
    assert [_tag(fetcher, path) for path in paths] == first
    assert len(READS) == len(paths)  # each replayed from what was read ahead, none decoded


def _held_index(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """The thread reading a cache's index waits for the event before it reads."""
    release = threading.Event()
    run = cache_crawl._RowsReader._run

    def held(self: cache_crawl._RowsReader, path: Path) -> None:
        release.wait(10)
        run(self, path)

    monkeypatch.setattr(cache_crawl._RowsReader, "_run", held)
    return release


def test_answers_asked_for_while_the_index_is_read_in_the_background_are_read_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    READS.clear()
    cache = CrawlCache.open(tmp_path)
    fetcher = _tag_fetcher(cache, [])
    first = [_tag(fetcher, f"/tags/{n}") for n in (1, 2)]
    cache.store("unused", CachedAnswer(200, "v1", None, b'"unused"'))
    cache.save()
    before = _rows(tmp_path)

    release = _held_index(monkeypatch)
    seen: list[httpx.Request] = []
    cache = CrawlCache.open(tmp_path, in_background=True)
    fetcher = _tag_fetcher(cache, seen)
    # The index is not read yet: the answer and its reading come from the file one by one.
    assert _tag(fetcher, "/tags/1") == first[0]
    assert cache.lookup("missing") is None
    release.set()
    assert _tag(fetcher, "/tags/2") == first[1]
    assert (seen, len(READS)) == ([], 2)  # replayed, neither asked nor decoded again
    assert len(cache) == 3  # each answer of the file once, however it was read
    cache.save()
    after = _rows(tmp_path)
    assert sorted(after) == ["GET /tags/1", "GET /tags/2"]  # the unused one left
    assert all(after[key] == before[key] for key in after)  # the others not written again


def test_an_index_the_background_thread_cannot_read_fails_the_build_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = CrawlCache.open(tmp_path)
    cache.store("a", CachedAnswer(200, "v1", None, b'"a"'))
    cache.save()
    release = _held_index(monkeypatch)
    cache = CrawlCache.open(tmp_path, in_background=True)
    with sqlite3.connect(tmp_path / CACHE_FILE) as db:
        db.execute("DROP TABLE answers")
    release.set()
    with pytest.raises(cache_crawl.CacheUnreadable, match="--full"):
        len(cache)


def _store_and_die(folder: str, answers: int) -> None:
    """A first crawl that stores ``answers`` and is gone before it could save (no handler)."""
    cache = CrawlCache.open(Path(folder))
    for number in range(answers):
        cache.store(f"/products/{number}", CachedAnswer(200, "v1", None, b'"p"'))
    os._exit(0)


def test_a_crawl_that_never_saved_leaves_every_answer_it_stored_to_the_next(
    tmp_path: Path,
) -> None:
    context = multiprocessing.get_context("fork")
    dying = context.Process(target=_store_and_die, args=(str(tmp_path), 520))
    dying.start()
    dying.join()
    cache = CrawlCache.open(tmp_path)
    # Each answer is committed as it is stored: the process ending loses none of them.
    assert len(cache) == 520
    assert cache.lookup("/products/0") == CachedAnswer(200, "v1", None, b'"p"')
    assert cache.lookup("/products/519") == CachedAnswer(200, "v1", None, b'"p"')
    assert not (tmp_path / "crawl.sqlite3.tmp").exists()


def test_a_kept_partial_crawl_is_folded_into_the_previous_cache(tmp_path: Path) -> None:
    cache = CrawlCache.open(tmp_path)
    cache.store("/store", CachedAnswer(200, "v1", None, b'"old"'))
    cache.store("/menus", CachedAnswer(200, "v1", None, b'"menus"'))
    cache.save()
    stopped = CrawlCache.empty(tmp_path)  # a whole crawl (--full) stopped on its way
    stopped.store("/store", CachedAnswer(200, "v2", None, b'"new"'))
    assert stopped.keep_partial() == 1
    resumed = CrawlCache.open(tmp_path)
    assert resumed.lookup("/store") == CachedAnswer(200, "v2", None, b'"new"')  # the newer
    assert resumed.lookup("/menus") == CachedAnswer(200, "v1", None, b'"menus"')  # still there
