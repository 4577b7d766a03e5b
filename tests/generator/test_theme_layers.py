"""A theme folder layers over the default theme: it holds only the files it changes."""

from __future__ import annotations

import hashlib
import re
import tomllib
from pathlib import Path

import pytest

from generator.cli import main
from generator.commands.theme import SETTINGS_EXAMPLE
from generator.config import BUNDLED_THEME
from generator.errors import ConfigError
from generator.render.theme import asset_source, check_theme, minify_js
from generator.render.theme_settings import ThemeSettings, parse
from tests.support.incremental_store import (
    CrawledStores,
    DemoStore,
    build,
    config_for,
    folder_bytes,
)

NEW_FOOTER = '<footer class="site-footer"><p class="wrap">Cửa hàng của tôi</p></footer>\n'
STYLE_URL = re.compile(r"/_assets/style\.css\?v=[0-9a-f]+")
FOOTER = re.compile(r"<footer\b.*?</footer>", re.DOTALL)


def small_theme(folder: Path, *, accent: str = "#0a7d33") -> Path:
    (folder / "partials").mkdir(parents=True)
    (folder / "partials" / "footer.html").write_text(NEW_FOOTER, encoding="utf-8")
    (folder / "theme.toml").write_text(f'[colors]\naccent = "{accent}"\n', encoding="utf-8")
    return folder


def without_footer_and_style(page: bytes) -> str:
    return STYLE_URL.sub("STYLE", FOOTER.sub("FOOTER", page.decode("utf-8")))


def test_a_footer_and_a_colour_change_only_the_footer_and_the_stylesheet(
    tmp_path: Path, crawled_stores: CrawledStores
) -> None:
    crawled_stores.copy(tmp_path, products=6).close()
    theme = small_theme(tmp_path / "theme")
    build(None, config_for(tmp_path, out="themed", from_cache=True, templates=theme))

    default, themed = folder_bytes(tmp_path / "out"), folder_bytes(tmp_path / "themed")
    assert default.keys() == themed.keys()
    changed = {name for name in default if default[name] != themed[name]}
    pages = {name for name in default if name.endswith(".html")}
    assert changed == pages | {"_assets/style.css"}
    for name in pages:
        before, after = default[name], themed[name]
        assert before is not None and after is not None
        assert without_footer_and_style(before) == without_footer_and_style(after), name
        # As the merchant's template loads: quotes and end tags HTML does not need left out.
        footer = "<footer class=site-footer><p class=wrap>Cửa hàng của tôi</footer>".encode()
        assert footer in after and footer not in before
    style = themed["_assets/style.css"]
    assert style is not None and style.startswith(default["_assets/style.css"] or b"-")
    assert b":root{--accent:#0a7d33;}" in style


def test_an_edited_theme_file_renders_the_pages_again(tmp_path: Path) -> None:
    store = DemoStore(tmp_path, products=4)
    theme = small_theme(tmp_path / "theme")
    try:
        build(store, config_for(tmp_path, templates=theme))
        home = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
        assert "Cửa hàng của tôi" in home
        (theme / "partials" / "footer.html").write_text(
            NEW_FOOTER.replace("của tôi", "mới"), encoding="utf-8"
        )
        build(store, config_for(tmp_path, templates=theme))
        home_again = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
        assert "Cửa hàng mới" in home_again
        (theme / "theme.toml").write_text('[colors]\naccent = "#123456"\n', encoding="utf-8")
        build(store, config_for(tmp_path, templates=theme))
        styled = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
        (theme / "assets").mkdir()
        (theme / "assets" / "overrides.css").write_text(".x{}\n", encoding="utf-8")
        build(store, config_for(tmp_path, templates=theme))
    finally:
        store.close()
    overridden = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    assert STYLE_URL.findall(styled) != STYLE_URL.findall(overridden)
    assert STYLE_URL.findall(home_again) != STYLE_URL.findall(styled)
    assert b"--accent:#123456;" in (tmp_path / "out" / "_assets" / "style.css").read_bytes()


def test_contact_settings_show_in_the_footer_and_rebuild_the_pages(tmp_path: Path) -> None:
    theme = tmp_path / "theme"
    theme.mkdir()
    store = DemoStore(tmp_path, products=2)
    try:
        build(store, config_for(tmp_path, templates=theme))
        assert "Hotline" not in (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
        (theme / "theme.toml").write_text(
            '[contact]\nhotline = "hotline"\nzalo = "zalo_oa"\nhours = "working_hours"\n',
            encoding="utf-8",
        )
        build(store, config_for(tmp_path, templates=theme))
    finally:
        store.close()
    footer = FOOTER.search((tmp_path / "out" / "index.html").read_text(encoding="utf-8"))
    assert footer is not None
    assert '<li>Hotline: <a href="tel:19006868">1900 6868</a><li>' in footer.group()
    assert '<a href="https://zalo.me/thoitrangsaigon" rel=noopener>' in footer.group()
    assert "Giờ mở cửa: 8:00 – 22:00, Thứ Hai – Chủ Nhật" in footer.group()


def test_a_theme_replaces_an_asset_and_an_island_one_file_at_a_time(tmp_path: Path) -> None:
    theme = tmp_path / "theme"
    (theme / "assets").mkdir(parents=True)
    (theme / "assets" / "favicon.svg").write_text("<svg/>", encoding="utf-8")
    (theme / "assets" / "overrides.css").write_text(".x{color:red}\n", encoding="utf-8")
    store = DemoStore(tmp_path, products=2)
    try:
        build(store, config_for(tmp_path, templates=theme))
    finally:
        store.close()
    assets = tmp_path / "out" / "_assets"
    assert (assets / "favicon.svg").read_text(encoding="utf-8") == "<svg/>"
    assert not (assets / "overrides.css").exists()
    assert (assets / "style.css").read_bytes().endswith(b"\n.x{color:red}\n")
    default_main = asset_source(BUNDLED_THEME, "islands/main.js")
    assert default_main is not None
    published = (assets / "islands" / "main.js").read_bytes()
    assert published == default_main.read_bytes()
    assert published.startswith(minify_js(default_main.source.read_bytes())[:40])


FONT_FACE = """/* a note: url(fonts/old.woff2) */
@font-face { font-family: Shop; src: url('fonts/shop.woff2') format("woff2"); }
.hero { background: url(img/hero.png#top), url("data:image/svg+xml,<svg/>"); }
"""


def test_files_a_stylesheet_names_are_published_with_their_digest(tmp_path: Path) -> None:
    theme = tmp_path / "theme"
    (theme / "assets" / "fonts").mkdir(parents=True)
    (theme / "assets" / "img").mkdir()
    (theme / "assets" / "overrides.css").write_text(FONT_FACE, encoding="utf-8")
    font = theme / "assets" / "fonts" / "shop.woff2"
    font.write_bytes(b"font one")
    (theme / "assets" / "img" / "hero.png").write_bytes(b"png")
    store = DemoStore(tmp_path, products=2)
    try:
        build(store, config_for(tmp_path, templates=theme))
    finally:
        store.close()

    def published() -> tuple[str, str]:
        style = (tmp_path / "out" / "_assets" / "style.css").read_text(encoding="utf-8")
        home = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
        found = STYLE_URL.search(home)
        assert found
        return style, found.group()

    style, style_url = published()
    digest = hashlib.sha256(font.read_bytes()).hexdigest()[:10]
    assert f'src: url("fonts/shop.woff2?v={digest}") format("woff2")' in style
    assert f'url("img/hero.png?v={hashlib.sha256(b"png").hexdigest()[:10]}#top")' in style
    assert "/* a note: url(fonts/old.woff2) */" in style  # comments and data: urls stay
    assert 'url("data:image/svg+xml,<svg/>")' in style
    assert (tmp_path / "out" / "_assets" / "fonts" / "shop.woff2").read_bytes() == b"font one"

    font.write_bytes(b"font two")  # the same name, new content: new urls all the way up
    build(None, config_for(tmp_path, from_cache=True, templates=theme))
    style_after, style_url_after = published()
    assert digest not in style_after
    assert style_url_after != style_url


@pytest.mark.parametrize(
    ("files", "message"),
    [
        (
            {"assets/overrides.css": FONT_FACE},
            "assets/overrides.css: url(fonts/shop.woff2) names no file",
        ),
        (
            {"assets/overrides.css": ".x { background: url(../../etc/passwd) }"},
            "url(../../etc/passwd) names no file",
        ),
        ({"theme.toml": 'logo = "logo.svg"\n'}, "logo = 'logo.svg' names no file of the theme"),
    ],
)
def test_a_missing_theme_file_stops_the_build_before_any_request(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], files: dict[str, str], message: str
) -> None:
    theme = tmp_path / "theme"
    for name, text in files.items():
        (theme / name).parent.mkdir(parents=True, exist_ok=True)
        (theme / name).write_text(text, encoding="utf-8")
    # An address nothing answers: the build stops on the theme before it asks anything.
    api = "http://127.0.0.1:9/public/v1"
    out = str(tmp_path / "o")
    site = "https://shop.example.vn"
    code = main(
        ["build", "--theme", str(theme), "--api-url", api, "--site-url", site, "--out", out]
    )
    assert code == 2
    err = capsys.readouterr().err
    assert message in err and "127.0.0.1" not in err
    assert not (tmp_path / "o").exists()
    with pytest.raises(ConfigError, match=re.escape(message)):
        check_theme(theme)
    (theme / "assets" / "fonts").mkdir(parents=True, exist_ok=True)
    (theme / "assets" / "fonts" / "shop.woff2").write_bytes(b"font")
    (theme / "assets" / "img").mkdir(exist_ok=True)
    (theme / "assets" / "img" / "hero.png").write_bytes(b"png")
    (theme / "assets" / "logo.svg").write_text("<svg/>", encoding="utf-8")
    if "passwd" not in message:
        check_theme(theme)  # with the file in place, the theme is fine


@pytest.mark.parametrize(
    ("toml", "key"),
    [
        ('[colors]\naccent = "red"\n', "colors.accent"),
        ('[colours]\naccent = "#fff"\n', "colours"),
        ('radius = "6px; } body { display:none"\n', "radius"),
        ("[layout]\ncolumns = 9\n", "layout.columns"),
        ('[fonts]\nbody = "x;}"\n', "fonts.body"),
        ("[contact]\nhotline = 3\n", "contact.hotline"),
        ('[analytics]\necommerce_events = "yes"\n', "analytics.ecommerce_events"),
        ('logo = "../secret.svg"\n', "logo"),
        ("[colors\n", "not valid TOML"),
    ],
)
def test_a_bad_setting_is_one_line_naming_its_key(tmp_path: Path, toml: str, key: str) -> None:
    theme = tmp_path / "theme"
    theme.mkdir()
    (theme / "theme.toml").write_text(toml, encoding="utf-8")
    code = main(["build", "--theme", str(theme), "--out", str(tmp_path / "out")])
    assert code == 2
    with pytest.raises(ConfigError, match=rf"^theme\.toml: .*{re.escape(key)}") as caught:
        ThemeSettings.load(theme)
    assert "\n" not in str(caught.value)


def test_theme_new_starts_a_folder_that_builds_as_the_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], crawled_stores: CrawledStores
) -> None:
    theme = tmp_path / "mine"
    assert main(["theme", "new", str(theme)]) == 0
    assert {p.relative_to(theme).as_posix() for p in theme.rglob("*") if p.is_file()} == {
        "theme.toml",
        "partials/footer.html",
        "assets/overrides.css",
    }
    crawled_stores.copy(tmp_path, products=6).close()
    build(None, config_for(tmp_path, out="mine-out", from_cache=True, templates=theme))
    default, mine = folder_bytes(tmp_path / "out"), folder_bytes(tmp_path / "mine-out")
    differing = {name for name in default if default[name] != mine.get(name)}
    # Its settings are all commented and its footer is the default's: only the stylesheet
    # (the commented overrides appended) and the url that carries its hash differ.
    assert "_assets/style.css" in differing
    for name in differing - {"_assets/style.css"}:
        before, after = default[name], mine[name]
        assert before is not None and after is not None
        assert STYLE_URL.sub("", before.decode()) == STYLE_URL.sub("", after.decode()), name
    capsys.readouterr()
    assert main(["theme", "new", str(theme)]) == 2
    assert (
        "is not an empty folder (it holds assets, partials, theme.toml)" in capsys.readouterr().err
    )


def test_every_example_of_the_starter_settings_is_valid_once_uncommented() -> None:
    example = re.compile(r"^# (?=\[|[a-z_-]+ = |'''|<script|gtag)")
    lines = [example.sub("", line) for line in SETTINGS_EXAMPLE.splitlines()]
    settings = parse(tomllib.loads("\n".join(line for line in lines if "logo" not in line)))
    assert settings.radius == "6px" and settings.layout.columns == 4
    assert settings.contact.hotline == "hotline" and settings.ecommerce_events
    assert ":root{--text:#1b1b1b;" in settings.css()
    [snippet] = settings.snippets
    assert ("script-src", "https://www.googletagmanager.com") in snippet.loads()
