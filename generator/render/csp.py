"""The site's Content-Security-Policies, written by the build from what its pages load.

    policies = page_policies(plan, env)
    policies.site.header()        # every page's but the sensitive ones: nginx, _headers, serve
    policies.sensitive.meta()     # cart, checkout, payment return, account: for <meta>
    policies.warnings             # what the store's content holds that no policy allows

Everything comes from the site's own origin (``'self'``: pages, assets, the session and the
API under it) but the image hosts the pages name (``plan.loads.site_loads``) and the theme's
own: its inline scripts, allowed by their sha256 hash, never by ``'unsafe-inline'`` (those of
``partials/islands.html``, rendered here as every page renders it), and what its
``theme.toml`` snippets declare (``theme_settings_loads``).

The store's content (merchant ``*_html``) never widens the policy by what it holds, only by
what the theme declares for it (``[embeds]``: frame and script hosts, inline scripts on or
off) and by its styles; it loads nothing else, and each thing it holds that is not allowed is
a warning of the build. The pages that take payment or personal data
(``shells.SENSITIVE_KINDS``) get none of that: the theme's own scripts and the images.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Set
from dataclasses import dataclass

import jinja2

from generator.errors import TemplateError
from generator.loads import Load, html_loads
from generator.plan.loads import pages_loading, site_loads
from generator.plan.site_plan import SitePlan
from generator.render.theme_settings import Embeds, ThemeSettings
from generator.shells import SENSITIVE_KINDS

#: The theme partial whose inline scripts (the islands' import map) every page carries.
INLINE_SCRIPTS_PARTIAL = "partials/islands.html"

#: The directives in the order written, with what every page needs of each.
BASE_DIRECTIVES: Mapping[str, tuple[str, ...]] = {
    "default-src": ("'self'",),
    "script-src": ("'self'",),
    "style-src": ("'self'",),
    "img-src": ("'self'", "data:"),
    "font-src": ("'self'",),
    "connect-src": ("'self'",),
    "media-src": ("'self'",),
    "frame-src": ("'self'",),
    "object-src": ("'none'",),
    "base-uri": ("'self'",),
    "form-action": ("'self'",),
    "frame-ancestors": ("'self'",),
}
#: Directives a browser falls back to default-src for: one with default-src's sources is left
#: out (the same policy, fewer bytes in every page's <meta>).
FALLS_BACK = frozenset(
    {"script-src", "style-src", "img-src", "font-src", "connect-src", "media-src", "frame-src"}
)
#: Directives a <meta> policy cannot carry (the browser ignores them there, with a warning).
HEADER_ONLY = frozenset({"frame-ancestors"})
#: A hash, 'unsafe-inline' or an origin; only a theme's snippets declare ``*.`` host wildcards.
_SAFE_SOURCE = re.compile(
    r"^(?:'sha256-[A-Za-z0-9+/=]+'|'unsafe-inline'|[a-z]+://(?:\*\.)?[a-z0-9.:-]+)$"
)


@dataclass(frozen=True, slots=True)
class ContentSecurityPolicy:
    directives: tuple[tuple[str, tuple[str, ...]], ...]

    @staticmethod
    def of(loads: Iterable[Load]) -> ContentSecurityPolicy:
        """The base directives with the loads' sources added (each directive's sorted, so
        the same site gives the same policy). ``object-src 'none'`` takes none."""
        extra: dict[str, set[str]] = {}
        for directive, source in loads:
            if directive in BASE_DIRECTIVES and _SAFE_SOURCE.match(source):
                extra.setdefault(directive, set()).add(source)
        directives = []
        default = BASE_DIRECTIVES["default-src"]
        for directive, base in BASE_DIRECTIVES.items():
            added = sorted(extra.get(directive, set()) - set(base))
            sources = base if directive == "object-src" or not added else (*base, *added)
            if directive not in FALLS_BACK or sources != default:
                directives.append((directive, sources))
        return ContentSecurityPolicy(tuple(directives))

    def header(self) -> str:
        return "; ".join(" ".join((name, *sources)) for name, sources in self.directives)

    def meta(self) -> str:
        return "; ".join(
            " ".join((name, *sources))
            for name, sources in self.directives
            if name not in HEADER_ONLY
        )


@dataclass(frozen=True, slots=True)
class PagePolicies:
    site: ContentSecurityPolicy  # every page but the sensitive ones
    sensitive: ContentSecurityPolicy  # the pages of ``SENSITIVE_KINDS``
    sensitive_paths: tuple[str, ...]  # their paths in the plan (public spelling)
    #: One line per page (or the whole site) and thing its content holds that is not allowed.
    warnings: tuple[str, ...]


#: Where the render's environment holds the <meta> policies its pages carry (``use_policies``).
_META_POLICIES = "_storefront_meta_policies"


def use_policies(env: jinja2.Environment, policies: PagePolicies) -> None:
    """The pages ``env`` renders carry ``policies`` in <meta> (none before this is called)."""
    env.globals[_META_POLICIES] = (policies.site.meta(), policies.sensitive.meta())


def meta_policies(env: jinja2.Environment) -> tuple[str, str] | None:
    """The <meta> policies of the pages ``env`` renders: (the site's, the sensitive pages')."""
    found = env.globals.get(_META_POLICIES)
    if not isinstance(found, tuple):
        return None
    site, sensitive = found
    return str(site), str(sensitive)


def meta_policy(env: jinja2.Environment, kind: str) -> str | None:
    """The <meta> policy a page of ``kind`` carries; None: no <meta> policy."""
    found = meta_policies(env)
    if found is None:
        return None
    return found[1] if kind in SENSITIVE_KINDS else found[0]


def page_policies(plan: SitePlan, env: jinja2.Environment) -> PagePolicies:
    theme = theme_script_loads(env) | theme_settings_loads(env)
    settings = env.globals.get("theme")
    embeds = settings.embeds if isinstance(settings, ThemeSettings) else Embeds()
    content = site_loads(plan)
    images = {load for load in content if load[0] == "img-src"}
    allowed = {load for load in content if allowed_from_content(load, embeds)}
    refused = content - allowed
    return PagePolicies(
        site=ContentSecurityPolicy.of(allowed | set(embeds.origins) | theme),
        sensitive=ContentSecurityPolicy.of(images | theme),
        sensitive_paths=tuple(p.path for p in plan.pages if p.kind in SENSITIVE_KINDS),
        warnings=_warnings(plan, refused - theme),
    )


def allowed_from_content(load: Load, embeds: Embeds) -> bool:
    """Whether content holding ``load`` gets it allowed (off the sensitive pages): its images
    and styles always, its inline scripts when the theme turns them on, an origin when the
    theme declares it for that directive."""
    directive, source = load
    if directive == "img-src" or (directive == "style-src" and source == "'unsafe-inline'"):
        return True
    if source.startswith("'sha256-"):
        return directive == "script-src" and embeds.inline_scripts
    return embeds.declares(load)


def _warnings(plan: SitePlan, refused: Set[Load]) -> tuple[str, ...]:
    if not refused:
        return ()
    lines: list[str] = []
    by_page = pages_loading(plan, refused)
    for load in sorted(refused, key=lambda load: (load[0], load[1])):
        where = ", ".join(by_page[load][:3]) or "every page"
        if len(by_page[load]) > 3:
            where += f" and {len(by_page[load]) - 3} more"
        lines.append(f"{where}: {refusal(load)}")
    return tuple(lines)


def refusal(load: Load) -> str:
    """What a refused load of the store's content means, and how a merchant allows it."""
    directive, source = load
    if source.startswith("'sha256-"):
        return (
            f"an inline script in the content does not run ({source}); theme.toml "
            "[embeds] inline_scripts = true allows it, never on cart, checkout or account pages"
        )
    if directive in ("object-src", "form-action"):
        return f"the content's {directive} {source} is not allowed (no setting allows it)"
    return (
        f"the content loads {source} ({directive}), which theme.toml [embeds] {directive} "
        "does not declare: it is blocked"
    )


def theme_settings_loads(env: jinja2.Environment) -> set[Load]:
    """What theme.toml makes every page load: each snippet's declared origins (exactly
    those) and the hashes of its inline scripts, and a logo's host."""
    settings = env.globals.get("theme")
    return settings.loads() if isinstance(settings, ThemeSettings) else set()


def theme_script_loads(env: jinja2.Environment) -> set[Load]:
    """The hashes of the inline scripts in the theme's islands partial, as rendered (its import
    map names each island by its content-hashed url, so its hash moves with the assets)."""
    try:
        html = env.get_template(INLINE_SCRIPTS_PARTIAL).render()
    except jinja2.TemplateNotFound:
        return set()
    except Exception as exc:  # any failure of the theme's partial: one line, never a traceback
        raise TemplateError(
            f"{INLINE_SCRIPTS_PARTIAL}: {type(exc).__name__}: {exc} (rendered once, with no page, "
            "to hash its inline scripts for the content security policy)"
        ) from None
    return {load for load in html_loads(html) if load[0] == "script-src"}
