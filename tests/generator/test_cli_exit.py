"""`storefront build` ends its process at once after a build, with its output and code intact."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support.demo_build import REPO as REPO_ROOT


def _storefront(*words: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "generator", *words],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO_ROOT)},
    )


def test_a_failed_build_still_says_why_and_exits_non_zero(tmp_path: Path) -> None:
    result = _storefront(
        "build",
        "--from-cache",
        "--cache-dir",
        str(tmp_path / "c"),
        "--out",
        str(tmp_path / "o"),
        cwd=tmp_path,
    )
    assert result.returncode == 2
    assert result.stderr.strip().endswith("run storefront build with the API once first")
    assert "no crawl cache" in result.stderr


def test_a_build_prints_its_whole_summary_before_the_quick_exit(tmp_path: Path) -> None:
    result = _storefront(
        "build",
        "--demo-products",
        "12",
        "--out",
        str(tmp_path / "out"),
        "--cache-dir",
        str(tmp_path / "cache"),
        "--workers",
        "1",
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert "pages" in result.stdout and result.stdout.endswith("\n")
    assert (tmp_path / "out" / "index.html").is_file()
    assert (tmp_path / "cache" / "pages.pickle").is_file()  # saved before the process ended


def test_other_commands_exit_as_usual() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "generator", "audit", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO_ROOT,
    )
    assert result.returncode == 0
    assert "usage: storefront audit" in result.stdout


def test_version_prints_the_installed_package_version() -> None:
    from importlib.metadata import version

    result = subprocess.run(
        [sys.executable, "-m", "generator", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO_ROOT,
    )
    assert result.returncode == 0
    assert result.stdout == f"storefront {version('storefront')}\n"
