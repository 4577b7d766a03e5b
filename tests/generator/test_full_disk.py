"""A build onto a disk that fills up: one line saying so, and the previous output as it was.

The output (and, in one case, the build state) live on a small tmpfs of their own; after a
good build, a file takes all but a few KB of it, and the next build (a whole one, for another
site url: every page is new) runs out of room. Mounting needs root (or the capability); where
it is not permitted the tests are skipped."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.demo_build import REPO

pytestmark = pytest.mark.slow

#: Left free on the disk after filling it: far less than a build's pages need.
LEFT_FREE = 64 * 1024


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, check=False)


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Path]:
    """An empty folder that is a 24 MiB tmpfs of its own."""
    if shutil.which("mount") is None:
        pytest.skip("no mount command")
    folder = tmp_path / "disk"
    folder.mkdir()
    mounting = _run("mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", str(folder))
    if mounting.returncode != 0:
        pytest.skip(f"cannot mount here: {mounting.stderr.strip() or mounting.returncode}")
    try:
        yield folder
    finally:
        if _run("umount", str(folder)).returncode != 0:
            _run("umount", "--lazy", str(folder))


def build(out: Path, cache: Path, site_url: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "generator", "build", "--out", str(out)]
    command += ["--cache-dir", str(cache), "--demo-products", "20", "--site-url", site_url]
    command += ["--workers", "1", "--full"]
    environ = {k: v for k, v in os.environ.items() if not k.startswith("STOREFRONT_")}
    return subprocess.run(
        command, cwd=REPO, env=environ, capture_output=True, text=True, timeout=300, check=False
    )


def fill(disk: Path) -> None:
    """All of ``disk`` but ``LEFT_FREE`` bytes taken by one file."""
    stats = os.statvfs(disk)
    free = stats.f_bavail * stats.f_frsize
    with (disk / "filler").open("wb") as filler:
        os.posix_fallocate(filler.fileno(), 0, free - LEFT_FREE)


def snapshot(folder: Path) -> dict[str, str]:
    return {
        str(file.relative_to(folder)): hashlib.sha256(file.read_bytes()).hexdigest()
        for file in sorted(folder.rglob("*"))
        if file.is_file()
    }


@pytest.mark.parametrize(
    ("cache_on_disk", "says"),
    [
        (False, "No space left on device (staging in "),
        (True, "cannot write the crawl cache (database or disk is full)"),
    ],
    ids=["pages", "crawl-cache"],
)
def test_a_full_disk_fails_the_build_in_one_line_and_keeps_the_output(
    disk: Path, tmp_path: Path, cache_on_disk: bool, says: str
) -> None:
    out = disk / "site"
    cache = (disk if cache_on_disk else tmp_path) / "cache"
    first = build(out, cache, "https://old.example.vn")
    assert first.returncode == 0, first.stderr[-2000:]
    before = snapshot(out)
    fill(disk)

    result = build(out, cache, "https://new.example.vn")
    assert result.returncode != 0
    assert "Traceback" not in result.stdout + result.stderr
    errors = [line for line in result.stderr.splitlines() if "error" in line]
    assert errors == result.stderr.splitlines()[-1:]
    assert errors[0].startswith("storefront build: error: ")
    assert says in errors[0]
    assert errors[0].endswith("the previous output is unchanged: free some space and build again")
    assert snapshot(out) == before
    # No staging folder stays beside the output.
    left = {p.name for p in disk.iterdir()}
    assert left == {"filler", "site"} | ({"cache"} if cache_on_disk else set())

    (disk / "filler").unlink()  # room again: the next build completes
    again = build(out, cache, "https://new.example.vn")
    assert again.returncode == 0, again.stderr[-2000:]
    assert "https://new.example.vn/" in (out / "index.html").read_text(encoding="utf-8")
