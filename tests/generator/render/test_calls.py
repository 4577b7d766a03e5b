"""The build's context calls functions and macros as Jinja's own would."""

from __future__ import annotations

import jinja2
import pytest
from jinja2.runtime import Context

from generator.render.calls import BuildContext


class _Counted(jinja2.Environment):
    context_class = BuildContext


class _Prices:
    def __init__(self) -> None:
        self.seen: list[object] = []

    def price(self, amount: int) -> str:
        self.seen.append(amount)
        return f"{amount} ₫"

    @jinja2.pass_context
    def page_name(self, context: Context) -> str:
        return str(context["name"])


@jinja2.pass_context
def name_of(context: Context, suffix: str = "") -> str:
    return str(context["name"]) + suffix


@jinja2.pass_environment
def env_kind(environment: jinja2.Environment) -> str:
    return type(environment).__name__


def stops() -> str:
    raise StopIteration


TEMPLATE = (
    "{% macro m(x, y=2) %}<{{ x }}{{ y }}{{ caller() if caller else '' }}>{% endmacro %}"
    "{% for i in [1] %}{{ m(i) }}{{ m(i, y=3) }}{{ plain(i, k=i) }}{{ name_of('!') }}"
    "{{ prices.price(i) }}{{ prices.page_name() }}{% endfor %}"
    "{% call m('c') %}body{% endcall %}{{ env_kind() }}|{{ len([1, 2]) }}|{{ stops() }}|"
    "{{ '%s-%s' | format(1, 2) }}{{ kind(1).__name__ }}"
)


def _render(env: jinja2.Environment, prices: _Prices) -> str:
    env.globals.update(
        plain=lambda a, k: f"({a},{k})",
        name_of=name_of,
        env_kind=env_kind,
        stops=stops,
        len=len,
        kind=type,
    )
    return env.from_string(TEMPLATE).render(name="Áo", prices=prices)


def test_the_build_context_renders_what_jinjas_does() -> None:
    ours, theirs = _Prices(), _Prices()
    ours_html = _render(_Counted(autoescape=True), ours)
    theirs_html = _render(jinja2.Environment(autoescape=True), theirs)
    assert ours_html.replace("_Counted", "Environment") == theirs_html
    assert "<12><13>(1,1)Áo!1 ₫Áo<c2body>_Counted|2||1-2int" == ours_html
    assert ours.seen == theirs.seen == [1]


def test_a_macro_gets_the_eval_context_of_its_call() -> None:
    # Turned on at run time, escaping marks the macro's output safe, as Jinja's own does.
    source = (
        "{% macro m(x) %}{{ x }}{% endmacro %}"
        "{% for x in v %}{% autoescape on %}{{ m(x) }}{% endautoescape %}{% endfor %}"
    )
    ours = _Counted().from_string(source).render(v=["<b>"], on=True)
    assert ours == jinja2.Environment().from_string(source).render(v=["<b>"], on=True) == "<b>"


def test_a_strict_undefined_callable_still_fails() -> None:
    env = _Counted(undefined=jinja2.StrictUndefined)
    with pytest.raises(jinja2.UndefinedError):
        env.from_string("{{ missing(1) }}").render()


@pytest.mark.parametrize(
    "call",
    [
        "m(1)",
        "m(1, 2)",
        "m(1, y=3)",
        "m(x=1)",
        "m(y=4, x=1)",
        "m('<b>', y=none)",
        "m2('<i>')",
        "v(1, 2, 3)",
        "k(1, a=2)",
    ],
)
def test_macro_calls_take_their_arguments_as_jinjas_do(call: str) -> None:
    source = (
        "{% macro m(x, y=2) %}<{{ x }}|{{ y }}>{% endmacro %}"
        "{% macro m2(x) %}{{ m(x) }}{{ x }}{% endmacro %}"
        "{% macro v(x) %}{{ x }}{{ varargs }}{% endmacro %}"
        "{% macro k(x) %}{{ x }}{{ kwargs }}{% endmacro %}"
        "{% for _ in [1] %}{{ " + call + " }}{% endfor %}{{ " + call + " }}"
    )
    ours = _Counted(autoescape=True).from_string(source).render()
    assert ours == jinja2.Environment(autoescape=True).from_string(source).render()


@pytest.mark.parametrize("call", ["m(1, 2, 3)", "m(1, z=3)", "m(1, x=2)", "m(y=1)"])
def test_a_macro_call_jinja_refuses_fails_as_it_does(call: str) -> None:
    source = "{% macro m(x, y=2) %}{{ x }}{{ y }}{% endmacro %}{{ " + call + " }}"
    failures = []
    strict = jinja2.StrictUndefined
    for env in (_Counted(undefined=strict), jinja2.Environment(undefined=strict)):
        with pytest.raises((TypeError, jinja2.UndefinedError)) as caught:
            env.from_string(source).render()
        failures.append((type(caught.value), str(caught.value)))
    assert failures[0] == failures[1]
