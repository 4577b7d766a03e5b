"""The import contracts of pyproject.toml hold, and fail on a forbidden import: a copy of the
packages with one such import added is checked by lint-imports as `make lint` checks the tree."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("generator", "companion", "session_service", "benchmarks")
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def _lint(tree: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(tree), "COLUMNS": "200"}
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("contracts")
    shutil.copy2(REPO / "pyproject.toml", root / "pyproject.toml")
    for name in PACKAGES:
        # the packages' modules only: their data (the theme, the recipes) is not imported
        shutil.copytree(
            REPO / name, root / name, ignore=shutil.ignore_patterns("__pycache__", "shipped")
        )
    (root / "generator" / "shipped").mkdir()
    (root / "generator" / "shipped" / "__init__.py").write_bytes(
        (REPO / "generator" / "shipped" / "__init__.py").read_bytes()
    )
    return root


@pytest.mark.parametrize(
    ("module", "line", "contract"),
    [
        ("companion/server.py", "import generator.serve.stack", "does not import the generator"),
        ("generator/serve/stack.py", "import companion.app", "only through companion.embedding"),
        ("generator/commands/serve.py", "import companion.settings", "only through"),
        ("session_service/session.py", "import companion.app", "imports neither"),
        ("session_service/visitor.py", "import generator.config", "imports neither"),
        ("generator/write/workers.py", "import benchmarks.processes", "import the benchmarks"),
        ("companion/server.py", "import benchmarks.loadtest_bare", "import the benchmarks"),
        ("generator/crawl/products.py", "import generator.replay.fetch", "never import the replay"),
        ("companion/commerce/ordering.py", "import fastapi", "know nothing of HTTP"),
        ("companion/customers/accounts.py", "import starlette.requests", "know nothing of HTTP"),
        ("companion/payments/starting.py", "import companion.problems", "know nothing of HTTP"),
        (
            "companion/db/tables.py",
            "import companion.commerce.carts",
            "routes, then services, then the database",
        ),
        (
            "companion/customers/tokens.py",
            "import companion.routes.commerce.cart",
            "routes, then services, then the database",
        ),
    ],
)
def test_a_forbidden_import_breaks_the_contracts(
    tree: Path, module: str, line: str, contract: str
) -> None:
    source = tree / module
    kept = source.read_text(encoding="utf-8")
    try:
        source.write_text(kept + f"\n{line}  # noqa\n", encoding="utf-8")
        done = _lint(tree)
    finally:
        source.write_text(kept, encoding="utf-8")
    assert done.returncode != 0
    report = " ".join(done.stdout.split())
    broken = report.partition("Broken contracts")[2]
    assert contract in broken, done.stdout


def test_the_tree_keeps_every_contract(tree: Path) -> None:
    done = _lint(tree)
    assert done.returncode == 0, done.stdout
    assert "BROKEN" not in done.stdout
