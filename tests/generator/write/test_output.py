"""The output layout, the atomic swap, and the writer's refusals."""

from __future__ import annotations

import shutil
import stat
import time
from pathlib import Path

import pytest

from generator.errors import PathCollision, TemplateError, UnsafePath, WriteError
from generator.render.pages import build_environment
from generator.write import output as write_module
from generator.write.output import WriteReport
from generator.write.site import write_incremental
from generator.write.target import MARKER_FILE
from tests.support.fixture_site import THEME, build_site, cms_plan, write_plan

#: What every output holds besides pages.
BESIDES_PAGES = {".nojekyll", "_headers", "_csp.conf", MARKER_FILE, "sitemap.xml", "robots.txt"}


def write(out: Path, *paths: str, text: str = "x", **options: Path) -> WriteReport:
    """CMS pages at ``paths``, showing ``text``, written whole into ``out`` with the default
    theme (``theme=`` another; ``public_dir=`` a public folder)."""
    return write_plan(cms_plan(*paths, text=text), out, **options)


def pages_under(root: Path) -> set[str]:
    return {name for name in files_under(root) if not name.startswith("_assets/")}


def files_under(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


def test_layout_maps_urls_to_html_files(tmp_path: Path) -> None:
    out = tmp_path / "output"
    build_site(out)
    files = files_under(out)
    assert {"index.html", "404.html", "thoi-trang.html", "thoi-trang/ao.html"} <= files
    assert {"bai-viet.html", "bai-viet/cach-chon-ao.html", "áo-thun.html"} <= files
    assert {"_assets/style.css", "sitemap.xml", "robots.txt", ".nojekyll", "_headers"} <= files


def test_non_ascii_file_names_are_nfc(tmp_path: Path) -> None:
    out = tmp_path / "output"
    build_site(out)
    names = {p.name for p in out.iterdir()}
    assert "quần-jean.html" in names  # the url was given in NFD
    assert "qua\u0302\u0300n-jean.html" not in names


def test_report_counts_files_and_bytes(tmp_path: Path) -> None:
    out = tmp_path / "output"
    report = build_site(out)
    on_disk = [p for p in out.rglob("*") if p.is_file()]
    assert report.files == len(on_disk)
    assert report.bytes == sum(p.stat().st_size for p in on_disk)
    assert report.sitemap_files == ("sitemap.xml", "robots.txt")
    assert len(report.pages) == 21  # 16 pages (the two listings of its own) and 5 island shells


def test_trailing_slash_path_is_written_to_index_html_in_its_folder(tmp_path: Path) -> None:
    out = tmp_path / "out"
    write(out, "/", "/a/b/", "/a/b")
    assert {"index.html", "a/b/index.html", "a/b.html"} <= files_under(out)


def test_output_folder_is_readable_by_a_web_server(tmp_path: Path) -> None:
    out = tmp_path / "out"
    write(out, "/")
    assert stat.S_IMODE(out.stat().st_mode) & 0o055 == 0o055


def test_a_rebuild_replaces_the_previous_output(tmp_path: Path) -> None:
    out = tmp_path / "out"
    write(out, "/", "/old")
    write(out, "/", "/new")
    assert pages_under(out) == {"index.html", "new.html", *BESIDES_PAGES}


def test_the_replaced_output_is_deleted_in_the_background(tmp_path: Path) -> None:
    """The swap hands the previous output to a deleter process of its own: the build does not
    wait for it, the new output is complete at once, and the old folder goes away."""
    out = tmp_path / "out"
    write(out, "/", *(f"/p/{n}" for n in range(200)), text="old")
    write(out, "/", text="new")
    assert "<p>new</p>" in (out / "index.html").read_text()
    assert pages_under(out) == {"index.html", *BESIDES_PAGES}
    deadline = time.monotonic() + 30
    while sorted(p.name for p in tmp_path.iterdir()) != ["out"]:
        assert time.monotonic() < deadline, f"left behind: {list(tmp_path.iterdir())}"
        time.sleep(0.05)
    while write_module._deleting:  # the finished deleter is collected: no zombie is kept
        assert time.monotonic() < deadline, "the deleter did not end"
        write_module._reap()
        time.sleep(0.05)


def test_without_a_deleter_process_the_old_output_is_deleted_before_returning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(write_module.shutil, "which", lambda name: None)
    out = tmp_path / "out"
    write(out, "/", text="old")
    write(out, "/", text="new")
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


def test_failed_build_keeps_the_previous_output_intact(tmp_path: Path) -> None:
    out = tmp_path / "out"
    build_site(out)
    before = {name: (out / name).read_bytes() for name in files_under(out)}

    # A theme whose page template fails on the second page: the first is written by then.
    theme = tmp_path / "themes" / "failing"
    shutil.copytree(THEME, theme)
    page_template = theme / "page.html"
    page_template.write_text(
        '{% if page.path == "/half-written" %}{{ none.fails() }}{% endif %}'
        + page_template.read_text()
    )
    with pytest.raises(TemplateError):
        write(out, "/", "/half-written", theme=theme)
    assert {name: (out / name).read_bytes() for name in files_under(out)} == before
    # No temporary folder left beside the output.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "themes"]


def test_interrupted_build_keeps_the_previous_output_intact(tmp_path: Path) -> None:
    out = tmp_path / "out"
    write(out, "/", text="old")

    def interrupt() -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):  # Ctrl-C once the first page is written
        write_incremental(
            cms_plan("/", "/next", text="new"),
            build_environment(THEME),
            out,
            theme_dir=THEME,
            previous=None,
            on_page=interrupt,
        )
    assert "<p>old</p>" in (out / "index.html").read_text()
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


def test_two_pages_at_one_path_are_refused(tmp_path: Path) -> None:
    with pytest.raises(PathCollision, match="a.html"):
        write(tmp_path / "out", "/a", "/a")
    assert not (tmp_path / "out").exists()


def test_two_spellings_of_one_file_are_refused(tmp_path: Path) -> None:
    with pytest.raises(PathCollision, match="áo.html"):
        write(tmp_path / "out", "/%C3%A1o", "/a\u0301o")


def test_a_file_where_a_folder_must_go_is_a_collision(tmp_path: Path) -> None:
    with pytest.raises(PathCollision):
        write(tmp_path / "out", "/a", "/a.html/")


def test_page_over_an_asset_is_a_collision(tmp_path: Path) -> None:
    with pytest.raises(PathCollision):
        write(tmp_path / "out", "/_assets/style.css/")


@pytest.mark.parametrize(
    "path", ["/../escape", "/%2e%2e/escape", "/a%2Fb", "/a\\b", "/a\x00b", "//etc/passwd", "x"]
)
def test_writer_refuses_paths_that_escape_the_output(tmp_path: Path, path: str) -> None:
    out = tmp_path / "deep" / "out"
    with pytest.raises(UnsafePath):
        write(out, "/", path)
    assert not out.exists()
    assert files_under(tmp_path) == set()


def test_refuses_to_replace_a_folder_it_did_not_write(tmp_path: Path) -> None:
    out = tmp_path / "project"
    out.mkdir()
    (out / "notes.txt").write_text("precious")
    with pytest.raises(WriteError, match="not written by a build"):
        write(out, "/")
    assert (out / "notes.txt").read_text() == "precious"


def test_empty_folder_with_hidden_files_is_used_and_hidden_files_are_kept(tmp_path: Path) -> None:
    out = tmp_path / "output"
    out.mkdir()
    (out / ".gitkeep").write_text("")
    (out / ".well-known").mkdir()
    (out / ".well-known" / "security.txt").write_text("Contact: x")
    write(out, "/")
    write(out, "/")
    assert (out / ".gitkeep").exists()
    assert (out / ".well-known" / "security.txt").read_text() == "Contact: x"
    assert (out / "index.html").exists()


def test_output_that_is_a_file_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.write_text("x")
    with pytest.raises(WriteError, match="not a folder"):
        write(out, "/")


def test_symlinked_output_replaces_the_target_and_keeps_the_link(tmp_path: Path) -> None:
    real = tmp_path / "real"
    write(real, "/", text="one")
    link = tmp_path / "link"
    link.symlink_to(real)
    write(link, "/", text="two")
    assert link.is_symlink()
    assert "<p>two</p>" in (link / "index.html").read_text()


def test_theme_assets_and_islands_are_copied_under_assets(tmp_path: Path) -> None:
    theme = tmp_path / "theme"
    shutil.copytree(THEME, theme)
    (theme / "assets" / "extra.css").write_text("body{}")
    (theme / "islands" / "extra.js").write_text("export {}")
    (theme / "islands" / ".DS_Store").write_text("junk")
    out = tmp_path / "out"
    write(out, "/", theme=theme)
    assert {"_assets/extra.css", "_assets/islands/extra.js"} <= files_under(out)
    assert "_assets/islands/.DS_Store" not in files_under(out)


def test_public_dir_files_are_copied_to_the_output_root(tmp_path: Path) -> None:
    public = tmp_path / "public"
    (public / ".well-known").mkdir(parents=True)
    (public / "favicon.ico").write_bytes(b"\x00\x01icon")
    (public / ".well-known" / "security.txt").write_text("Contact: x@example.vn\n")
    out = tmp_path / "output"
    write(out, "/", public_dir=public)
    assert (out / "favicon.ico").read_bytes() == b"\x00\x01icon"
    assert (out / ".well-known" / "security.txt").read_text() == "Contact: x@example.vn\n"


def test_public_dir_file_may_not_take_a_page_path(tmp_path: Path) -> None:
    public = tmp_path / "public"
    public.mkdir()
    (public / "gioi-thieu.html").write_text("<p>not the page</p>")
    out = tmp_path / "output"
    with pytest.raises(PathCollision, match="publicDir"):
        write(out, "/gioi-thieu", public_dir=public)
    assert not out.exists()


def test_a_whole_new_output_takes_over_a_carried_folder_until_a_later_stage_writes_it(
    tmp_path: Path,
) -> None:
    """The search index is written after the swap: until then the new output serves the last
    build's (taken over, not copied), and a folder not carried goes with the old output."""
    out = tmp_path / "out"
    write(out, "/", "/a", text="first")
    index = out / "_search"
    (index / "t").mkdir(parents=True)
    (index / "index.json").write_bytes(b'{"count":1}')
    (index / "t" / "ao.json").write_bytes(b"[1]")
    inode = (index / "t" / "ao.json").stat().st_ino

    def whole(text: str, carried: tuple[str, ...]) -> None:
        plan = cms_plan("/", "/b", text=text)
        env = build_environment(THEME)
        write_incremental(plan, env, out, theme_dir=THEME, previous=None, carried=carried)

    whole("second", ("_search",))
    assert "second" in (out / "b.html").read_text(encoding="utf-8")
    assert (index / "index.json").read_bytes() == b'{"count":1}'
    assert (index / "t" / "ao.json").stat().st_ino == inode
    whole("third", ())
    assert "third" in (out / "b.html").read_text(encoding="utf-8")
    assert not index.exists()


def test_a_whole_new_output_forgets_the_records_before_it_replaces_the_old(
    tmp_path: Path,
) -> None:
    """A build stopped once the swap began must not leave records of the old output beside the
    new one: they would let the next build keep a page the stopped build wrote."""
    out = tmp_path / "out"
    write(out, "/", "/a", text="first")
    seen: list[str] = []

    def forget() -> None:
        seen.append((out / "a.html").read_text(encoding="utf-8"))

    plan = cms_plan("/", "/a", text="second")
    env = build_environment(THEME)
    write_incremental(plan, env, out, theme_dir=THEME, previous=None, before_commit=forget)
    assert len(seen) == 1 and "first" in seen[0]
    assert "second" in (out / "a.html").read_text(encoding="utf-8")
