"""The theme owns the words: the ones no single template holds are in its ``words.toml``,
which a theme layer overrides key by key, and Python holds none a shopper reads."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import lxml.html
import pytest

from generator.config import BUNDLED_THEME
from generator.errors import ConfigError
from generator.render.theme import asset_source, islands_folder
from generator.render.words import layered_words
from tests.support.incremental_store import CrawledStores, build, config_for

ROOT = Path(__file__).resolve().parents[2]
VIETNAMESE = re.compile(
    r"[àáảãạăắằẳẵặâấầẩẫậđèéẻẽẹêếềểễệìíỉĩịòóỏõọôốồổỗộơớờởỡợùúủũụưứừửữựỳýỷỹỵ]", re.I
)
#: The Python that makes the pages: what it says, a shopper reads.
PAGE_MAKERS = ("generator/plan", "generator/render", "generator/shells.py")


def default_words() -> dict[str, dict[str, str]]:
    with (BUNDLED_THEME / "words.toml").open("rb") as file:
        return tomllib.load(file)


def marker(table: str, key: str) -> str:
    return f"W-{table}-{key}-W"


def marked_layer(folder: Path) -> Path:
    """A theme layer whose words.toml says a marker for every word (the {names} kept)."""
    lines = []
    for table, texts in default_words().items():
        lines.append(f"[{table}]")
        for key, text in texts.items():
            names = " ".join(re.findall(r"\{\w+\}", text))
            lines.append(f'{key} = "{marker(table, key)} {names}"')
    folder.mkdir(parents=True)
    (folder / "words.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def said(html: str) -> str:
    """What the plan's words reach: the title, the meta description, the h1, the breadcrumb
    and the stock states."""
    doc = lxml.html.document_fromstring(html)
    parts = doc.xpath(
        "//title | //h1 | //nav[contains(@class,'breadcrumb')] | "
        "//p[contains(@class,'stock')][not(ancestor::template)]"
    )
    texts = [p.text_content() for p in parts] + doc.xpath("//meta[@name='description']/@content")
    return "\n".join(texts)


def test_a_layer_s_words_replace_every_default_word_the_plan_and_the_stock_say(
    tmp_path: Path, crawled_stores: CrawledStores
) -> None:
    crawled_stores.copy(tmp_path, products=6).close()
    theme = marked_layer(tmp_path / "theme")
    build(None, config_for(tmp_path, out="themed", from_cache=True, templates=theme))
    pages = {
        p.relative_to(tmp_path / "themed").as_posix(): said(p.read_text(encoding="utf-8"))
        for p in (tmp_path / "themed").rglob("*.html")
    }
    defaults = [t for texts in default_words().values() for t in texts.values()]
    # A default text's own words (between its {names}), where the store's own text would not
    # say them by chance ("trang", "của").
    fragments = [f.strip(" :.,-–") for word in defaults for f in re.split(r"\{\w+\}", word)]
    fragments = [f for f in fragments if len(f) >= 6]
    assert "Trang chủ" in fragments and "Hết hàng" in fragments
    for page, text in pages.items():
        for fragment in fragments:
            assert fragment not in text, (page, fragment)
    everything = "\n".join(pages.values())
    for key in ("home", "not_found", "cart", "checkout", "account", "search", "articles"):
        assert marker("pages", key) in everything, key
    assert marker("stock", "out") in everything or marker("stock", "in") in everything


def test_the_header_footer_and_filters_say_the_layer_s_words(
    tmp_path: Path, crawled_stores: CrawledStores
) -> None:
    """The links and labels that name a page (the cart, the articles) or a stock state say the
    words.toml word, as the page's own title does."""
    crawled_stores.copy(tmp_path, products=6).close()
    theme = marked_layer(tmp_path / "theme")
    build(None, config_for(tmp_path, out="themed", from_cache=True, templates=theme))
    home = lxml.html.document_fromstring((tmp_path / "themed" / "index.html").read_bytes())
    footer = home.xpath("string(//footer)")
    for key in ("all_products", "collections", "articles"):
        assert marker("pages", key) in footer, key
    assert marker("pages", "cart") in home.xpath("string(//*[@data-island='cart-link'])")
    listings = [p.read_text(encoding="utf-8") for p in (tmp_path / "themed").rglob("*.html")]
    assert any(f'data-in-stock="{marker("stock", "in")} "' in page for page in listings)
    assert not any('data-in-stock="Còn hàng"' in page for page in listings)


@pytest.mark.parametrize(
    ("word", "said"),
    [
        ('page_number = "Trang {num}"', "[pages] page_number must say {number}"),
        ('product_code = "Mã"', "[pages] product_code must say {number}"),
        ('cart = "Giỏ {store}"', "[pages] cart must say no {name}"),
    ],
)
def test_a_word_with_other_names_than_its_default_stops_the_build(
    tmp_path: Path, word: str, said: str
) -> None:
    """An unknown {name} would be shown as it is; without {number}, two products of one name
    would share a title."""
    layer = tmp_path / "theme"
    layer.mkdir()
    (layer / "words.toml").write_text(f"[pages]\n{word}\n", encoding="utf-8")
    with pytest.raises(ConfigError) as refused:
        layered_words((layer, BUNDLED_THEME))
    assert said in str(refused.value) and "\n" not in str(refused.value)


def test_a_word_the_default_theme_does_not_have_stops_the_build(tmp_path: Path) -> None:
    (tmp_path / "words.toml").write_text('[stock]\nsold_out = "Hết"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"\[stock\] sold_out is not a word of the theme"):
        layered_words((tmp_path, BUNDLED_THEME))
    (tmp_path / "words.toml").write_text("[stock]\nout = 1\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"\[stock\] out must be text"):
        layered_words((tmp_path, BUNDLED_THEME))


def _code_strings(source: str) -> list[str]:
    """The string constants of a module's code, without its docstrings."""
    tree = ast.parse(source)
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        and id(node) not in docstrings
    ]  # fmt: skip


def test_the_python_that_makes_pages_holds_no_shopper_s_words() -> None:
    files = [
        f
        for place in PAGE_MAKERS
        for f in ((ROOT / place).rglob("*.py") if (ROOT / place).is_dir() else [ROOT / place])
    ]
    assert len(files) > 10
    found = {
        f"{f.relative_to(ROOT)}: {text!r}"
        for f in files
        for text in _code_strings(f.read_text(encoding="utf-8"))
        if VIETNAMESE.search(text)
    }
    assert found == set()


def test_the_islands_hold_no_shopper_s_words() -> None:
    for island in (BUNDLED_THEME / "islands").glob("*.js"):
        source = island.read_text(encoding="utf-8")
        code = re.sub(r"(?m)(?:^|\s)//\s.*$", "", re.sub(r"/\*.*?\*/", "", source, flags=re.S))
        assert not VIETNAMESE.search(code), (island.name, VIETNAMESE.search(code))


def test_a_layer_s_island_words_are_published_in_main_js_under_a_new_folder(
    tmp_path: Path,
) -> None:
    (tmp_path / "words.toml").write_text('[islands]\ngeneric = "Ôi, lỗi rồi."\n', encoding="utf-8")
    main = asset_source(tmp_path, "islands/main.js")
    assert main is not None
    published = main.read_bytes().decode("utf-8")
    assert '"generic":"Ôi, lỗi rồi."' in published
    assert default_words()["islands"]["generic"] not in published
    assert default_words()["islands"]["unavailable"] in published  # the default's other words
    # Changed words reach visitors despite the islands' year-long cache: another folder.
    assert islands_folder(tmp_path) != islands_folder(BUNDLED_THEME)
