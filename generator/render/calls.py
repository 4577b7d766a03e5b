"""Calls from templates, made directly: the build's Jinja ``Context``.

Jinja routes every call a template makes (``img(...)``, ``price_of(card)``, ``href(url)``)
through ``Context.call``, which asks the callable, and its ``__call__``, whether it wants the
context, the eval context or the environment passed first (``jinja2.pass_context``, ...):
two failed ``hasattr`` look-ups on a plain function, each raising and catching an
AttributeError. A product page makes some forty such calls. Here the common callables are
recognised by their type: a plain function or method is called as it is (unless it carries
Jinja's mark), a macro gets the eval context as Jinja gives it; anything else takes Jinja's
own path, so the behaviour is Jinja's in every case.
"""

from __future__ import annotations

from types import BuiltinFunctionType, FunctionType, MethodType
from typing import Any

from jinja2.runtime import Context, Macro

#: The attribute ``jinja2.pass_context`` and its kin set on a function.
_PASS_ARG = "jinja_pass_arg"
_STOPPED = "value was undefined because a callable raised a StopIteration exception"


class BuildContext(Context):
    """``Context.call`` without its look-ups for functions, methods and macros."""

    def call(__self, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805 (Jinja's names)
        kind = type(__obj)
        if kind is FunctionType:
            if _PASS_ARG in __obj.__dict__:
                return Context.call(__self, __obj, *args, **kwargs)
        elif kind is Macro:
            args = (__self.eval_ctx, *args)  # a macro is ``pass_eval_context``
        elif kind is MethodType:
            if _PASS_ARG in getattr(__obj.__func__, "__dict__", ()):
                return Context.call(__self, __obj, *args, **kwargs)
        elif kind is not BuiltinFunctionType:
            return Context.call(__self, __obj, *args, **kwargs)
        # The compiled template passes these to every call inside a loop or a block.
        kwargs.pop("_block_vars", None)
        kwargs.pop("_loop_vars", None)
        try:
            return __obj(*args, **kwargs)
        except StopIteration:
            return __self.environment.undefined(_STOPPED)
