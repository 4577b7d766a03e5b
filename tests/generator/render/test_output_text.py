"""A template's ``{{ value }}`` writes what Jinja's own autoescape writes, without its Markup."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import jinja2
import pytest
from markupsafe import Markup

from generator.render.escaping import OutputCode, output_text
from generator.render.pages import build_environment


class _Html:
    def __html__(self) -> str:
        return "<b>kept</b>"


VALUES: list[object] = [
    "<script>alert('x')</script> & \"quotes\"",
    "Áo thun <nam> & nữ",
    Markup("<em>merchant</em>"),
    _Html(),
    42,
    Decimal("199000.50"),
    None,
    ["<li>", 1],
    "",
]


class _OutputEnvironment(jinja2.Environment):
    code_generator_class = OutputCode
    output_text = staticmethod(output_text)


@pytest.mark.parametrize(
    "value", VALUES, ids=[type(v).__name__ + str(i) for i, v in enumerate(VALUES)]
)
def test_a_value_is_written_as_jinja_writes_it(value: object) -> None:
    source = "<p title={{ v }}>{{ v }}</p>{% set s %}{{ v }}{% endset %}{{ s }}"
    jinja = jinja2.Environment(autoescape=True).from_string(source)
    ours = _OutputEnvironment(autoescape=True).from_string(source)
    assert ours.render(v=value) == jinja.render(v=value)


def test_the_compiled_template_writes_through_output_text() -> None:
    env = _OutputEnvironment(autoescape=True)
    code = env.compile("{{ v }}{% autoescape false %}{{ v }}{% endautoescape %}", raw=True)
    assert code.count("environment.output_text(") == 1  # not inside autoescape false
    assert (
        env.from_string("{% autoescape false %}{{ v }}{% endautoescape %}").render(v="<b>") == "<b>"
    )


def test_an_undefined_value_still_fails_the_render() -> None:
    env = _OutputEnvironment(autoescape=True, undefined=jinja2.StrictUndefined)
    with pytest.raises(jinja2.UndefinedError):
        env.from_string("{{ missing }}").render()


def test_a_plain_string_is_escaped_without_a_markup() -> None:
    text = output_text("<a href='x'>")
    assert text == "&lt;a href=&#39;x&#39;&gt;"
    assert type(text) is str


def test_the_build_environment_compiles_output_through_output_text(tmp_path: Path) -> None:
    env = build_environment(tmp_path)
    assert "environment.output_text(" in env.compile("{{ v }}", raw=True)
    assert env.from_string("{{ v }}").render(v="<i>") == "&lt;i&gt;"
