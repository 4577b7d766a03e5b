"""What the theme's templates name is kept with the compiled templates, so that a build without
records (``--full``) does not parse the theme again."""

from __future__ import annotations

import hashlib
from pathlib import Path

from generator.config import BUNDLED_THEME
from generator.write.incremental import (
    REFERENCES_FILE,
    compiled_templates,
    load_references,
    save_references,
)
from tests.support.incremental_store import DemoStore, build, config_for


def _digest(template: str) -> str:
    source = (BUNDLED_THEME / template).read_text(encoding="utf-8")
    return hashlib.sha1(source.encode("utf-8"), usedforsecurity=False).hexdigest()


def test_a_full_build_takes_what_the_last_build_found_in_the_templates(tmp_path: Path) -> None:
    store = DemoStore(tmp_path, products=4)
    try:
        build(store, config_for(tmp_path, full=True))
        folder = compiled_templates(tmp_path / "cache")
        found = load_references(folder)
        # base.html names its partials, and product.html extends it.
        assert "base.html" in found[_digest("product.html")]
        assert found[_digest("base.html")]
        # Kept references stand for a parse: a full build takes them as they are (here one
        # that no parse of product.html would give) and keeps them for the next build.
        kept = {**found, _digest("product.html"): ("base.html", "partials/kept.html")}
        save_references(folder, kept)
        build(store, config_for(tmp_path, full=True))
    finally:
        store.close()
    assert load_references(folder)[_digest("product.html")] == ("base.html", "partials/kept.html")


def test_unreadable_references_are_found_again(tmp_path: Path) -> None:
    (tmp_path / REFERENCES_FILE).write_bytes(b"not a pickle")
    assert load_references(tmp_path) == {}
    assert load_references(tmp_path / "missing") == {}
