"""Where a theme keeps its static files, and where they land in the output.

A theme folder holds Jinja2 templates at its top, ``assets/`` (CSS, images, fonts) and
``islands/`` (ES modules). Both asset folders are published under ``/_assets/``:
``assets/style.css`` -> ``/_assets/style.css``, ``islands/cart.js`` -> ``/_assets/islands/cart.js``.
The renderer's ``asset_url`` and the writer both read this one mapping.
"""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

ASSETS_URL_PREFIX = "/_assets/"
ASSETS_OUTPUT_FOLDER = "_assets"
# theme sub-folder -> folder under /_assets/
ASSET_FOLDERS: tuple[tuple[str, str], ...] = (("assets", ""), ("islands", "islands"))


def asset_files(theme_dir: Path) -> Iterator[tuple[PurePosixPath, Path]]:
    """(path under /_assets/, source file) for every static file of the theme, sorted."""
    for source_folder, target_folder in ASSET_FOLDERS:
        root = theme_dir / source_folder
        if not root.is_dir():
            continue
        for source in sorted(root.rglob("*")):
            relative = source.relative_to(root)
            if source.is_file() and not any(p.startswith(".") for p in relative.parts):
                yield PurePosixPath(target_folder, *relative.parts), source


def asset_source(theme_dir: Path, name: str) -> Path | None:
    """The theme file published as ``/_assets/<name>``, or None."""
    wanted = PurePosixPath(name)
    for published, source in asset_files(theme_dir):
        if published == wanted:
            return source
    return None


def island_sizes(theme_dir: Path) -> dict[str, int]:
    """Gzipped size (level 9, one file at a time, as a server sends them) of every island."""
    return {
        path.relative_to(theme_dir).as_posix(): len(gzip.compress(path.read_bytes(), 9, mtime=0))
        for path in sorted((theme_dir / "islands").rglob("*.js"))
    }
