"""Parts of pages rendered once and reused: the theme's ``{% fragment %}`` tag.

    {% fragment "site-header" %} ... {% endfragment %}        one output for every page
    {% fragment "product-card", card, level %} ... {% endfragment %}   one per distinct key

Many parts of a page are the same on many pages: the header with its menus and the footer on
every page, a product's card on each list and product page that shows it. The tag keeps the
first output of its body, under the template, the tag's line and the key values that follow its
name, and gives every later page with an equal key that output without rendering the body again.

The rule for theme authors: the body may read its key values and the context that is the same
for the whole build (``store``, ``site``, ``menus``, ``vars``, ``site_url``, ``href``, the
filters and globals such as ``asset_url``), nothing else; whatever else it shows must be in the
key. Outputs are kept for one render of one plan in one process, so they never outlive a build.

The link dependencies of each page stay exact: the urls the body asked ``href`` about are kept
with its output and reported again for every page that shows it (see
``links.RecordingLinks``). A key that cannot be hashed renders the body every time.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from contextvars import ContextVar
from typing import TYPE_CHECKING

from jinja2 import nodes
from jinja2.ext import Extension
from jinja2.parser import Parser
from jinja2.runtime import Context
from markupsafe import Markup

if TYPE_CHECKING:
    from generator.plan.links import RecordingLinks

#: The template variable through which the tag reaches the page being rendered ...
CONTEXT_NAME = "_fragments"
#: ... or, for a macro of a partial imported without context (which does not see the page's
#: variables), the fragments of the page this thread is rendering (set by ``pages.render_page``).
page_fragments: ContextVar[PageFragments | None] = ContextVar("page_fragments", default=None)

Kept = tuple[Markup, tuple[str, ...]]


class FragmentCache:
    """The fragments kept during one render of a plan (in one process)."""

    __slots__ = ("kept",)

    def __init__(self) -> None:
        self.kept: dict[Hashable, Kept] = {}


class PageFragments:
    """The kept fragments as one page sees them: hits replay their urls into its recorder."""

    __slots__ = ("_cache", "_recorder")

    def __init__(self, cache: FragmentCache, recorder: RecordingLinks | None) -> None:
        self._cache = cache
        self._recorder = recorder

    def render(self, key: Hashable, body: Callable[[], str]) -> str:
        kept = self._cache.kept
        try:
            found = kept.get(key)
        except TypeError:  # an unhashable key value: nothing to look up, render it here
            return body()
        recorder = self._recorder
        if found is not None:
            if recorder is not None:
                recorder.replay(found[1])
            return found[0]
        if recorder is None:
            html = Markup(body())
            kept[key] = (html, ())
            return html
        with recorder.capture() as asked:
            html = Markup(body())
        kept[key] = (html, tuple(asked))
        return html


class FragmentExtension(Extension):
    """``{% fragment "name"[, key, ...] %}body{% endfragment %}`` (see the module docstring)."""

    tags = {"fragment"}

    def parse(self, parser: Parser) -> nodes.Node:
        lineno = next(parser.stream).lineno
        key: list[nodes.Expr] = [nodes.Const(parser.name), nodes.Const(lineno)]
        key.append(parser.parse_expression())
        while parser.stream.skip_if("comma"):
            key.append(parser.parse_expression())
        body = parser.parse_statements(("name:endfragment",), drop_needle=True)
        call = self.call_method("_fragment", [nodes.Tuple(key, "load"), nodes.ContextReference()])
        return nodes.CallBlock(call, [], [], body).set_lineno(lineno)

    def _fragment(
        self, key: tuple[Hashable, ...], context: Context, caller: Callable[[], str]
    ) -> str:
        # Not ``context.get``: a macro's context never has the name, and a miss raises inside.
        in_context = context.resolve_or_missing(CONTEXT_NAME)
        fragments = in_context if isinstance(in_context, PageFragments) else page_fragments.get()
        if fragments is None:
            return caller()  # rendered outside a build (no cache): just the body
        return fragments.render(key, caller)
