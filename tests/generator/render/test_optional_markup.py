"""End tags and attribute quotes HTML does not need leave the templates' own text as they load;
values, merchant HTML, <template> and <script> text come out as written. That the browser builds
the same page from both: tests/browser/test_optional_markup.py."""

from __future__ import annotations

from pathlib import Path

import jinja2
import pytest

from generator.render.optional_markup import OptionalMarkup
from generator.render.pages import build_environment

#: (template text, what it loads as); the browser test parses both sides of each.
CASES = [
    # </li> before another item, before the list's end, at the end of a loop's body.
    ("<ul><li>a</li><li>b</li>\n</ul>", "<ul><li>a<li>b\n</ul>"),
    (
        "<ol><li><a href=/x>x</a><ul><li>y</li></ul></li><li>z</li></ol>",
        "<ol><li><a href=/x>x</a><ul><li>y</ul><li>z</ol>",
    ),
    ("<ul>{% for i in [1, 2] %}<li>{{ i }}</li>{% endfor %}</ul>", "<ul><li>1<li>2</ul>"),
    # ... but not before anything else, nor inside a <template>.
    ("<ul><li>a</li>b</ul>", "<ul><li>a</li>b</ul>"),
    ("<template><li>a</li></template>", "<template><li>a</li></template>"),
    # </p> before a block that ends it, or before its parent's end tag.
    (
        "<div><p>a</p><p>b</p><ul><li>c</li></ul><p>d</p></div>",
        "<div><p>a<p>b<ul><li>c</ul><p>d</div>",
    ),
    ("<address><p>a</p>\n</address>", "<address><p>a\n</address>"),
    # ... not before inline content, nor before a value (its start is not the template's).
    ("<div><p>a</p><span>b</span></div>", "<div><p>a</p><span>b</span></div>"),
    ("<div><p>a</p>{{ '<p>b</p>' | safe }}</div>", "<div><p>a</p><p>b</p></div>"),
    ("<a href=/><p>a</p></a>", "<a href=/><p>a</p></a>"),
    # Quotes go from plain literal values followed by a space or the tag's end.
    ('<p class="x" id="y-1">a</p><div>', "<p class=x id=y-1>a<div>"),
    ('<input type="number" min="1" value="1">', "<input type=number min=1 value=1>"),
    ('<meta property="og:type" content="website">', "<meta property=og:type content=website>"),
    # They stay around spaces, slashes, empty values, and where a value or a tag follows.
    ('<a class="a b" href="/x" title="">t</a>', '<a class="a b" href="/x" title="">t</a>'),
    ('<img alt="x"/>', '<img alt="x"/>'),
    ('<a class="x"{% if true %} id="y"{% endif %}>t</a>', '<a class="x" id="y">t</a>'),
    # A tag that goes on after a value is still a tag; a value is never touched.
    (
        '<a href="{{ u }}" class="card">{{ t }}</a>',
        '<a href="/u" class=card>&lt;li class=&#34;x&#34;&gt;</a>',
    ),
    # Script text is not markup.
    (
        '<script type="module">const a = "<p>"; const b = \'<li class="x"></li>\'</script>',
        '<script type=module>const a = "<p>"; const b = \'<li class="x"></li>\'</script>',
    ),
]


def render(text: str, extensions: list[type[jinja2.ext.Extension]]) -> str:
    env = jinja2.Environment(
        loader=jinja2.DictLoader({"t.html": text}), autoescape=True, extensions=extensions
    )
    return env.get_template("t.html").render(u="/u", t='<li class="x">')


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_optional_markup_leaves_the_template_text(text: str, expected: str) -> None:
    assert render(text, [OptionalMarkup]) == expected


def test_merchant_html_keeps_its_end_tags_and_quotes() -> None:
    env = jinja2.Environment(
        loader=jinja2.DictLoader({"t.html": '<div class="prose">{{ html | safe }}</div>'}),
        autoescape=True,
        extensions=[OptionalMarkup],
    )
    html = '<ul><li class="a">x</li></ul><p class="b">y</p>'
    assert env.get_template("t.html").render(html=html) == f"<div class=prose>{html}</div>"


def test_the_default_theme_loads_without_them() -> None:
    env = build_environment(Path(__file__).resolve().parents[3] / "site-templates")
    source = env.loader.get_source(env, "partials/footer.html")[0]  # type: ignore[union-attr]
    assert "</li>" in source and 'class="' in source  # the source is written in full
    compiled = env.compile(source, "partials/footer.html", raw=True)
    assert "</li>" not in compiled and 'class="footer-grid' not in compiled.replace("\\", "")
