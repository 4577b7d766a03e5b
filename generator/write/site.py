"""Write the site, re-rendering only pages whose inputs moved: ``write_incremental(...)``.

Each page of the plan either keeps its file from the previous output (its record in
``BuildState`` matches - see ``incremental``) or is rendered anew into a staging folder beside
the output, across processes when there are many (``workers``: the workers write the
files themselves). A full build fingerprints its pages in those workers too; an incremental one
first, in this process, to choose. Assets, sitemap, host files and the marker are
staged as in a full build. Nothing in the output changes until everything is staged: a failed
build leaves the previous output intact.

Then, when the previous output is the one the records describe, the staged files replace their
old versions in place and the files this build no longer writes are deleted (``in_place``:
a deleted product loses its page, and - the sitemap being written from the pages of this plan -
its sitemap entry), so a rebuild's writing costs what changed, not the store. Otherwise (first
build, ``--full``, another output folder, a staged file that cannot take its place) the staging
folder becomes the whole new output, taking over unchanged pages by hard link, and is swapped in
(``output.swap_in``). Every page renders when there is no usable state, which is the full build:
one code path, so both give the same bytes.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

import jinja2

from generator.plan.paths import output_name
from generator.plan.site_plan import SitePlan
from generator.render.csp import page_policies, use_policies
from generator.render.theme import Theme
from generator.write.host_files import SensitivePolicy
from generator.write.in_place import commit_in_place, fits
from generator.write.incremental import (
    BuildState,
    PageRecord,
    References,
    RenderInputs,
    TemplateReferences,
    UrlTable,
    asks_about,
    moved_urls,
)
from generator.write.output import (
    WriteReport,
    WrittenPage,
    carry_over,
    finish_output,
    link_previous,
    staging_folder,
    swap_in,
)
from generator.write.place import OutputHold
from generator.write.sitemap import SitemapLimits
from generator.write.target import MARKER_FILE
from generator.write.workers import write_many


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
    #: What the store's content holds that its pages' policies do not allow, one per line.
    warnings: tuple[str, ...] = ()


def write_incremental(
    plan: SitePlan,
    env: jinja2.Environment,
    out_dir: Path,
    *,
    theme_dir: Theme | Path,
    previous: BuildState | None,
    workers: int = 1,
    public_dir: Path | None = None,
    sitemap_limits: SitemapLimits | None = None,
    on_page: Callable[[], None] | None = None,
    before_commit: Callable[[], None] | None = None,
    session_url: str | None = None,
    known_references: References | None = None,
    data_files: Sequence[tuple[str, bytes]] = (),
    carried: Sequence[str] = (),
    hold: OutputHold | None = None,
) -> IncrementalResult:
    """Render what moved and put the output in place; ``before_commit`` runs just before the
    output starts to change (in place, by the swap, or a mount point's contents): the build
    forgets its page records then. ``known_references``: what the templates name as found
    before, for a build without ``previous`` records.
    ``carried``: folders of the output a later stage writes in place (the search index), which
    a whole new output takes over from the last one until that stage has written them.
    ``hold``: the output's lock, when the caller holds it for this and later stages."""
    started = time.perf_counter()
    theme_dir = Theme.of(theme_dir)  # its settings read once
    policies = page_policies(plan, env)
    use_policies(env, policies)
    # What the theme's templates name: the last build's findings hold for unedited ones.
    references = TemplateReferences(
        env, previous.template_references if previous else known_references
    )
    inputs = RenderInputs.of(plan, env, theme_dir, references)
    previous_out = out_dir.resolve()
    state = _usable(previous, previous_out)
    fingerprints: list[str] | None = None  # None: every page renders, fingerprinted as it does
    reused: list[PageRecord | None] = [None] * len(plan.pages)
    table = UrlTable(state.urls if state is not None else ())
    names: list[str] = []  # each page's file, worked out once
    linkable = tuple(p.path for p in plan.pages if p.kind != "not_found")  # what links knows
    if state is not None:
        names = [output_name(page.path) for page in plan.pages]
        # In this process: a fingerprint is cheap beside the fork and the hand-back a worker
        # needs for it.
        fingerprints = [inputs.fingerprint(page) for page in plan.pages]
        moved = moved_urls(state, plan.links, linkable)
        there = _files_in(previous_out, names)
        for index, (page, fingerprint) in enumerate(zip(plan.pages, fingerprints, strict=True)):
            record = state.pages.get(page.path)
            if (
                record is not None
                and record.fingerprint == fingerprint
                and not asks_about(record, moved)
                and names[index] in there
            ):
                reused[index] = record
    to_render = [page for page, record in zip(plan.pages, reused, strict=True) if record is None]

    if fingerprints is None:  # taken as each page renders, in the workers forked below
        inputs.page_bytes.know_cards(to_render)
    records: dict[str, PageRecord] = {}
    written: list[WrittenPage] = []
    with staging_folder(out_dir, hold=hold) as (staging, target):
        # The pages that moved, staged; those taken over stay where they are for now.
        outputs = write_many(
            plan,
            to_render,
            env,
            staging,
            workers=workers,
            fingerprint=inputs.fingerprint if fingerprints is None else None,
        )
        # Closed on the way out: a build stopped here (Ctrl-C) stops its workers first, before
        # the staging folder they write into is removed.
        with closing(outputs):
            for index, (page, record) in enumerate(zip(plan.pages, reused, strict=True)):
                if record is not None:
                    written.append(
                        WrittenPage(
                            page.path, names[index], page.in_sitemap, page.lastmod, record.bytes
                        )
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
            policy=policies.site.header(),
            sensitive=SensitivePolicy(policies.sensitive.header(), policies.sensitive_paths),
            session_url=session_url,
            unusable_urls=plan.unusable_urls,
            data_files=data_files,
        )
        # Staged: the pages rendered now and the files besides pages. They replace their old
        # versions in place when the last build's output is there (``in_place``); else the
        # staging folder, given the unchanged pages, becomes the whole new output.
        staged = [done.file for done, record in zip(written, reused, strict=True) if record is None]
        staged += report.extra_files
        gone = _gone(state, written, records, report.extra_files) if state is not None else set()
        lost: list[str] = []  # files of the output not written by a build, lost with it
        if state is not None and fits(target, staged, gone):
            if before_commit is not None:
                before_commit()
            commit_in_place(staging, target, staged, gone)
        else:
            folders: set[str] = set()  # folders of the staging output already made
            for done, record in zip(written, reused, strict=True):
                if record is not None:  # taken over unchanged: a hard link
                    link_previous(staging, target, done.file, made=folders)
            for folder in carried:
                carry_over(target, staging, folder)
            lost = _not_written_at_root(target, [*(done.file for done in written), *staged])
            swap_in(staging, target, before_update=before_commit)
    new_state = BuildState(
        out_dir=str(previous_out),
        pages=records,
        urls=tuple(table.urls),
        linkable=linkable,
        extra_files=report.extra_files,
        template_references=references.used,
        aliases=plan.links.aliases,
    )
    removed = len(set(state.pages) - set(records)) if state is not None else 0
    counts = RenderCounts(
        rendered=len(to_render),
        reused=len(plan.pages) - len(to_render),
        removed=removed,
        seconds=time.perf_counter() - started,
    )
    warnings = policies.warnings
    if lost:
        warnings += (
            f"{', '.join(lost)}: in {out_dir} but not written by the build, so not in its new "
            "output; files to publish as they are (a CNAME, a search engine's verification "
            "file) go in the folder xstore.json's publicDir names",
        )
    return IncrementalResult(report=report, state=new_state, counts=counts, warnings=warnings)


def _gone(
    state: BuildState,
    written: list[WrittenPage],
    records: Mapping[str, PageRecord],
    extra_files: tuple[str, ...],
) -> set[str]:
    """The files the last build wrote that this one does not: pages that went away (unless a
    page of this build, spelt otherwise, has the same file) and files besides pages."""
    extras = set(extra_files)
    removed = [output_name(path) for path in state.pages.keys() - records.keys()]
    removed += [name for name in state.extra_files if name not in extras]
    if not removed:
        return set()
    now = {page.file for page in written} | extras
    return {name for name in removed if name not in now}


def _not_written_at_root(target: Path, files: Iterable[str]) -> list[str]:
    """Files at the top of the output that this build does not write (hidden ones aside, which
    a new output takes over): a merchant's CNAME, say, gone with the replaced output."""
    ours = {name for name in files if "/" not in name}
    try:
        with os.scandir(target) as entries:
            return sorted(
                entry.name
                for entry in entries
                if entry.is_file(follow_symlinks=False)
                and not entry.name.startswith(".")
                and entry.name not in ours
            )
    except OSError:  # no output yet
        return []


def _files_in(root: Path, names: Iterable[str]) -> set[str]:
    """Which of ``names`` (relative, POSIX) are files under ``root``: each folder listed once
    (a store's products share one folder) instead of a ``stat`` per page."""
    folders: dict[str, set[str]] = {}
    there: set[str] = set()
    for name in names:
        folder, _, base = name.rpartition("/")
        listed = folders.get(folder)
        if listed is None:
            listed = folders[folder] = _file_names(os.path.join(root, folder))
        if base in listed:
            there.add(name)
    return there


def _file_names(folder: str) -> set[str]:
    try:
        with os.scandir(folder) as entries:
            return {entry.name for entry in entries if entry.is_file()}
    except OSError:  # gone, or not a folder: none of its pages is there
        return set()


def _usable(state: BuildState | None, previous_out: Path) -> BuildState | None:
    """The state, when it describes the output that is there now."""
    if state is None or not state.describes(previous_out):
        return None
    if not (previous_out / MARKER_FILE).is_file():
        return None
    return state
