"""What a template's ``{{ value }}`` writes: the value, escaped, as plain text.

Jinja compiles each ``{{ value }}`` of an autoescaped template to ``escape(value)``, which wraps
the escaped text in a ``Markup`` only for the page to join it into one string: a call of
``Markup.__new__`` in Python, and its failed ``__html__`` look-up on a plain string, for each of
the hundreds of values a page writes. ``OutputCode`` compiles them to ``output_text(value)``:
the same characters, without the wrapper. Anything else Jinja compiles as it does.
"""

from __future__ import annotations

from typing import Any, cast

from jinja2.compiler import CodeGenerator, Frame
from jinja2.nodes import Expr
from markupsafe import escape

try:  # MarkupSafe's own escape of a string, without the Markup around it (MarkupSafe 3)
    from markupsafe import _escape_inner  # type: ignore[attr-defined]
except ImportError:  # another MarkupSafe: its public escape, as a string

    def _escape_inner(text: str, /) -> str:
        return str(escape(text))


def output_text(value: Any, /) -> str:
    """``str(escape(value))``: a value that knows its HTML (``Markup``, ``__html__``) as it
    is, anything else converted to text and escaped."""
    if type(value) is str:
        return _escape_inner(value)
    html = getattr(value, "__html__", None)
    if html is not None:
        return cast(str, html())  # a Markup, joined as it is
    return _escape_inner(str(value))


class OutputCode(CodeGenerator):
    """Jinja's code generator, writing autoescaped output through the environment's
    ``output_text`` (the compiled module's ``environment``)."""

    def _output_child_pre(self, node: Expr, frame: Frame, finalize: Any) -> None:
        if frame.eval_ctx.volatile or not frame.eval_ctx.autoescape:
            super()._output_child_pre(node, frame, finalize)
            return
        self.write("environment.output_text(")
        if finalize.src is not None:
            self.write(finalize.src)
