"""Without the ``postgres`` extra: every module a SQLite run imports loads, and a PostgreSQL url
ends in one line naming the extra. psycopg is hidden from a child interpreter (``None`` in
``sys.modules`` makes its import fail as a missing module does)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HIDE = "import sys; sys.modules['psycopg'] = None; "
#: Modules that exist only to talk to PostgreSQL, loaded only when the database is one.
POSTGRES_ONLY = ("companion.answer_cache.postgres_feed", "companion.ratelimit.lease_link")


def _without_psycopg(code: str, *args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-c", HIDE + code, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_every_module_but_the_postgres_ones_imports_without_psycopg() -> None:
    code = (
        "import importlib, pkgutil, generator, companion, session_service\n"
        "skip = set(sys.argv[1:])\n"
        "for package in (generator, companion, session_service):\n"
        "    for info in pkgutil.walk_packages(package.__path__, package.__name__ + '.'):\n"
        "        if info.name not in skip and not info.name.endswith('__main__'):\n"
        "            importlib.import_module(info.name)\n"
    )
    done = _without_psycopg(code, *POSTGRES_ONLY)
    assert done.returncode == 0, done.stderr


def test_a_postgres_url_without_the_extra_ends_in_one_line(tmp_path: Path) -> None:
    code = "from generator.cli import main; raise SystemExit(main(sys.argv[1:]))"
    url = "postgresql://postgres@127.0.0.1:9/none"
    for command in (["api", "--db", url, "--seed", "demo"], ["api", "keys", "list", "--db", url]):
        done = _without_psycopg(code, *command, cwd=tmp_path)
        assert done.returncode == 2, done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1, done.stderr
        assert "pip install 'storefront[postgres]'" in lines[0]
