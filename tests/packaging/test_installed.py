"""The tool as a merchant installs it: the wheel and the sdist built from this tree, the wheel
installed into a fresh virtualenv in a folder with no checkout above it, without the
``postgres`` extra, and every command run there.

The dependencies come from a wheelhouse the test keeps (``STOREFRONT_TEST_WHEELHOUSE``, else
the user's cache folder): the first run fills it from the package registry, later runs need no
network.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.loopback import loopback_socket

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
#: What a build of the project reads (the rest of the checkout stays out of the copy).
SOURCES = (
    "pyproject.toml",
    "README.md",
    "generator",
    "companion",
    "session_service",
    "site-templates",
    "deploy",
)
BUILD_BACKEND = "setuptools>=77"


def _wheelhouse() -> Path:
    named = os.environ.get("STOREFRONT_TEST_WHEELHOUSE")
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    path = Path(named) if named else cache / "storefront-tests" / "wheelhouse"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _run(args: list[str | Path], *, cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, f"{args} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def _pip(*args: str | Path, cwd: Path, python: str = sys.executable) -> str:
    return _run([python, "-m", "pip", "--disable-pip-version-check", "-q", *args], cwd=cwd)


def _offline(wheelhouse: Path) -> list[str | Path]:
    return ["--no-index", "--find-links", wheelhouse]


def _install(python: str, wheel: Path, wheelhouse: Path, cwd: Path) -> None:
    """The wheel and its dependencies from the wheelhouse; what is missing there is fetched
    once, as wheels, and kept."""
    try:
        _pip("install", *_offline(wheelhouse), wheel, cwd=cwd, python=python)
    except AssertionError:
        _pip("wheel", "--find-links", wheelhouse, "-w", wheelhouse, wheel, cwd=cwd)
        for own in wheelhouse.glob("storefront-*.whl"):
            own.unlink()
        _pip("install", *_offline(wheelhouse), wheel, cwd=cwd, python=python)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the wheel, the sdist): the sdist built from a copy of the tree's sources, the wheel
    from the sdist, as an installer building from source would."""
    wheelhouse = _wheelhouse()
    root = tmp_path_factory.mktemp("build")
    if not list(wheelhouse.glob("setuptools-*.whl")):
        _pip("download", "--only-binary", ":all:", "-d", wheelhouse, BUILD_BACKEND, cwd=root)
    backend = root / "backend"
    _pip("install", *_offline(wheelhouse), "--target", backend, BUILD_BACKEND, cwd=root)
    source = root / "source"
    source.mkdir()
    # The bytecode caches a checkout holds once its tests ran: not part of what is built.
    ignore = shutil.ignore_patterns("*.egg-info")
    for name in SOURCES:
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, source / name, symlinks=True, ignore=ignore)
        else:
            shutil.copy2(REPO / name, source / name)
    dist = root / "dist"
    env = {**os.environ, "PYTHONPATH": str(backend)}
    make_sdist = "import sys, setuptools.build_meta as b; b.build_sdist(sys.argv[1])"
    _run([sys.executable, "-c", make_sdist, dist], cwd=source, env=env)
    (sdist,) = dist.glob("storefront-*.tar.gz")
    _pip("wheel", "--no-deps", *_offline(wheelhouse), "-w", dist, sdist, cwd=root)
    (wheel,) = dist.glob("storefront-*.whl")
    return wheel, sdist


def test_the_wheel_holds_what_commands_read_and_no_tests(built: tuple[Path, Path]) -> None:
    wheel, _sdist = built
    names = set(zipfile.ZipFile(wheel).namelist())
    tops = {name.split("/")[0] for name in names if not name.endswith(".dist-info/RECORD")}
    assert tops <= {"generator", "companion", "session_service", "storefront-0.1.0.dist-info"}, tops
    assert not any(name.startswith("tests/") or "/tests/" in name for name in names)
    assert not any(name.endswith(".pyc") for name in names)
    theme = {n for n in names if n.startswith("generator/shipped/site-templates/")}
    deploy = {n for n in names if n.startswith("generator/shipped/deploy/")}
    for shipped, folder in ((theme, "site-templates"), (deploy, "deploy")):
        expected = {
            f"generator/shipped/{folder}/{p.relative_to(REPO / folder).as_posix()}"
            for p in (REPO / folder).rglob("*")
            if p.is_file() and "__pycache__" not in p.parts
        }
        assert shipped == expected
    assert "generator/shipped/deploy/ci/github-actions.yml" in names
    assert "generator/shipped/site-templates/islands/main.js" in names
    assert "companion/data/provinces-wards.json" in names
    assert "companion/db/migrations/env.py" in names
    admin = {n for n in names if n.startswith("companion/admin_templates/")}
    assert admin == {
        f"companion/admin_templates/{p.name}"
        for p in (REPO / "companion/admin_templates").iterdir()
    }  # the back office's pages and stylesheet
    assert "companion/mail_templates/staff_password_reset.txt" in names
    assert "generator/audit/sitemaps_xsd/sitemap.xsd" in names
    versions = [n for n in names if n.startswith("companion/db/migrations/versions/")]
    assert len(versions) == len(list((REPO / "companion/db/migrations/versions").glob("*.py")))


@pytest.fixture(scope="module")
def installed(
    built: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Path, dict[str, str]]]:
    """(a folder with no checkout above it, the environment whose ``storefront`` is the
    installed wheel's): no PYTHONPATH, no storefront settings, no psycopg."""
    wheel, _sdist = built
    home = tmp_path_factory.mktemp("merchant")
    venv = home / "venv"
    _run([sys.executable, "-m", "venv", venv], cwd=home)
    python = str(venv / "bin" / "python")
    _install(python, wheel, _wheelhouse(), home)
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("STOREFRONT_", "PYTHON", "VIRTUAL_ENV"))
    }
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["HOME"] = str(home)
    yield home, env


def _answering(
    command: list[str], *, cwd: Path, env: dict[str, str], origin: str, paths: list[str]
) -> dict[str, httpx.Response]:
    """Starts ``command``, waits for it to answer on ``origin`` and asks it ``paths``."""
    log = cwd / f"{command[1]}.log"
    with (
        log.open("w") as out,
        subprocess.Popen(command, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT) as server,
    ):
        try:
            deadline = time.monotonic() + 60
            while True:
                assert server.poll() is None, log.read_text()
                try:
                    httpx.get(origin + paths[0], timeout=2)
                    break
                except httpx.TransportError:
                    assert time.monotonic() < deadline, f"{command} never answered"
                    time.sleep(0.2)
            return {path: httpx.get(origin + path, timeout=10) for path in paths}
        finally:
            server.terminate()
            server.wait(timeout=20)


def _port() -> str:
    sock, origin = loopback_socket()
    sock.close()
    return origin.rsplit(":", 1)[1]


def test_every_command_runs_from_the_installed_wheel_without_postgres(
    installed: tuple[Path, dict[str, str]],
) -> None:
    home, env = installed
    found = subprocess.run(
        [home / "venv/bin/python", "-c", "import psycopg"], env=env, capture_output=True
    )
    assert found.returncode != 0, "the postgres extra was installed"

    _run(["storefront", "init", "shop"], cwd=home, env=env)
    shop = home / "shop"
    _run(["storefront", "build", "--demo-products", "24"], cwd=shop, env=env)
    assert (shop / "output" / "index.html").is_file()
    _run(["storefront", "audit", "--strict"], cwd=shop, env=env)
    _run(["storefront", "theme", "new", "my-theme"], cwd=shop, env=env)
    assert (shop / "my-theme" / "theme.toml").is_file()

    port = _port()
    served = _answering(
        ["storefront", "serve", "--port", port, "--demo-products", "24"],
        cwd=shop,
        env=env,
        origin=f"http://127.0.0.1:{port}",
        paths=["/", "/session/health"],
    )
    assert served["/"].status_code == 200
    assert "<html" in served["/"].text.lower()
    assert served["/session/health"].status_code == 200

    port = _port()
    api = _answering(
        ["storefront", "api", "--port", port, "--seed", "demo", "--products", "24"],
        cwd=shop,
        env=env,
        origin=f"http://127.0.0.1:{port}",
        paths=["/public/v1/store"],
    )
    assert api["/public/v1/store"].status_code == 200
    assert api["/public/v1/store"].json()["name"]
