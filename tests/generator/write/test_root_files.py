"""Files a merchant put at the top of the output themselves (a CNAME, a search engine's
verification file) are not the build's: a whole new output goes without them, and the build
says so and where such files belong; publicDir publishes them."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from generator.xstore import Descriptor
from tests.support.incremental_store import DemoStore, build, config_for


def test_a_whole_new_output_says_which_files_it_goes_without(
    store: DemoStore, tmp_path: Path
) -> None:
    config = config_for(tmp_path)
    build(store, config)
    (config.out / "CNAME").write_text("shop.example.vn\n", encoding="utf-8")
    (config.out / ".well-known").mkdir()
    (config.out / ".well-known" / "security.txt").write_text("x", encoding="utf-8")
    kept, _ = build(store, config)  # in place: the file stays
    assert (config.out / "CNAME").is_file()
    assert not any("CNAME" in warning for warning in kept.warnings)
    full, _ = build(store, dataclasses.replace(config, full=True))  # a whole new output
    assert not (config.out / "CNAME").exists()
    assert (config.out / ".well-known" / "security.txt").is_file()  # hidden: taken over
    [said] = [warning for warning in full.warnings if "CNAME" in warning]
    assert said.startswith(f"CNAME: in {config.out} but not written by the build")
    assert "publicDir" in said


def test_public_dir_publishes_root_files_with_every_output(
    store: DemoStore, tmp_path: Path
) -> None:
    public = tmp_path / "public"
    public.mkdir()
    (public / "CNAME").write_text("shop.example.vn\n", encoding="utf-8")
    config = dataclasses.replace(
        config_for(tmp_path), descriptor=Descriptor(public_dir=str(public))
    )
    build(store, config)
    full, _ = build(store, dataclasses.replace(config, full=True))
    assert (config.out / "CNAME").read_text(encoding="utf-8") == "shop.example.vn\n"
    assert not any("CNAME" in warning for warning in full.warnings)
