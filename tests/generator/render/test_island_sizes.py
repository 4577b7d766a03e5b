import gzip
from pathlib import Path

from generator.render.theme import island_sizes


def test_island_sizes_are_gzipped_per_file(tmp_path: Path) -> None:
    islands = tmp_path / "islands"
    islands.mkdir()
    code = b"export const x = 1;\n" * 200
    (islands / "a.js").write_bytes(code)
    (islands / "notes.txt").write_text("not an island")
    sizes = island_sizes(tmp_path)
    assert sizes == {"islands/a.js": len(gzip.compress(code, 9, mtime=0))}
    assert sizes["islands/a.js"] < len(code)
