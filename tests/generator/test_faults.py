"""Builds killed at random points (SIGKILL: no handler runs) lose nothing, and the next build
ends where a build that was never interrupted ends.

A whole build swaps its output in at once; a rebuild commits its files in place one by one, so
a kill during that commit may leave some pages new and others old, each file whole (README,
"Output layout"): that is what is checked after each kill."""

from __future__ import annotations

import hashlib
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

#: Products of the demo store these builds render: enough pages for a kill to land mid-write.
PRODUCTS = "60"
KILLS = 4
#: Seconds the background deletion of a replaced output is given (a busy machine is slow).
DISCARD_WAIT = 30.0


def _command(out: Path, cache: Path, site_url: str, *extra: str) -> list[str]:
    return [
        sys.executable, "-m", "generator", "build",
        "--out", str(out),
        "--cache-dir", str(cache),
        "--demo-products", PRODUCTS,
        "--site-url", site_url,
        "--xstore", str(out.parent / "no-xstore.json"),
        *extra,
    ]  # fmt: skip


def _environment() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("STOREFRONT_")}


def _snapshot(folder: Path) -> dict[str, str]:
    return {
        path.relative_to(folder).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def _build(out: Path, cache: Path, site_url: str, *extra: str) -> float:
    started = time.monotonic()
    subprocess.run(
        _command(out, cache, site_url, *extra), check=True, capture_output=True, env=_environment()
    )
    return time.monotonic() - started


def _staging(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("site."))


def _wait_for_staging(folder: Path, process: subprocess.Popen[bytes], *, deadline: float) -> None:
    while not _staging(folder) and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.002)


def test_a_build_killed_anywhere_leaves_whole_files_and_the_next_one_completes(
    tmp_path: Path,
) -> None:
    old_site, new_site = "https://old.example.vn", "https://new.example.vn"
    # What an uninterrupted build gives, for each site url.
    expected_old, expected_new = tmp_path / "expected-old", tmp_path / "expected-new"
    _build(expected_old, tmp_path / "cache-old", old_site)
    _build(expected_new, tmp_path / "cache-new", new_site)
    old, new = _snapshot(expected_old), _snapshot(expected_new)
    assert old != new

    out, cache = tmp_path / "site", tmp_path / "cache"
    _build(out, cache, old_site)
    # From the crawl cache: no requests, so the kills land in the render and the write.
    offline = _build(tmp_path / "timed", tmp_path / "cache-new", new_site, "--from-cache")
    chooser = random.Random(20261125)
    states = []
    for attempt in range(KILLS):
        extra = ("--from-cache", "--full") if attempt % 2 else ("--from-cache",)
        process = subprocess.Popen(
            _command(out, cache, new_site, *extra),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=_environment(),
        )
        if attempt == 0:
            # One kill is sure to land mid-write: as soon as the staging folder is there.
            _wait_for_staging(tmp_path, process, deadline=time.monotonic() + 10 * offline)
        else:
            time.sleep(chooser.uniform(0.3, offline))
        process.send_signal(signal.SIGKILL)
        process.wait()
        found = _snapshot(out)
        for name, digest in found.items():
            assert digest in (old.get(name), new.get(name)), f"kill {attempt + 1}: {name}"
        # Search works after any kill: a whole new output keeps the last index until it is
        # written (unless the kill fell between the swap's two renames: no output at all).
        assert not found or "_search/index.json" in found, f"kill {attempt + 1}: no index"
        states.append(_staging(tmp_path))
    _build(out, cache, new_site)
    assert _snapshot(out) == new
    assert any(states), "no kill landed while a staging folder was there"
    # The replaced output goes in the background, after the build returns (output.discard):
    # given time, nothing of any build is left beside the output.
    deadline = time.monotonic() + DISCARD_WAIT
    while (leftovers := _staging(tmp_path)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert leftovers == [], leftovers
