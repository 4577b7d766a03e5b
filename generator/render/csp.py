"""The site's Content-Security-Policy, written by the build from what its pages load.

    policy = site_policy(plan, env)
    policy.header()   # for the response header: nginx, _headers, `storefront serve`
    policy.meta()     # for <meta http-equiv>: the same but for frame-ancestors

Everything comes from the site's own origin (``'self'``: pages, assets, the session and the
API under it) but what the pages name elsewhere (``plan.loads.site_loads``: image hosts,
what merchant ``*_html`` fetches) and the theme's inline scripts, allowed by their sha256 hash,
never by ``'unsafe-inline'``. The inline scripts are those of ``partials/islands.html`` (the
import map), rendered here as every page renders it: one fragment, the same on every page.
A theme's ``theme.toml`` snippets add the origins each declares and their inline scripts'
hashes (``theme_settings_loads``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import jinja2

from generator.errors import TemplateError
from generator.loads import Load, html_loads
from generator.plan.loads import site_loads
from generator.plan.site_plan import SitePlan
from generator.render.theme_settings import ThemeSettings

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


def site_policy(plan: SitePlan, env: jinja2.Environment) -> ContentSecurityPolicy:
    return ContentSecurityPolicy.of(
        site_loads(plan) | theme_script_loads(env) | theme_settings_loads(env)
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
