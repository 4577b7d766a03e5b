"""Write the site, re-rendering only pages whose inputs moved: ``write_incremental(...)``.

Same staging folder and swap as ``write.write_site`` (a failed build leaves the previous output
intact). Each page of the plan either takes over its file from the previous output (a hard link:
its record in ``BuildState`` matches - see ``incremental``) or is rendered anew, across processes
when there are many (``render_parallel``: the workers write the files themselves). A full build
fingerprints its pages in those workers too; an incremental one first, to choose (across
processes as well). Pages the plan no longer has are simply not carried over, so a deleted
product loses its page, and - the sitemap being written from the pages of this plan - its
sitemap entry. Assets, sitemap, host files and the marker are written as in a full build.
With no usable state (first build, ``--full``, another output folder) every page renders, which
is the full build: one code path, so both give the same bytes.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import jinja2

from generator.incremental import (
    BuildState,
    PageRecord,
    RenderInputs,
    UrlTable,
    asks_about,
    moved_urls,
)
from generator.render_parallel import map_pages, write_many
from generator.site_plan import SitePlan
from generator.sitemap import SitemapLimits
from generator.write import (
    MARKER_FILE,
    WriteReport,
    WrittenPage,
    finish_output,
    link_previous,
    staged_output,
)


@dataclass(frozen=True, slots=True)
class RenderCounts:
    rendered: int  # pages rendered in this build
    reused: int  # pages taken over from the previous output
    removed: int  # pages of the previous build that this plan no longer has
    seconds: float  # the whole write phase: fingerprints, rendering, writing, swap


@dataclass(frozen=True, slots=True)
class IncrementalResult:
    report: WriteReport
    state: BuildState
    counts: RenderCounts


def write_incremental(
    plan: SitePlan,
    env: jinja2.Environment,
    out_dir: Path,
    *,
    theme_dir: Path,
    previous: BuildState | None,
    workers: int = 1,
    public_dir: Path | None = None,
    sitemap_limits: SitemapLimits | None = None,
    on_page: Callable[[], None] | None = None,
) -> IncrementalResult:
    started = time.perf_counter()
    inputs = RenderInputs.of(plan, env, theme_dir)
    previous_out = out_dir.resolve()
    state = _usable(previous, previous_out)
    fingerprints: list[str] | None = None  # None: every page renders, fingerprinted as it does
    reused: list[PageRecord | None] = [None] * len(plan.pages)
    table = UrlTable(state.urls if state is not None else ())
    files: list[PurePosixPath] = []  # each page's file, worked out once (not cheap, see paths)
    if state is not None:
        files = [page.file for page in plan.pages]
        fingerprints = map_pages(inputs.fingerprint, plan.pages, workers=workers)
        moved = moved_urls(state, plan.links)
        previous_root = str(previous_out)
        for index, (page, fingerprint) in enumerate(zip(plan.pages, fingerprints, strict=True)):
            record = state.pages.get(page.path)
            if (
                record is not None
                and record.fingerprint == fingerprint
                and not asks_about(record, moved)
                and os.path.isfile(os.path.join(previous_root, *files[index].parts))
            ):
                reused[index] = record
    to_render = [page for page, record in zip(plan.pages, reused, strict=True) if record is None]

    records: dict[str, PageRecord] = {}
    written: list[WrittenPage] = []
    folders: set[str] = set()  # folders of the staging output already made
    with staged_output(out_dir) as staging:
        outputs = write_many(
            plan,
            to_render,
            env,
            staging,
            workers=workers,
            fingerprint=inputs.fingerprint if fingerprints is None else None,
        )
        for index, (page, record) in enumerate(zip(plan.pages, reused, strict=True)):
            if record is not None:
                file = files[index]
                link_previous(staging, previous_out, file, made=folders)
                written.append(
                    WrittenPage(page.path, file, page.in_sitemap, page.lastmod, record.bytes)
                )
                records[page.path] = record
            else:
                output = next(outputs)
                done = output.written
                digest = output.fingerprint if fingerprints is None else fingerprints[index]
                assert digest is not None
                written.append(done)
                records[page.path] = PageRecord(digest, table.ids(output.urls), done.bytes)
            if on_page is not None:
                on_page()
        report = finish_output(
            staging,
            out_dir,
            tuple(written),
            theme_dir=theme_dir,
            public_dir=public_dir,
            site_url=plan.site_url,
            sitemap_limits=sitemap_limits,
        )
    new_state = BuildState(
        out_dir=str(previous_out),
        pages=records,
        urls=tuple(table.urls),
        linkable=tuple(p.path for p in plan.pages if p.kind != "not_found"),
    )
    removed = len(set(state.pages) - set(records)) if state is not None else 0
    counts = RenderCounts(
        rendered=len(to_render),
        reused=len(plan.pages) - len(to_render),
        removed=removed,
        seconds=time.perf_counter() - started,
    )
    return IncrementalResult(report=report, state=new_state, counts=counts)


def _usable(state: BuildState | None, previous_out: Path) -> BuildState | None:
    """The state, when it describes the output that is there now."""
    if state is None or state.out_dir != str(previous_out):
        return None
    if not (previous_out / MARKER_FILE).is_file():
        return None
    return state
