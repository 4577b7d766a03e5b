"""Rendering across processes gives exactly the single-process pages, in order."""

from __future__ import annotations

import dataclasses
import os
import signal
from collections import Counter
from collections.abc import Callable, Hashable, Iterator
from pathlib import Path

import pytest

from generator.config import BUNDLED_THEME
from generator.errors import WorkerLost
from generator.model import CategoryPage, CollectionPage
from generator.plan.site_plan import Page, ProductListing, SitePlan
from generator.render.fragments import PageFragments
from generator.render.pages import build_environment
from generator.write import workers as render_parallel
from generator.write.incremental import RenderInputs
from generator.write.workers import PageOutput, write_many
from tests.support.fixture_site import fixture_plan


def test_each_page_records_the_urls_it_linked(tmp_path: Path) -> None:
    plan = fixture_plan()
    home = next(page for page in plan.pages if page.path == "/")
    [output] = write_many(plan, [home], build_environment(BUNDLED_THEME), tmp_path, workers=1)
    urls = output.urls
    assert urls  # the menus alone link somewhere
    assert all(isinstance(url, str) and url for url in urls)


def test_workers_write_the_files_the_single_process_writes(tmp_path: Path) -> None:
    plan = fixture_plan()
    pages = list(plan.pages)
    env = build_environment(BUNDLED_THEME)
    inputs = RenderInputs.of(plan, env, BUNDLED_THEME)
    outputs = {}
    for workers in (1, 2):
        folder = tmp_path / str(workers)
        folder.mkdir()
        done = list(
            write_many(
                plan,
                pages,
                env,
                folder,
                workers=workers,
                fingerprint=inputs.fingerprint,
                min_pages=1,
                chunk=3,
            )
        )
        files = {p.relative_to(folder): p.read_bytes() for p in folder.rglob("*") if p.is_file()}
        outputs[workers] = (done, files)
    single, parallel = outputs[1], outputs[2]
    assert [output.written.path for output in parallel[0]] == [page.path for page in pages]
    assert parallel == single
    assert [output.fingerprint for output in single[0]] == [inputs.fingerprint(p) for p in pages]
    assert sum(output.written.bytes for output in single[0]) == sum(map(len, single[1].values()))


def test_workers_retire_after_their_share_and_the_order_holds(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(render_parallel, "PAGES_PER_WORKER", 4)
    plan = fixture_plan()
    pages = list(plan.pages)
    inputs = RenderInputs.of(plan, build_environment(BUNDLED_THEME), BUNDLED_THEME)

    def fingerprint_and_process(page: Page) -> str:
        return f"{inputs.fingerprint(page)} {os.getpid()}"

    outputs = _in_two_workers(plan, pages, tmp_path, fingerprint_and_process, chunk=2)
    done = [str(output.fingerprint).split() for output in outputs]
    assert len(pages) >= 16
    assert [fingerprint for fingerprint, _ in done] == [inputs.fingerprint(p) for p in pages]
    here = {index for index, (_, pid) in enumerate(done) if int(pid) == os.getpid()}
    assert here == set(render_parallel._cards_first(pages))
    processes = Counter(int(pid) for _, pid in done if int(pid) != os.getpid())
    assert max(processes.values()) <= 4  # two spans of two, then a fresh worker
    assert len(processes) >= (len(pages) - len(here)) // 4


def test_a_render_within_twice_the_workers_shares_forks_no_fresh_worker(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(render_parallel, "PAGES_PER_WORKER", 8)
    plan = fixture_plan()
    pages = list(plan.pages)
    spans = render_parallel._spans([render_parallel._weight(page) for page in pages], 4)
    # More spans than two workers' shares (two spans of four each): retiring, a third worker
    # would render some of them.
    assert 2 * 2 < len(spans) <= 2 * 2 * 2

    def process(page: Page) -> str:
        return str(os.getpid())

    outputs = _in_two_workers(plan, pages, tmp_path, process, chunk=4)
    processes = Counter(output.fingerprint for output in outputs)
    assert len(processes) == 2
    assert render_parallel._cards_first(pages)  # listings a retiring render would take first
    assert str(os.getpid()) not in processes  # rendered in the workers: none retires


def test_the_cards_of_the_listings_rendered_first_are_not_rendered_again_in_the_workers(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # Each card a page of the all-products listing shows is rendered once, in this process
    # before the workers fork; the workers find it kept, whatever page of theirs shows it.
    monkeypatch.setattr(render_parallel, "PAGES_PER_WORKER", 4)
    rendered = tmp_path / "cards"
    render = PageFragments.render

    def counting(self: PageFragments, key: Hashable, body: Callable[[], str]) -> str:
        def counted() -> str:
            if isinstance(key, tuple) and key[0] == "partials/product_card.html":
                with rendered.open("a") as out:
                    out.write(f"{os.getpid()} {key[3].id}\n")
            return body()

        return render(self, key, counted)

    monkeypatch.setattr(PageFragments, "render", counting)
    plan = fixture_plan()
    pages = list(plan.pages)
    first = render_parallel._cards_first(pages)
    assert any(type(pages[index].subject) is ProductListing for index in first)
    outputs = list(_in_two_workers(plan, pages, tmp_path / "out", lambda page: "", chunk=2))
    assert [output.written.path for output in outputs] == [page.path for page in pages]
    lines = [line.split() for line in rendered.read_text().splitlines()]
    here = [card for pid, card in lines if int(pid) == os.getpid()]
    again = {card for pid, card in lines if int(pid) != os.getpid()}
    assert here and len(here) == len(set(here))
    assert again.isdisjoint(here)
    shown = sum(len(getattr(page.subject, "products", ())) for page in pages)
    assert shown > len(lines)  # cards shown again, not rendered again


def test_the_all_products_listing_comes_first_then_listings_of_cards_not_yet_shown() -> None:
    plan = fixture_plan()
    pages = list(plan.pages)
    first = render_parallel._cards_first(pages)
    listed = {
        id(card)
        for page in pages
        if type(page.subject) is ProductListing
        for card in page.subject.products
    }
    assert all(type(pages[index].subject) is ProductListing for index in first)
    assert listed and first == sorted(first)
    # Any listing whose cards are mostly new after those is taken too.
    taken = [pages[index] for index in first]
    other = next(p for p in pages if getattr(p.subject, "products", ()) and p not in taken)
    pages.append(_with_cards_copied(other))
    assert render_parallel._cards_first(pages) == [*first, len(pages) - 1]


def test_a_worker_killed_in_the_middle_of_its_pages_fails_the_render(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(render_parallel, "WATCH_SECONDS", 0.2)
    plan = fixture_plan()
    pages = list(plan.pages)
    doomed = pages[len(pages) // 2]

    def fingerprint_or_die(page: Page) -> str:
        if page is doomed:
            os.kill(os.getpid(), signal.SIGKILL)  # as the out-of-memory killer would
        return page.path

    def give_up(signum: int, frame: object) -> None:
        raise AssertionError("the render waited for a worker that was gone")

    previous = signal.signal(signal.SIGALRM, give_up)
    signal.alarm(30)
    try:
        with pytest.raises(WorkerLost, match="ended in the middle of its pages"):
            list(_in_two_workers(plan, pages, tmp_path, fingerprint_or_die, chunk=4))
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _in_two_workers(
    plan: SitePlan,
    pages: list[Page],
    folder: Path,
    fingerprint: Callable[[Page], str],
    *,
    chunk: int,
) -> Iterator[PageOutput]:
    """``write_many`` across two workers however few the pages, ``fingerprint`` in each."""
    env = build_environment(BUNDLED_THEME)
    return write_many(
        plan, pages, env, folder, workers=2, fingerprint=fingerprint, min_pages=1, chunk=chunk
    )


def test_a_listing_page_weighs_its_cards_and_spans_hold_fewer_of_them() -> None:
    # A worker retires after a number of spans: spans cut by weight make it retire after about
    # as much memory copied whether it renders product pages or listings of scattered cards.
    plan = fixture_plan()
    listing = next(p for p in plan.pages if len(getattr(p.subject, "products", ())) >= 2)
    product = next(p for p in plan.pages if p.kind == "product")
    heavy = render_parallel._weight(listing)
    cards = len(getattr(listing.subject, "products", ()))
    assert heavy == 1 + cards // 2 > render_parallel._weight(product) == 1
    weights = [1] * 10 + [heavy] * 10
    spans = render_parallel._spans(weights, 4)
    assert spans[0][0] == 0 and spans[-1][1] == len(weights)
    assert all(stop == start for (_, stop), (start, _) in zip(spans, spans[1:], strict=False))
    assert all(sum(weights[start:stop]) >= 4 for start, stop in spans[:-1])
    products, listings = [s for s in spans if s[1] <= 10], [s for s in spans if s[0] >= 10]
    assert max(stop - start for start, stop in listings) < min(
        stop - start for start, stop in products
    )


def test_the_cards_rendered_first_stop_at_their_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    plan = fixture_plan()
    pages = list(plan.pages)
    [listing] = [page for page in pages if type(page.subject) is ProductListing]
    # A second page of the listing, its cards other objects: both are taken while they fit.
    pages.append(_with_cards_copied(listing))
    both = render_parallel._cards_first(pages)
    assert both == [pages.index(listing), len(pages) - 1]
    assert isinstance(listing.subject, ProductListing)
    monkeypatch.setattr(render_parallel, "CARDS_AHEAD", len(listing.subject.products))
    assert render_parallel._cards_first(pages) == both[:1]
    monkeypatch.setattr(render_parallel, "CARDS_AHEAD", 0)
    assert render_parallel._cards_first(pages) == []


def _with_cards_copied(page: Page) -> Page:
    """``page`` again, its listing's cards equal but other objects (new to ``_cards_first``)."""
    subject = page.subject
    assert isinstance(subject, CategoryPage | CollectionPage | ProductListing)
    copies = tuple(dataclasses.replace(card) for card in subject.products)
    return dataclasses.replace(page, subject=dataclasses.replace(subject, products=copies))
