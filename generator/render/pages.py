"""Render one page of the plan with the theme: ``render_recorded(plan, page, env)``.

One Jinja2 Environment per build (``build_environment``): a FileSystemLoader over the theme's
folders (the merchant's, then the default theme's: a template missing from the first comes
from the next), autoescape on for every template, StrictUndefined so a misspelt name fails the build
instead of printing nothing. Merchant ``*_html`` fields are the only strings marked safe (with
``|safe`` in the templates); everything else from the API is escaped.

Every page template receives the same context (see ``page_context``): ``page``, ``store``,
``site``, ``menus`` (by code), ``href`` (the Links rule: a url -> an href or None for plain text),
``canonical_url``, ``site_url``, ``absolute_url``, ``structured_data``, ``vars`` (custom
variables) and ``content_security_policy`` (the page's, for a <meta>, or None); the environment adds
filters (``vnd``, ``date_vi``, ``datetime_vi``, ``isoformat``, ``jsonld``) and globals
(``theme``: the theme's settings, ``asset_url``,
``image_src``, ``price_of``, ``tel_href``, ``mailto_href``), and the ``{% fragment %}`` tag
(``fragments``): parts shared by many pages are rendered once per build and process. Line breaks
beside block-level tags are dropped as templates load (``whitespace``). A failing
template raises ``TemplateError`` naming the template, the line and the page.
"""

from __future__ import annotations

import hashlib
import json
import re
import types
from collections.abc import Mapping, MutableMapping
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from generator.crawl.normalize import format_vnd
from generator.crawl.pack import unpack
from generator.errors import TemplateError
from generator.model import Menu, PackedProduct
from generator.plan.facet_data import facet_data_path
from generator.plan.links import Links, RecordingLinks
from generator.plan.paths import output_name
from generator.plan.site_plan import Page, PageKind, SitePlan, with_links, with_subject
from generator.render import buying
from generator.render.calls import BuildContext
from generator.render.csp import meta_policy
from generator.render.drawn import (
    Priced,
    SlotCard,
    SlotPrice,
    paid_now,
    price_states,
    slot_card,
)
from generator.render.escaping import OutputCode, output_text
from generator.render.fragments import CONTEXT_NAME as FRAGMENTS
from generator.render.fragments import FragmentCache, PageFragments, page_fragments
from generator.render.structured_data import graph, structured_data
from generator.render.template_check import EXTENSIONS
from generator.render.theme import ASSETS_URL_PREFIX, Theme, asset_source, islands_folder
from generator.render.words import layered_words

# Vietnam keeps one offset all year (no daylight saving), so a fixed zone is exact.
VIETNAM_TIME = timezone(timedelta(hours=7), "ICT")
# JSON inside <script> must not close the element or open a comment.
# White space inside a url (str.isspace's characters): the url is not usable as it is.
_SPACE = re.compile(r"\s")
_SCRIPT_ESCAPES = (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"))


@dataclass(frozen=True, slots=True)
class RenderedPage:
    """One page's HTML and what the writer and the sitemap need to know about it."""

    path: str  # url path, public spelling
    html: str
    kind: PageKind
    in_sitemap: bool
    lastmod: datetime | None

    @property
    def file(self) -> str:
        """Its file under the output folder, ``a/b.html`` (``paths.output_name``)."""
        return output_name(self.path)


@dataclass(frozen=True, slots=True)
class PriceView:
    """What to show: the price now, and a higher earlier price to strike through."""

    now: int | None
    was: int | None

    @property
    def off(self) -> str | None:
        """The saving of ``was`` (``buying.saving``), when there is one."""
        return None if self.now is None or self.was is None else buying.saving(self.now, self.was)


class _BuildEnvironment(jinja2.Environment):
    """An Environment whose templates see its globals as one plain dict, taken when each
    template loads (Jinja's default is a ChainMap over them, whose look-ups cost more on every
    import and name a page resolves). A build sets its globals before it renders anything.
    Its contexts call functions and macros directly (``calls``)."""

    context_class = BuildContext
    code_generator_class = OutputCode
    output_text = staticmethod(output_text)

    def make_globals(self, d: MutableMapping[str, Any] | None) -> MutableMapping[str, Any]:
        return {**self.globals, **(d or {})}


def build_environment(
    theme_dir: Theme | Path, *, compiled: Path | None = None
) -> jinja2.Environment:
    """The build's one Environment over the theme (templates, ``assets/``): the merchant's
    folder first, then the default theme's (``Theme.of``). With
    ``compiled`` (``incremental.compiled_templates``), compiled templates are kept there and
    loaded again by the next build while their source is the same: compiling a theme costs
    more than a small rebuild's render."""
    theme = Theme.of(theme_dir)
    env = _BuildEnvironment(
        bytecode_cache=None if compiled is None else jinja2.FileSystemBytecodeCache(str(compiled)),
        loader=jinja2.FileSystemLoader(list(theme.folders)),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        extensions=list(EXTENSIONS),
        auto_reload=False,  # one Environment per build: templates do not change during it
        # A plain dict rather than Jinja's LRU cache, whose look-up takes a lock and reorders
        # a list: every page asks for its template and the partials it imports.
        cache_size=-1,
    )
    env.filters["vnd"] = vnd
    env.filters["date_vi"] = date_vi
    env.filters["datetime_vi"] = datetime_vi
    env.filters["isoformat"] = isoformat
    env.filters["jsonld"] = jsonld
    env.filters["merchant_html"] = merchant_html
    asset_urls = AssetUrls(theme)
    env.globals["asset_url"] = asset_urls
    env.globals["island_url"] = asset_urls.island
    # The theme's settings (theme.toml) and words (words.toml), for every template and partial.
    env.globals["theme"] = theme.settings
    env.globals["words"] = layered_words(theme.folders)
    env.globals["image_src"] = image_src
    env.globals["price_of"] = price_of
    env.globals["jsonld_graph"] = graph
    env.globals["slot_card"] = slot_card
    env.globals["price_states"] = price_states
    env.globals["stock_state"] = buying.stock_state
    env.globals["first_choice"] = buying.first_choice
    env.globals["option_groups"] = buying.option_groups
    env.globals["variants_data"] = buying.variants_data
    env.globals["tel_href"] = tel_href
    env.globals["mailto_href"] = mailto_href
    env.globals["site_path"] = site_path
    env.globals["facet_data_path"] = facet_data_path
    # Also a global (not only in the page context), so partials imported without context -
    # compiled once per build instead of once per page - can link.
    env.globals["href"] = current_href
    return env


# The links of the page being rendered in this thread (set by ``render_page``).
_page_links: ContextVar[Links] = ContextVar("page_links")
# The path prefix of the site being rendered ("" or "/shop"; set by ``render_page``).
_base_path: ContextVar[str] = ContextVar("base_path", default="")
# A root-absolute url in an attribute of merchant HTML (href="/a", src='/b', action=/c).
_ROOT_ATTRIBUTE = re.compile(
    r"""(\s(?:href|src|action|poster)\s*=\s*)(["']?)/(?![/\\])""", re.IGNORECASE
)


def current_href(url: str | None) -> str | None:
    """``href`` of the page being rendered: its Links rule (see ``links``), under the site's
    path prefix."""
    found = _page_links.get().href(url)
    if found and found.startswith("/"):
        return _base_path.get() + found
    return found


def site_path(path: str) -> str:
    """A path of this site (``/gio-hang``) as a link writes it: under the site's prefix."""
    return _base_path.get() + path


def merchant_html(html: str | None) -> Markup:
    """A merchant ``*_html`` field, trusted as HTML; its root-absolute links and images gain the
    site's path prefix, so they still reach the site when it lives under one."""
    if not html:
        return Markup("")
    base = _base_path.get()
    if not base:
        return Markup(html)
    return Markup(_ROOT_ATTRIBUTE.sub(lambda m: f"{m.group(1)}{m.group(2)}{base}/", html))


def render_page(
    plan: SitePlan, page: Page, env: jinja2.Environment, fragments: PageFragments | None = None
) -> RenderedPage:
    """One page; ``fragments`` keeps the ``{% fragment %}`` outputs it shares with others."""
    if isinstance(page.subject, PackedProduct):
        page = with_subject(page, unpack(page.subject))
    try:
        template = env.get_template(page.template)
        context = page_context(plan, page)
        # The render's, not the plan's: the policies the build gave the environment.
        context["content_security_policy"] = _policy_attribute(meta_policy(env, page.kind))
        if fragments is not None:
            context[FRAGMENTS] = fragments
        links_token = _page_links.set(plan.links)
        base_token = _base_path.set(plan.base_path)
        fragments_token = page_fragments.set(fragments)
        try:
            html = template.render(context)
        finally:
            page_fragments.reset(fragments_token)
            _base_path.reset(base_token)
            _page_links.reset(links_token)
    except jinja2.TemplateSyntaxError as exc:
        where = f"{exc.name or exc.filename or page.template}, line {exc.lineno}"
        raise TemplateError(f"{where}: {exc.message} (fix the theme template)") from None
    except jinja2.TemplateNotFound as exc:
        # The template that asked for it (include, import, extends), when it is not the page's.
        asking = _template_line(exc.__traceback__, env)
        asked = f"{asking}: " if asking else ""
        raise TemplateError(
            f"{asked}template {exc.name!r} not found in the theme (needed for {page.path})"
        ) from None
    except Exception as exc:  # any failure inside a template: report where, never a traceback
        where = _template_line(exc.__traceback__, env) or page.template
        raise TemplateError(
            f"{where}: {type(exc).__name__}: {exc} (while rendering {page.path})"
        ) from None
    return RenderedPage(
        path=page.path,
        html=html,
        kind=page.kind,
        in_sitemap=page.in_sitemap,
        lastmod=page.lastmod,
    )


def render_recorded(
    plan: SitePlan, page: Page, env: jinja2.Environment, fragments: FragmentCache | None = None
) -> tuple[RenderedPage, tuple[str, ...]]:
    """The page, and every url whose link it asked about (its link dependencies).

    Pages rendered with one ``fragments`` cache share their ``{% fragment %}`` outputs."""
    recorder = RecordingLinks(plan.links)
    shared = PageFragments(fragments if fragments is not None else FragmentCache(), recorder)
    rendered = render_page(with_links(plan, recorder), page, env, shared)
    return rendered, tuple(recorder.asked)


def page_context(plan: SitePlan, page: Page) -> dict[str, object]:
    site = plan.site
    menus: Mapping[str, Menu] = {m.code: m for m in site.menus}
    return {
        "page": page,
        "site": site,
        "store": site.store,
        "menus": menus,
        "href": current_href,
        "site_url": plan.site_url,
        "base_path": plan.base_path,
        "absolute_url": plan.absolute_url,
        "canonical_url": plan.absolute(page.canonical_path) if page.canonical_path else None,
        "structured_data": structured_data(plan, page),
        "vars": dict(site.custom_variables),
    }


def _policy_attribute(policy: str | None) -> Markup | None:
    """The policy for base.html's double-quoted content="...": escaped, but its many single
    quotes kept as they are (an attribute in double quotes needs no &#39;)."""
    if policy is None:
        return None
    return Markup(str(Markup.escape(policy)).replace("&#39;", "'"))


def vnd(amount: int | Markup | None) -> str:
    """'120.000 ₫'; nothing at all for a missing price (never '0 ₫'); a slot (``drawn``) as
    it is."""
    if isinstance(amount, Markup):
        return amount
    return "" if amount is None else format_vnd(amount)


def date_vi(moment: datetime | None) -> str:
    """dd/mm/yyyy in Vietnam time; '' for None."""
    return "" if moment is None else moment.astimezone(VIETNAM_TIME).strftime("%d/%m/%Y")


def datetime_vi(moment: datetime | None) -> str:
    """HH:MM dd/mm/yyyy in Vietnam time (a sale's end); '' for None."""
    return "" if moment is None else moment.astimezone(VIETNAM_TIME).strftime("%H:%M %d/%m/%Y")


def isoformat(moment: datetime | None) -> str:
    """The UTC instant for <time datetime>: 2026-11-20T03:04:05+00:00."""
    return "" if moment is None else moment.astimezone(UTC).isoformat(timespec="seconds")


def jsonld(data: object) -> Markup:
    """JSON for a <script type="application/ld+json"> element (or an island's data block,
    type="application/json"), safe against </script>."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=False)
    # str.replace is many times faster than str.translate on non-ASCII text.
    for raw, escaped in _SCRIPT_ESCAPES:
        text = text.replace(raw, escaped)
    return Markup(text)


def image_src(url: str | None) -> str | None:
    """An image url usable in src: http(s) or a site path; anything else is dropped."""
    if not url or _SPACE.search(url.strip("\n ")):
        return None
    if url.startswith(("https://", "http://")):
        return url
    if url.startswith("/") and not url.startswith("//"):
        return _base_path.get() + url
    return None


def tel_href(phone: str | None) -> str | None:
    """'tel:+84901234567' from a phone number as people write it; None when not a number."""
    if not phone:
        return None
    digits = "".join(ch for ch in phone if ch.isdigit() or ch == "+")
    if not (8 <= len(digits.lstrip("+")) <= 15) or "+" in digits[1:]:
        return None
    return "tel:" + digits


def mailto_href(email: str | None) -> str | None:
    """'mailto:' plus a plain address; None for anything that is not one."""
    if not email or any(ch.isspace() or ch in '<>"?&,;:/' for ch in email):
        return None
    local, at, domain = email.partition("@")
    if not (local and at and "." in domain):
        return None
    return "mailto:" + email


def price_of(item: Priced | SlotCard) -> PriceView | SlotPrice:
    """The price a visitor pays now, and the struck-through one when it is higher (a slot
    card's: slots, ``drawn``)."""
    if isinstance(item, SlotCard):
        return item.price_view
    now = paid_now(item)
    if now is None:
        return PriceView(None, None)
    for earlier in (item.compare_at_price, item.price):
        if earlier is not None and earlier > now:
            return PriceView(now, earlier)
    return PriceView(now, None)


class AssetUrls:
    """``asset_url('style.css')`` -> '/_assets/style.css?v=<digest>'.

    The content digest changes the url whenever the file changes, so assets can be cached
    for a year (``immutable``) and still update with the next build.
    """

    def __init__(self, theme: Theme) -> None:
        self._theme = theme
        self._urls: dict[str, str] = {}
        self._islands: str | None = None

    def island(self, name: str) -> str:
        """``island_url('main.js')`` -> '/_assets/islands/<digest>/main.js': the islands'
        versioned folder (see ``theme``), whose modules import each other by relative urls."""
        if self._islands is None:
            self._islands = f"{ASSETS_URL_PREFIX}{islands_folder(self._theme)}/"
        if asset_source(self._theme, self._islands[len(ASSETS_URL_PREFIX) :] + name) is None:
            raise FileNotFoundError(f"the theme has no island {name!r}")
        return _base_path.get() + self._islands + name

    def __call__(self, name: str) -> str:
        url = self._urls.get(name)
        if url is None:
            source = asset_source(self._theme, name)
            if source is None:
                raise FileNotFoundError(f"the theme has no asset published as {name!r}")
            digest = hashlib.sha256(source.read_bytes()).hexdigest()[:10]
            url = self._urls[name] = f"{ASSETS_URL_PREFIX}{name}?v={digest}"
        return _base_path.get() + url


def _template_line(tb: types.TracebackType | None, env: jinja2.Environment) -> str | None:
    """'partials/x.html, line N' of the innermost template frame (Jinja maps frames to lines)."""
    roots = [Path(p).resolve() for p in getattr(env.loader, "searchpath", ())]
    found = None
    while tb is not None:
        filename = Path(tb.tb_frame.f_code.co_filename)
        for root in roots:
            if filename.is_relative_to(root):
                found = f"{filename.relative_to(root).as_posix()}, line {tb.tb_lineno}"
        tb = tb.tb_next
    return found
