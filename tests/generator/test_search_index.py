"""The product index the build publishes under /_search/ (generator.search_index): what it
holds, folded for Vietnamese, published products only, and rebuilt file by file."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from companion.db import schema
from companion.webhooks.events import Entity
from generator.errors import WriteError
from generator.plan.paths import output_name
from tests.support.incremental_store import CrawledStores, DemoStore, build, config_for

PRODUCTS = 12


def _index(out: Path) -> tuple[dict[str, Any], dict[int, dict[str, Any]], dict[str, Any]]:
    """The manifest, every record by id, every word's three id lists (absolute ids)."""
    root = out / "_search"
    manifest = json.loads((root / "index.json").read_bytes())
    records = {
        record["id"]: record
        for number in manifest["r"]
        for record in json.loads((root / "r" / f"{number}.json").read_bytes())
    }
    postings: dict[str, Any] = {}
    for key in manifest["t"]:
        postings.update(_postings((root / "t" / f"{key}.json").read_bytes()))
    return manifest, records, postings


def _postings(shard: bytes) -> dict[str, list[list[int]]]:
    """A term shard's words and their id lists (absolute ids), from its file's bytes."""
    out = {}
    for word, lists in json.loads(shard).items():
        decoded = []
        for deltas in lists:
            ids, last = [], 0
            for delta in deltas:
                last += delta
                ids.append(last)
            decoded.append(ids)
        out[word] = decoded
    return out


def _columns(out: Path) -> dict[int, dict[str, Any]]:
    """What the column chunks hold of each product (as the island decodes them), by id."""
    root = out / "_search"
    found: dict[int, dict[str, Any]] = {}
    for number in json.loads((root / "index.json").read_bytes())["f"]:
        chunk = json.loads((root / "f" / f"{number}.json").read_bytes())
        ident = seconds = 0
        for j, delta in enumerate(chunk["i"]):
            ident += delta
            options: dict[str, list[str]] = {}
            for place in chunk["o"][j]:
                name, value = chunk["O"][place]
                options.setdefault(name, []).append(value)
            seconds += chunk["t"][j] or 0
            brand = chunk["b"][j]
            found[ident] = {
                "p": chunk["p"][j],
                "t": None if chunk["t"][j] is None else datetime.fromtimestamp(seconds),
                "b": None if brand is None else chunk["B"][brand],
                "o": options,
                "s": bool(chunk["s"][j]),
            }
    return found


def _find(postings: dict[str, Any], query: str) -> set[int]:
    """The products holding every word of ``query`` (the last one as a prefix), as the
    island's search matches them."""
    from generator.search_index.fold import words

    found: set[int] | None = None
    typed = words(query)
    for position, word in enumerate(typed):
        last = position == len(typed) - 1
        ids = {
            i
            for term, lists in postings.items()
            if term == word or (last and term.startswith(word))
            for ids in lists
            for i in ids
        }
        found = ids if found is None else found & ids
    return found or set()


def test_fold_drops_tones_and_crossed_d() -> None:
    from generator.search_index.fold import fold, words

    assert fold("Áo thun NỮ Đỏ đẹp") == "ao thun nu do dep"
    assert words("Áo-thun (nữ), SKU AT-001") == ["ao", "thun", "nu", "sku", "at", "001"]


def _published(store: DemoStore) -> list[int]:
    with store.engine.connect() as conn:
        return list(
            conn.scalars(
                select(schema.products.c.id)
                .where(schema.products.c.status == "published")
                .order_by(schema.products.c.id)
            )
        )


def _mtimes(root: Path) -> dict[str, tuple[int, int]]:
    return {
        p.relative_to(root).as_posix(): (p.stat().st_ino, p.stat().st_mtime_ns)
        for p in root.rglob("*")
        if p.is_file()
    }


def test_index_holds_published_products_folded_and_rewrites_only_what_a_change_moves(
    tmp_path: Path, crawled_stores: CrawledStores
) -> None:
    from generator.search_index.fold import fold

    store = crawled_stores.copy(tmp_path, products=PRODUCTS)
    try:
        out = tmp_path / "out"
        manifest, records, postings = _index(out)
        ids = _published(store)
        assert set(records) == set(ids)
        for record in records.values():
            typed = fold(record["n"])
            # A shopper typing the name without tones finds it.
            assert record["id"] in _find(postings, typed[: max(len(typed) - 2, 1)])
            # Its page's path, or none (plain text) for a product without a url.
            url = record["u"]
            assert (url is None) == (not store.product_url(record["id"]))
            assert url is None or (out / output_name(url)).is_file()
            assert record["p"] is None or isinstance(record["p"], int)
        # A one-product price change: its chunks and the manifest move, nothing else is written.
        changed = ids[3]
        before = _mtimes(out / "_search")
        store.set_price(changed, 123_000)
        build(store, config_for(tmp_path))
        after = _mtimes(out / "_search")
        moved = {name for name in after if before.get(name) != after[name]}
        chunks = {
            f"r/{changed // manifest['chunk']}.json",
            f"f/{changed // manifest['columns']}.json",
        }
        assert moved == {*chunks, "index.json"}
        assert _index(out)[1][changed]["p"] == 123_000
        # A draft and a deleted product leave the index; a product without a url is in it, as
        # plain text (no url).
        drafted, deleted, unlinked = ids[0], ids[1], ids[2]
        store.update(Entity.PRODUCT, drafted, {"status": "draft"})
        store.delete(Entity.PRODUCT, deleted)
        store.update(Entity.PRODUCT, unlinked, {"url": None})
        build(store, config_for(tmp_path))
        _, records, postings = _index(out)
        assert drafted not in records and deleted not in records
        listed = {i for lists in postings.values() for ids_ in lists for i in ids_}
        assert drafted not in listed and deleted not in listed
        assert records[unlinked]["u"] is None
    finally:
        store.close()


def test_column_chunks_hold_what_a_sort_and_the_filters_read_and_move_with_one_product(
    tmp_path: Path, crawled_stores: CrawledStores
) -> None:
    store = crawled_stores.copy(tmp_path, products=PRODUCTS)
    try:
        out = tmp_path / "out"
        manifest, records, _ = _index(out)
        columns = _columns(out)
        assert set(columns) == set(records)
        for ident, held in columns.items():
            record = records[ident]
            assert {k: held[k] for k in "pbos"} == {k: record[k] for k in "pbos"}
            stamp = record["t"] and datetime.fromisoformat(record["t"])
            assert held["t"] == (stamp and datetime.fromtimestamp(int(stamp.timestamp())))
        # One product's price: its record chunk, its column chunk and the manifest move.
        changed = _published(store)[3]
        before = _mtimes(out / "_search")
        store.set_price(changed, 123_000)
        build(store, config_for(tmp_path))
        after = _mtimes(out / "_search")
        moved = {name for name in after if before.get(name) != after[name]}
        assert moved == {
            f"r/{changed // manifest['chunk']}.json",
            f"f/{changed // manifest['columns']}.json",
            "index.json",
        }
        assert _columns(out)[changed]["p"] == 123_000
    finally:
        store.close()


def test_a_theme_that_turns_the_index_off_publishes_none(tmp_path: Path) -> None:
    theme = tmp_path / "theme"
    theme.mkdir()
    (theme / "theme.toml").write_text("[search]\nindex = false\n", encoding="utf-8")
    build(None, config_for(tmp_path, templates=theme))
    assert (tmp_path / "out" / "index.html").is_file()
    assert not (tmp_path / "out" / "_search").exists()
    # The search page asks the API's /search instead; the header's field suggests nothing.
    search = (tmp_path / "out" / "tim-kiem.html").read_text(encoding="utf-8")
    assert 'data-island="search"' in search or "data-island=search" in search
    assert "suggest" not in (tmp_path / "out" / "index.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("bad", ['synonyms = ["tee"]', 'synonyms = [["tee"]]', "index = 1"])
def test_bad_search_settings_are_refused(bad: str) -> None:
    import tomllib

    from generator.errors import ConfigError
    from generator.render.theme_settings import parse

    with pytest.raises(ConfigError, match="search"):
        parse(tomllib.loads("[search]\n" + bad))


def test_a_shard_of_many_skus_is_split_and_each_word_is_whole_where_the_island_looks() -> None:
    from benchmarks.search import catalogue
    from generator.search_index.layout import SPLIT_WORDS, index_files, shard_key
    from generator.search_index.records import detail_of, other_pages, product_entries

    catalog, plan = catalogue(3000)
    entries = [entry for _key, entry in product_entries(catalog, plan, detail_of, {})]
    whole = index_files(entries, other_pages(plan), (), shard_bytes=2**40)  # none split
    limit = 8 * 1024
    built = index_files(entries, other_pages(plan), (), shard_bytes=limit)
    manifest = json.loads(built.files["index.json"])
    assert json.loads(whole.files["index.json"])["s"] == {}
    split: dict[str, list[str]] = manifest["s"]
    # The SKUs (SP1 to SP3000) share "sp": split, and split again where a part is too large;
    # small parts hold several next letters ("sp10" to "sp14" in t/sp10.json, say).
    assert {"sp", "sp1", "sp2"} <= split.keys()
    assert any(len(starts) < 10 for prefix, starts in split.items() if prefix.startswith("sp"))
    assert {start for starts in split.values() for start in starts} <= manifest["t"].keys()
    everything: dict[str, list[list[int]]] = {}
    for key in json.loads(whole.files["index.json"])["t"]:
        everything.update(_postings(whole.files[f"t/{key}.json"]))
    # Each word with every product of it, in the shard the island fetches for it.
    for word, lists in everything.items():
        key = shard_key(word, split)
        assert _postings(built.files[f"t/{key}.json"])[word] == lists, word
    for key in manifest["t"]:
        shard = _postings(built.files[f"t/{key}.json"])
        size = len(built.files[f"t/{key}.json"])
        # Under the limit (within its estimate's margin), or too few words to be worth it.
        assert size <= limit * 1.25 or len(shard) <= SPLIT_WORDS, (key, size)
        if key in split:
            # A split prefix's shard: its own word, and longer ones for a query ending there,
            # those in the most products first.
            longer = [w for w in shard if len(w) > len(key)]
            assert longer, key
            rest = [w for w in everything if w.startswith(key) and w not in shard]
            most = max((sum(map(len, everything[w])) for w in rest), default=0)
            assert min(sum(map(len, everything[w])) for w in longer) >= most, key


def test_a_build_in_a_new_process_keeps_each_unchanged_products_entry(tmp_path: Path) -> None:
    """The index's state outlives the process: a rebuild (another process, another string
    hash seed) makes no entry of an unchanged product again."""
    import os
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from benchmarks.search import catalogue\n"
        "from generator.search_index.store import write_search_index\n"
        "catalog, plan = catalogue(int(sys.argv[3]))\n"
        "scratch = Path(sys.argv[2]) / 'scratch'\n"
        "scratch.mkdir(parents=True, exist_ok=True)\n"
        "made = write_search_index(catalog, plan, Path(sys.argv[1]), Path(sys.argv[2]),\n"
        "                          scratch=scratch).made\n"
        "print(made)\n"
    )
    root = Path(__file__).resolve().parents[2]

    def made(products: int, seed: str) -> int:
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(root)}
        args = [str(tmp_path / "out"), str(tmp_path / "cache"), str(products)]
        done = subprocess.run(
            [sys.executable, "-c", script, *args],
            env=env,
            capture_output=True,
            text=True,
            check=True,
            cwd=root,
        )
        return int(done.stdout)

    assert made(120, "1") == 120
    assert made(120, "2") == 0
    # One more product: its entry alone is made.
    assert made(121, "3") == 1


def _changed(entries: list[Any], rng: Any, added: int) -> list[Any]:
    """``entries`` after a few products changed: some gone, some renamed, some with new SKUs,
    a new price, and ``added`` new products (SKUs of their own, past every other one); a
    negative ``added``: the last products gone instead (their chunks, words and parts)."""
    out = sorted(entries, key=lambda entry: entry.id)
    if added < 0:
        return out[:added]
    for _ in range(3):
        out.pop(rng.randrange(len(out)))
    for _ in range(4):
        at = rng.randrange(len(out))
        donor = rng.choice(out)
        out[at] = out[at]._replace(name_words=(*donor.name_words[:2], f"moi{rng.randrange(99)}"))
    for _ in range(3):
        at = rng.randrange(len(out))
        out[at] = out[at]._replace(other_words=out[at].other_words | {f"sp{rng.randrange(10**6)}"})
    at = rng.randrange(len(out))
    out[at] = out[at]._replace(record={**out[at].record, "p": rng.randrange(10**6)})
    top = max(entry.id for entry in out)
    for n in range(1, added + 1):
        donor = rng.choice(entries)
        record = {**donor.record, "id": top + n}
        skus = frozenset({f"sp9{top + n}", "sp", f"{top + n}"})
        out.append(donor._replace(id=top + n, record=record, other_words=skus))
    return out


def test_an_index_made_again_from_the_last_one_is_the_one_made_from_nothing() -> None:
    """What a rebuild keeps of the last index and what it makes again add up to the index a
    build from nothing makes, through removals, renames, new SKUs (moving the split parts'
    bounds) and new products (new chunks)."""
    import random

    from benchmarks.search import catalogue
    from generator.search_index.layout import CHUNK, COLUMNS, index_files
    from generator.search_index.records import detail_of, other_pages, product_entries

    catalog, plan = catalogue(1500)
    entries = [entry for _key, entry in product_entries(catalog, plan, detail_of, {})]
    pages = other_pages(plan)
    limit = 4 * 1024  # the SKUs' group split, and split again
    rng = random.Random(7)
    built = index_files(entries, pages, (), shard_bytes=limit)
    assert len(built.split) > 3
    for added in (0, 1, 40, 300, -340, 0):
        entries = _changed(entries, rng, added)
        again = index_files(entries, pages, (), built, shard_bytes=limit)
        fresh = index_files(entries, pages, (), shard_bytes=limit)
        assert again.split == fresh.split
        assert again.files.keys() == fresh.files.keys()
        assert [n for n in fresh.files if again.files[n] != fresh.files[n]] == []
        # Only what the changes move is made again: the chunks of the products changed, the
        # term shards of the words they have or had (by their first two letters).
        before = {entry.id: entry for entry in built.entries.values()}
        after = {entry.id: entry for entry in entries}
        ids = {i for i in before.keys() | after.keys() if before.get(i) != after.get(i)}
        moved = {
            word[:2]
            for i in ids
            for entry in (before.get(i), after.get(i))
            if entry is not None
            for word in (*entry.name_words, *entry.other_words)
        }
        made = {n for n in again.files if again.files[n] is not built.files.get(n)}
        assert {n for n in made if n.startswith("r/")} <= {f"r/{i // CHUNK}.json" for i in ids}
        assert {n for n in made if n.startswith("f/")} <= {f"f/{i // COLUMNS}.json" for i in ids}
        assert {n[2:-5][:2] for n in made if n.startswith("t/")} <= moved
        assert len(made) < len(again.files)
        built = again
    # A price change moves no word's lists: no term shard is made again.
    priced = [entry._replace(record={**entry.record, "p": 1}) for entry in entries[:1]]
    again = index_files([*priced, *entries[1:]], pages, (), built, shard_bytes=limit)
    assert {n for n in again.files if again.files[n] is not built.files.get(n)} == {
        f"r/{entries[0].id // CHUNK}.json",
        f"f/{entries[0].id // COLUMNS}.json",
        "pages.json",
        "index.json",
    }


class _Stopped(BaseException):
    """A build stopped outright (as by SIGKILL: no handler runs) at the point a test picks."""


def test_an_index_write_stopped_halfway_publishes_whole_files_only_and_the_next_one_mends_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Stopped after its first file is in place and its second is staged: the output holds
    only whole files of either index (nothing staged in it), and the next build, back to the
    first catalogue, gives the first index byte for byte (the stopped build's file too)."""
    import os

    from benchmarks.search import catalogue
    from generator.search_index.store import write_search_index

    out, cache = tmp_path / "out", tmp_path / "cache"

    def write(products: int, folder: Path, state: Path) -> None:
        catalog, plan = catalogue(products)
        scratch = tmp_path / "scratch"
        scratch.mkdir(exist_ok=True)
        write_search_index(catalog, plan, folder, state, scratch=scratch, shard_bytes=4096)

    def files(folder: Path) -> dict[str, bytes]:
        return {
            path.relative_to(folder).as_posix(): path.read_bytes()
            for path in folder.rglob("*")
            if path.is_file()
        }

    write(120, tmp_path / "first", tmp_path / "first-cache")
    write(121, tmp_path / "second", tmp_path / "second-cache")
    first, second = files(tmp_path / "first"), files(tmp_path / "second")
    write(120, out, cache)
    replace = os.replace
    moved: list[str] = []

    def stopping(source: Any, target: Any) -> None:
        if "_search" in str(target):
            if moved:
                raise _Stopped
            moved.append(str(target))
        replace(source, target)

    monkeypatch.setattr(os, "replace", stopping)
    with pytest.raises(_Stopped):
        write(121, out, cache)
    monkeypatch.setattr(os, "replace", replace)
    assert moved, "the stopped build changed no file"
    stopped = files(out)
    assert stopped != first
    for name, data in stopped.items():
        assert data in (first.get(name), second.get(name)), name
    write(120, out, cache)
    assert files(out) == first


def test_a_rebuild_that_moves_nothing_in_the_index_keeps_its_state_file(tmp_path: Path) -> None:
    from benchmarks.search import catalogue
    from generator.search_index.store import STATE_FILE, write_search_index

    out, cache = tmp_path / "out", tmp_path / "cache"
    cache.mkdir()

    def write(products: int) -> int:
        catalog, plan = catalogue(products)
        return write_search_index(catalog, plan, out, cache, scratch=cache).written

    def state() -> tuple[int, int]:
        found = (cache / STATE_FILE).stat()
        return found.st_ino, found.st_mtime_ns

    assert write(120) > 0
    first = state()
    assert write(120) == 0
    assert state() == first
    assert write(121) > 0
    assert state() != first
    # The index a build from this state makes is the one made from nothing.
    assert write(120) > 0
    fresh = tmp_path / "fresh"
    catalog, plan = catalogue(120)
    write_search_index(catalog, plan, fresh, tmp_path / "fresh-cache", scratch=cache)
    assert {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()} == {
        p.relative_to(fresh): p.read_bytes() for p in fresh.rglob("*") if p.is_file()
    }


def test_a_state_of_another_output_folder_has_every_file_written(tmp_path: Path) -> None:
    """A cache shared by two outputs: the state describes the last one written, so the other's
    files, whatever they hold, are all written again."""
    import shutil

    from benchmarks.search import catalogue
    from generator.search_index.store import write_search_index

    cache = tmp_path / "cache"
    cache.mkdir()
    catalog, plan = catalogue(60)
    first, second = tmp_path / "first", tmp_path / "second"
    write_search_index(catalog, plan, first, cache, scratch=cache)
    shutil.copytree(first, second)
    (second / "_search" / "index.json").write_bytes(b"{}")  # not what the state says it holds
    written = write_search_index(catalog, plan, second, cache, scratch=cache).written
    assert written == sum(1 for path in (first / "_search").rglob("*") if path.is_file())
    assert (second / "_search" / "index.json").read_bytes() == (
        first / "_search" / "index.json"
    ).read_bytes()
    # Back to the first: it is the other output now, written whole again.
    assert write_search_index(catalog, plan, first, cache, scratch=cache).written == written
    assert write_search_index(catalog, plan, first, cache, scratch=cache).written == 0


def test_the_manifest_is_put_in_place_after_the_files_it_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    from benchmarks.search import catalogue
    from generator.search_index.store import write_search_index

    out, cache = tmp_path / "out", tmp_path / "cache"
    cache.mkdir()
    catalog, plan = catalogue(120)
    write_search_index(catalog, plan, out, cache, scratch=cache, shard_bytes=4096)
    replace = os.replace
    order: list[str] = []

    def recording(source: Any, target: Any) -> None:
        if "_search" in str(target):
            order.append(Path(target).relative_to(out / "_search").as_posix())
        replace(source, target)

    monkeypatch.setattr(os, "replace", recording)
    catalog, plan = catalogue(121)
    write_search_index(catalog, plan, out, cache, scratch=cache, shard_bytes=4096)
    assert len(order) > 2
    assert order[-1] == "index.json"


def test_a_full_build_stopped_before_its_index_is_written_leaves_the_last_index_in_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index is written after the whole new output is swapped in: stopped there, the site
    still has the last build's index (without it, no /_search/ at all)."""
    import os

    build(None, config_for(tmp_path))
    manifest = tmp_path / "out" / "_search" / "index.json"
    last = manifest.read_bytes()
    replace = os.replace

    def stopping(source: Any, target: Any) -> None:
        if "_search" in str(target):
            raise _Stopped
        replace(source, target)

    monkeypatch.setattr(os, "replace", stopping)
    with pytest.raises(_Stopped):
        build(None, config_for(tmp_path, full=True))
    monkeypatch.setattr(os, "replace", replace)
    assert manifest.read_bytes() == last
    build(None, config_for(tmp_path))
    assert manifest.read_bytes() == last


def test_no_other_build_takes_the_output_between_the_pages_and_the_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The output's lock is held from the write stage to the index's end: a second build that
    starts between them is refused, and the first one's index is written."""
    import generator.pipeline as pipeline
    from generator.write.output import staging_folder

    publish = pipeline._publish_search_index
    tried: list[str] = []

    def second_build_first(*args: Any) -> None:
        try:
            with staging_folder(tmp_path / "out"):  # how another build takes the output
                tried.append("taken")
        except WriteError as refused:
            tried.append(str(refused))
        publish(*args)

    monkeypatch.setattr(pipeline, "_publish_search_index", second_build_first)
    build(None, config_for(tmp_path))
    assert len(tried) == 1 and tried[0].startswith("another build"), tried
    assert (tmp_path / "out" / "_search" / "index.json").is_file()


@pytest.mark.parametrize(
    ("raised", "said"),
    [
        (OSError(28, "No space left on device", "/site/_search/a.json"), "/site/_search/a.json"),
        (WriteError("another build (pid 7) is writing /site; run this one when it has finished"),
         "another build (pid 7) is writing /site"),
    ],
)  # fmt: skip
def test_the_index_stage_failing_says_the_pages_are_in_place(raised: Exception, said: str) -> None:
    from generator.pipeline import _index_errors

    with pytest.raises(WriteError) as caught, _index_errors():
        raise raised
    text = str(caught.value)
    assert text.startswith("search index not updated: ") and said in text
    assert text.endswith("the new pages are in place and the next build writes the index again")
    assert "previous output is unchanged" not in text and "\n" not in text
