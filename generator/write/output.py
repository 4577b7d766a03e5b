"""The output folder and what goes into it besides rendering: pages' files, assets, sitemap.

A build stages everything (pages, theme assets under ``_assets/``, sitemap.xml, robots.txt, the
host files of ``host_files``) in a temporary folder beside the output (``staging_folder``:
``<out>.tmp-*``); ``write.site`` then either commits the staged files in place or swaps the
whole staging folder in (``swap_in``), which replaces the output: rename the old folder aside,
rename the new one in, delete the old one. A build that fails or is interrupted before that
point deletes its temporary folder and leaves the previous output as it was. Between the two
renames the output path is briefly absent (there is no portable atomic exchange of two folders);
a crash exactly there leaves the previous site in ``<out>.old-*``. The old folder is deleted by
a process of its own (``discard``), so the build returns as soon as the new output is in place.
A build writes under the output's lock (``lock``), and first removes the working folders of
builds that were killed (``place``). An output folder that is a mount point cannot be renamed:
the build stages inside it and replaces its entries instead (``mount_point``).

The writer re-derives each file from the page's url (``paths.output_file``), so it refuses unsafe
paths itself, and never writes over a file (``PathCollision``), which catches collisions only the
file system sees (a case-insensitive disk). It never replaces a folder it did not write: an
existing output must be empty (hidden files aside) or carry the marker file of an earlier build.
Hidden entries of the previous output (``.gitkeep``, ``.well-known/``) are carried over.
"""

from __future__ import annotations

import errno
import os
import shutil
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import NamedTuple

from generator.errors import PathCollision, UnsafePath, WriteError
from generator.model import UnusableUrl
from generator.render.pages import RenderedPage
from generator.render.theme import ASSETS_OUTPUT_FOLDER, Theme, asset_files
from generator.write.build_warnings import WARNINGS_FILE, warnings_file
from generator.write.host_files import SensitivePolicy, host_files
from generator.write.lock import held
from generator.write.mount_point import replace_contents
from generator.write.place import MARKER_TEXT, OutputHold, Place, place_of
from generator.write.sitemap import SitemapLimits, sitemap_files
from generator.write.target import MARKER_FILE, check_replaceable


class WrittenPage(NamedTuple):
    """A page in the output (a tuple: a large store's rebuild makes one for every page)."""

    path: str
    file: str  # relative to the output folder, POSIX form (``paths.output_name``)
    in_sitemap: bool
    lastmod: datetime | None
    bytes: int


@dataclass(frozen=True, slots=True)
class WriteReport:
    out_dir: Path
    pages: tuple[WrittenPage, ...]
    files: int  # every file written: pages, assets, sitemap files, robots.txt, markers
    bytes: int
    sitemap_files: tuple[str, ...]
    #: Every file besides the pages (assets, public files, sitemap, host files, the marker),
    #: relative to the output, in POSIX form.
    extra_files: tuple[str, ...] = ()


def finish_output(
    staging: Path,
    out_dir: Path,
    written: tuple[WrittenPage, ...],
    *,
    theme_dir: Theme | Path | None,
    public_dir: Path | None,
    site_url: str | None,
    sitemap_limits: SitemapLimits | None,
    policy: str | None = None,
    sensitive: SensitivePolicy | None = None,
    session_url: str | None = None,
    unusable_urls: tuple[UnusableUrl, ...] = (),
    data_files: Sequence[tuple[str, bytes]] = (),
) -> WriteReport:
    """Everything besides the pages: assets, ``public_dir``, sitemap, host files, marker, and
    the build's warnings when it has some (``build_warnings``).

    A rebuild writes them all again (they are cheap), so its files are a whole build's."""
    sizes = [p.bytes for p in written]
    extras: list[str] = []
    if theme_dir is not None:
        sizes += copy_assets(staging, theme_dir, extras)
    if public_dir is not None:
        sizes += copy_public(staging, public_dir, extras)
    sitemap_names: list[str] = []
    if site_url is not None:
        for name, content in sitemap_files(written, site_url, sitemap_limits):
            sizes.append(_write_new(staging, name, content))
            sitemap_names.append(name)
    for name, content in host_files(
        policy, sensitive=sensitive, session_url=session_url, site_url=site_url
    ):
        sizes.append(_write_new(staging, name, content))
        extras.append(name)
    for name, content in data_files:  # the listings' facet data (plan.facet_data)
        sizes.append(_write_new(staging, name, content))
        extras.append(name)
    warned = warnings_file(unusable_urls)
    if warned is not None:
        sizes.append(_write_new(staging, WARNINGS_FILE, warned))
        extras.append(WARNINGS_FILE)
    sizes.append(len(MARKER_TEXT))  # written with the staging folder (``staging_folder``)
    extras += [*sitemap_names, MARKER_FILE]
    return WriteReport(
        out_dir=out_dir,
        pages=written,
        files=len(sizes),
        bytes=sum(sizes),
        sitemap_files=tuple(sitemap_names),
        extra_files=tuple(extras),
    )


def write_page(folder: Path, page: RenderedPage, *, made: set[str] | None = None) -> WrittenPage:
    """One rendered page at its file under ``folder`` (never overwriting); ``made`` remembers
    the folders already created, so a writer of many pages does not ask again for each."""
    file = page.file
    try:
        size = _write_new(folder, file, page.html.encode("utf-8"), made)
    except PathCollision as exc:
        raise PathCollision(f"{page.path}: {exc}") from None
    return WrittenPage(page.path, file, page.in_sitemap, page.lastmod, size)


def link_previous(
    folder: Path, previous: Path, relative: str, made: set[str] | None = None
) -> None:
    """Take over ``previous/relative`` unchanged: a hard link (a copy across file systems).

    ``made``: the folders already created (as for ``write_page``); plain ``os`` calls on strings,
    as this runs once per unchanged page."""
    source = os.path.join(previous, relative)
    destination = os.path.join(folder, relative)
    parent = os.path.dirname(destination)
    try:
        if made is None or parent not in made:
            os.makedirs(parent, exist_ok=True)
            if made is not None:
                made.add(parent)
        try:
            os.link(source, destination)
        except FileExistsError as exc:
            raise PathCollision(
                f"{relative} clashes with a file or folder already written"
            ) from exc
        except OSError:
            shutil.copy2(source, destination)
    except OSError as exc:
        raise _write_error(folder, relative, exc) from None


def copy_assets(folder: Path, theme_dir: Theme | Path, names: list[str]) -> list[int]:
    """The theme's static files under ``folder/_assets/``; returns their sizes and adds their
    relative names to ``names``."""
    sizes: list[int] = []
    for published, source in asset_files(theme_dir):
        relative = PurePosixPath(ASSETS_OUTPUT_FOLDER) / published
        sizes.append(_write_new(folder, relative, source.read_bytes()))
        names.append(relative.as_posix())
    return sizes


def copy_public(folder: Path, public_dir: Path, names: list[str]) -> list[int]:
    """Every file of ``public_dir`` at the same relative path under ``folder`` (favicon.ico,
    .well-known/...), its name added to ``names``; a file that a page, an asset or another file
    already took is refused."""
    sizes: list[int] = []
    for source in sorted(public_dir.rglob("*")):
        if source.is_file():
            relative = PurePosixPath(*source.relative_to(public_dir).parts)
            try:
                sizes.append(_write_new(folder, relative, source.read_bytes()))
            except PathCollision as exc:
                raise PathCollision(f"publicDir {public_dir}: {exc}") from None
            names.append(relative.as_posix())
    return sizes


@contextmanager
def staging_folder(out_dir: Path, *, hold: OutputHold | None = None) -> Iterator[tuple[Path, Path]]:
    """(a fresh staging folder, the real output folder), the output checked to be safe to
    replace; the fresh folder is deleted when the block raises, and afterwards unless the block
    moved it away (``swap_in``).

    The block runs under the output's build lock (taken here unless ``hold`` holds it), and
    what killed builds left is removed first (``place.Place``). The staging folder is beside the
    output, or inside it when it is a mount point (``mount_point``)."""
    target, place = place_of(out_dir)
    holding = hold is not None and hold.lock_file == place.lock_file
    with nullcontext() if holding else held(place.lock_file, busy=f"is writing {out_dir}"):
        check_replaceable(target, out_dir, place.kept)
        for leftover in place.leftovers():
            discard(leftover)
        staging = place.new_folder("tmp")
        try:
            yield staging, target
        finally:
            if staging.exists():
                shutil.rmtree(staging, ignore_errors=True)


def carry_over(previous: Path, staging: Path, folder: str) -> None:
    """The files of ``previous/folder``, taken over (``link_previous``) into a staging folder
    that staged nothing there: a later stage updates that folder in place, and until it does
    the new output keeps serving the last build's."""
    root = previous / folder
    if not root.is_dir() or (staging / folder).exists():
        return
    made: set[str] = set()
    for parent, _, names in os.walk(root):
        relative = os.path.relpath(parent, previous)
        for name in names:
            link_previous(staging, previous, os.path.join(relative, name), made=made)


def swap_in(
    staging: Path, target: Path, *, before_update: Callable[[], None] | None = None
) -> None:
    """``staging`` becomes the output ``target``; the previous output goes (hidden entries of
    its root are carried over). A mount point is updated by its contents instead
    (``mount_point``). ``before_update`` runs just before the output changes: a build stopped
    after that has no records of the output it leaves."""
    place = Place.of(target)
    if before_update is not None:
        before_update()
    if place.inside:
        aside = place.new_folder("old")
        replace_contents(staging, target, aside, marker=MARKER_FILE)
        discard(aside)
        return
    _carry_over_hidden(target, staging)
    _swap(staging, target)


def _carry_over_hidden(previous: Path, staging: Path) -> None:
    if not previous.is_dir():
        return
    for entry in previous.iterdir():
        if not entry.name.startswith(".") or (staging / entry.name).exists():
            continue
        if entry.name == WARNINGS_FILE:  # the last build's: this one had nothing to say
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.copytree(entry, staging / entry.name, symlinks=True)
        else:
            shutil.copy2(entry, staging / entry.name, follow_symlinks=False)


def _swap(staging: Path, target: Path) -> None:
    if not target.exists():
        staging.rename(target)
        return
    aside = Place.of(target).free_name("old")
    try:
        target.rename(aside)
    except OSError as exc:
        raise WriteError(
            f"cannot move the previous output {target} aside: {exc.strerror}"
        ) from None
    try:
        staging.rename(target)
    except OSError as exc:
        aside.rename(target)
        raise WriteError(f"cannot move the new output into {target}: {exc.strerror}") from None
    discard(aside)


_STDIO = (0, 1, 2)
#: Deleters started by ``discard`` that may still run; reaped by the next call.
_deleting: list[int] = []


def discard(folder: Path) -> None:
    """Delete ``folder`` in the background: ``rm -rf`` in a process of its own, which goes on
    after the build exits.

    The replaced output is not part of the site any more, and deleting a large one (tens of
    thousands of files) takes the kernel seconds: the build need not wait for it. Where no
    ``rm`` can be started the folder is deleted here, before the build returns."""
    _reap()
    rm = shutil.which("rm")
    if rm is not None and hasattr(os, "posix_spawn"):
        try:
            pid = os.posix_spawn(
                rm,
                [rm, "-rf", "--", os.fspath(folder)],
                os.environ,
                file_actions=[(os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_RDWR, 0) for fd in _STDIO],
                setsid=True,  # not stopped by a Ctrl-C meant for the build
            )
        except OSError:
            pass
        else:
            _deleting.append(pid)
            return
    shutil.rmtree(folder, ignore_errors=True)


def _reap() -> None:
    """Collect the deleters that have finished (no zombies in a long ``storefront watch``)."""
    for pid in list(_deleting):
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done = pid
        if done:
            _deleting.remove(pid)


#: A file created for writing, never an existing one (``FileExistsError``), as ``open(.., "xb")``;
#: ``os.open`` makes the descriptor non-inheritable itself.
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL


def _write_new(
    folder: Path, relative: PurePosixPath | str, content: bytes, made: set[str] | None = None
) -> int:
    """Create ``folder/relative`` (never overwriting); returns the byte count.

    Plain ``os`` calls on strings: this runs once per page, where pathlib's objects and the
    built-in ``open`` (a buffered file object, and ``fstat`` and ``isatty`` calls of its own)
    cost more than the file system does: a page's file comes as its ``a/b.html`` string."""
    name = str(relative)
    parts = name.split("/")
    if any(part in ("", ".", "..") for part in parts):  # "" also where it starts with "/"
        raise UnsafePath(f"{name} is not a plain relative file path")
    destination = os.path.join(folder, name)
    try:
        parent = os.path.dirname(destination)
        if made is None or parent not in made:
            os.makedirs(parent, exist_ok=True)
            if made is not None:
                made.add(parent)
        descriptor = os.open(destination, _NEW_FILE, 0o666)
        try:
            view = memoryview(content)
            while view:
                view = view[os.write(descriptor, view) :]
        finally:
            os.close(descriptor)
    except (FileExistsError, IsADirectoryError, NotADirectoryError) as exc:
        raise PathCollision(f"{name} clashes with a file or folder already written") from exc
    except OSError as exc:
        if exc.errno in (errno.ENAMETOOLONG, errno.EINVAL, errno.EILSEQ):
            raise UnsafePath(f"{name} cannot be a file name here: {exc.strerror}") from None
        raise _write_error(folder, name, exc) from None
    return len(content)


def _write_error(folder: Path, relative: str, exc: OSError) -> WriteError:
    if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
        # Staging comes before any change to the output: say so, and what to do.
        return WriteError(
            f"cannot write {relative}: {exc.strerror} (staging in {Path(folder).parent}); "
            "the previous output is unchanged: free some space and build again"
        )
    return WriteError(f"cannot write {relative}: {exc.strerror}")
