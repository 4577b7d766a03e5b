"""Line breaks beside block-level tags leave the templates as they load; nothing else does."""

from __future__ import annotations

from pathlib import Path

import jinja2
import pytest

from generator.render.pages import build_environment
from generator.render.whitespace import BlockWhitespace, squeeze


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("<ul>\n<li>a</li>\n<li>b</li>\n</ul>\n", "<ul><li>a</li><li>b</li></ul>"),
        ('<section class="x">\n  <h2>T</h2>\n\n<p>p</p>', '<section class="x"><h2>T</h2><p>p</p>'),
        (
            "<head>\n<meta charset=utf-8>\n<title>t</title>\n</head>",
            "<head><meta charset=utf-8><title>t</title></head>",
        ),
        # Inline neighbours draw the space: it stays.
        ("<label>a</label>\n<label>b</label>", "<label>a</label>\n<label>b</label>"),
        ("Giá\n<del>1 ₫</del>", "Giá\n<del>1 ₫</del>"),
        ('<input name="q">\n<button>Tìm</button>', '<input name="q">\n<button>Tìm</button>'),
        # White space with no line break is not this step's business.
        ("<li>a</li> <li>b</li>", "<li>a</li> <li>b</li>"),
    ],
)
def test_squeeze_drops_only_the_breaks_beside_block_tags(text: str, expected: str) -> None:
    assert squeeze(text)[0] == expected


def test_a_tag_started_before_a_value_still_counts() -> None:
    # '">\n<a' closes the <li that started in the text before {{ id }}.
    assert squeeze('">\n<a href="#">', "li")[0] == '"><a href="#">'
    assert squeeze('">\n<a href="#">', "span")[0] == '">\n<a href="#">'


def _env(templates: dict[str, str]) -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.DictLoader(templates), autoescape=True, extensions=[BlockWhitespace]
    )


def test_values_and_merchant_html_come_out_as_they_are() -> None:
    env = _env({"t.html": '<ul>\n<li id="a-{{ n }}">\n{{ text }}\n</li>\n</ul>\n{{ html | safe }}'})
    html = env.get_template("t.html").render(n=1, text="x\ny", html="<pre>\n  a\n</pre>\n<p>\n</p>")
    assert html == '<ul><li id="a-1">x\ny</li></ul><pre>\n  a\n</pre>\n<p>\n</p>'


def test_the_default_theme_renders_without_the_breaks(tmp_path: Path) -> None:
    env = build_environment(Path(__file__).resolve().parents[3] / "site-templates")
    source = env.loader.get_source(env, "partials/footer.html")[0]  # type: ignore[union-attr]
    assert "</li>\n<li>" in source or "<ul>\n" in source  # the source keeps its lines
    compiled = env.compile(source, "partials/footer.html", raw=True)
    assert "\\n<li>" not in compiled and "<ul>\\n" not in compiled
