import gzip
import os
import subprocess
import sys
from pathlib import Path

from generator.render.theme import (
    DEFAULT_THEME,
    ISLANDS_BUDGET,
    ON_DEMAND_BUDGETS,
    asset_source,
    island_sizes,
    minify_js,
)

REPO = Path(__file__).resolve().parents[3]


def test_island_sizes_are_gzipped_per_file_as_published(tmp_path: Path) -> None:
    islands = tmp_path / "islands"
    islands.mkdir()
    code = b"// why this module exists\nexport const x = 1;\n" * 200
    (islands / "a.js").write_bytes(code)
    (islands / "notes.txt").write_text("not an island")
    sizes = island_sizes(tmp_path)
    published = minify_js(code)
    assert sizes["islands/a.js"] == len(gzip.compress(published, 9, mtime=0))
    assert "islands/notes.txt" not in sizes
    # the default theme's islands count too: they are published beside the merchant's
    assert "islands/main.js" in sizes
    # once each, not again for their copy in the versioned folder pages load them from
    assert all(name.count("/") == 1 for name in sizes), sorted(sizes)


def test_islands_are_published_minified_and_other_assets_as_they_are(tmp_path: Path) -> None:
    (tmp_path / "islands").mkdir()
    (tmp_path / "assets").mkdir()
    source = b"// a comment that explains\nexport function add (a, b) {\n  return a + b\n}\n"
    (tmp_path / "islands" / "sum.js").write_bytes(source)
    (tmp_path / "assets" / "raw.js").write_bytes(source)
    island = asset_source(tmp_path, "islands/sum.js")
    raw = asset_source(tmp_path, "raw.js")
    assert island is not None and raw is not None
    assert island.read_bytes() == b"export function add(a,b){return a+b}"
    assert raw.read_bytes() == source


def _island_size(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(REPO / "scripts" / "island_size.py"), *args],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), *sys.path])},
    )


def test_the_script_prints_the_published_total_and_exits_1_above_its_budget() -> None:
    total = sum(island_sizes(DEFAULT_THEME).values())
    within = _island_size("--budget", str(total))
    assert within.returncode == 0, within.stderr
    assert within.stdout.splitlines()[0] == str(total)
    above = _island_size("--budget", str(total - 1))
    assert above.returncode == 1


def test_the_default_themes_islands_are_within_their_budget() -> None:
    sizes = island_sizes(DEFAULT_THEME)
    assert sum(sizes.values()) <= ISLANDS_BUDGET, sizes


def test_an_island_loaded_on_use_keeps_its_own_budget_outside_the_total() -> None:
    on_demand = island_sizes(DEFAULT_THEME, on_demand=True)
    assert set(on_demand) == set(ON_DEMAND_BUDGETS)
    assert not set(on_demand) & set(island_sizes(DEFAULT_THEME))
    over = {name: size for name, size in on_demand.items() if size > ON_DEMAND_BUDGETS[name]}
    assert over == {}
