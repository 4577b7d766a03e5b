"""Deploy configs for a built site: host files inside the output, server configs beside it.

Two kinds, because of where they may live:

- ``host_files()`` names the files static hosts read *from the published folder*:
  ``.nojekyll`` (GitHub Pages would otherwise drop ``/_assets/``: Jekyll skips folders that start
  with "_"), ``_headers`` (Netlify and Cloudflare Pages: long caching for ``/_assets/``, the
  security headers and the site's Content-Security-Policy) and ``_csp.conf`` (that policy for
  the shipped nginx config, which includes it). All are inert elsewhere: the shipped nginx
  config and the static server refuse to serve them. With a session url (``--session-url``),
  also ``_redirects`` (Netlify: /session/* proxied to the session service).
- ``write_deploy_files(dest)`` copies the repository's ``deploy/`` folder (nginx server block and
  the notes for every host) into ``dest``, a folder that is *not* published - by convention
  ``<out>.deploy`` beside the output (``deploy_dir_for``). With ``site_root`` the nginx ``root``
  is set to that output folder, ready to include.

``nginx_server_block`` is the one place that fills the template, used by both and by the tests
that serve a build with a real nginx.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from generator.errors import ConfigError, WriteError
from generator.shipped import DEPLOY_DIR

SHIPPED_DEPLOY_DIR = DEPLOY_DIR
DEPLOY_FILES = ("nginx.conf", "README.md")
TEMPLATE_ROOT = "root /var/www/storefront;"
TEMPLATE_LISTEN = "listen 80;\n    listen [::]:80;"
TEMPLATE_SERVER_NAME = "server_name _;"
TEMPLATE_SESSION = "proxy_pass http://127.0.0.1:8002;"

NETLIFY_CLOUDFLARE_HEADERS = """\
# Read by Netlify and Cloudflare Pages (never served). Written by `storefront build`.
/_assets/*
  Cache-Control: public, max-age=31536000, immutable
/*
  X-Content-Type-Options: nosniff
  Referrer-Policy: strict-origin-when-cross-origin
"""


#: The policy for nginx, in the output: the shipped server block includes it (its ``root`` and
#: this file's folder are one) and sends ``$storefront_csp`` with every answer.
CSP_FILE = "_csp.conf"
NGINX_CSP = """\
# Written by `storefront build`: the site's Content-Security-Policy, for the shipped nginx.conf
# (`include`d there; reload nginx after a build whose policy changed). Never served.
set $storefront_csp "{policy}";
"""
_NGINX_CSP_LINE = re.compile(r'^set \$storefront_csp "([^"\n]*)";$', re.MULTILINE)
#: The pages that take payment or personal data: their policy replaces the site's for the
#: paths the pattern matches (nginx's ``$uri``: decoded, under the site's path prefix).
NGINX_SENSITIVE_CSP = """\
# The pages that take payment or personal data: a policy the store's content cannot widen.
if ($uri ~ "{pattern}") {{
    set $storefront_csp "{policy}";
}}
"""
_NGINX_SENSITIVE_LINES = re.compile(
    r'^if \(\$uri ~ "([^"\n]*)"\) \{\n    set \$storefront_csp "([^"\n]*)";\n\}$', re.MULTILINE
)
#: The paths a sensitive page may have (the shells' fixed ones): nothing nginx misreads.
_PLAIN_PATH = re.compile(r"^/[A-Za-z0-9._~/-]+$")
HEADERS_SENSITIVE = """\
# The pages that take payment or personal data: their own policy. Netlify sends the last rule's
# that matches; Cloudflare Pages sends both, and a browser enforces each (the stricter wins).
"""
TEMPLATE_CSP_INCLUDE = "include /var/www/storefront/_csp.conf;"


@dataclass(frozen=True, slots=True)
class SensitivePolicy:
    """The policy of the pages that take payment or personal data, and their paths."""

    policy: str
    paths: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ServedPolicies:
    """The policies a build wrote (``read_policies``), as a server sends them."""

    site: str
    sensitive: str | None = None
    pattern: re.Pattern[str] | None = None

    def for_path(self, path: str) -> str:
        """The policy of the page at ``path`` (decoded, under the site's path prefix)."""
        if self.sensitive is not None and self.pattern is not None and self.pattern.match(path):
            return self.sensitive
        return self.site


def deploy_dir_for(out: Path) -> Path:
    """Where deploy configs for ``out`` go: ``<out>.deploy`` beside it, never inside it."""
    return out.with_name(out.name + ".deploy")


def host_files(
    policy: str | None = None,
    *,
    sensitive: SensitivePolicy | None = None,
    session_url: str | None = None,
    site_url: str | None = None,
) -> tuple[tuple[str, bytes], ...]:
    """The files static hosts read from the published folder: (name, content) pairs; with
    the site's Content-Security-Policy, ``_headers`` sends it and ``_csp.conf`` holds it for
    the shipped nginx config (and ``storefront serve``), and ``sensitive``'s for its pages in
    both; with ``session_url`` also Netlify's ``_redirects``, proxying the site's /session/*
    there.

    ``write.output.finish_output`` stages them with the pages, so they arrive together.
    """
    headers = NETLIFY_CLOUDFLARE_HEADERS
    files = [(".nojekyll", b"")]
    if policy is not None:
        for checked in (policy, sensitive.policy if sensitive else ""):
            # Never so: the policy is built from checked sources. A guard for nginx's quoting.
            if any(c in checked for c in '"\\$\n\r'):
                raise WriteError(f"the security policy has a character nginx misreads: {checked}")
        headers += f"  Content-Security-Policy: {policy}\n"
        nginx = NGINX_CSP.format(policy=policy)
        if sensitive is not None and sensitive.paths:
            headers += HEADERS_SENSITIVE
            for path in sensitive.paths:
                for served in (path, path + ".html"):
                    headers += f"{served}\n  Content-Security-Policy: {sensitive.policy}\n"
            pattern = sensitive_pattern(sensitive.paths, _base(site_url))
            nginx += NGINX_SENSITIVE_CSP.format(pattern=pattern, policy=sensitive.policy)
        files.append((CSP_FILE, nginx.encode("utf-8")))
    files.append(("_headers", headers.encode("utf-8")))
    if session_url is not None:
        files.append(("_redirects", netlify_redirects(session_url, site_url).encode("utf-8")))
    return tuple(files)


def sensitive_pattern(paths: tuple[str, ...], base: str) -> str:
    """The regular expression (nginx's and Python's alike) of ``paths`` under ``base``, each
    with or without ``.html``."""
    for path in (*paths, base or "/x"):
        if not _PLAIN_PATH.match(path):
            raise WriteError(f"a page path nginx could misread in a pattern: {path!r}")
    alternatives = "|".join(re.escape(path) for path in sorted(paths))
    return f"^{re.escape(base)}(?:{alternatives})(?:\\.html)?$"


def _base(site_url: str | None) -> str:
    return urlsplit(site_url).path.rstrip("/") if site_url else ""


def read_policy(root: Path) -> str | None:
    """The site's policy the build wrote into the output at ``root`` (``_csp.conf``), or None."""
    found = read_policies(root)
    return found.site if found else None


def read_policies(root: Path) -> ServedPolicies | None:
    """The policies the build wrote into the output at ``root`` (``_csp.conf``), or None."""
    try:
        text = (root / CSP_FILE).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    found = _NGINX_CSP_LINE.search(text)
    if found is None:
        return None
    sensitive = _NGINX_SENSITIVE_LINES.search(text)
    if sensitive is None:
        return ServedPolicies(found.group(1))
    return ServedPolicies(found.group(1), sensitive.group(2), re.compile(sensitive.group(1)))


def netlify_redirects(session_url: str, site_url: str | None) -> str:
    """The proxy rule (status 200: Netlify fetches and passes the answer on, cookies too) from
    the site's session path, under its path prefix, to the session service's /session/."""
    prefix = _base(site_url)
    return (
        "# Read by Netlify (never served). Written by `storefront build --session-url`: the\n"
        "# islands' /session/* endpoints, proxied to the session service on the same site.\n"
        f"{prefix}/session/*  {session_url.rstrip('/')}/session/:splat  200\n"
    )


def write_deploy_files(dest: Path, *, site_root: Path | None = None) -> None:
    """Copy deploy/ (nginx.conf, README.md) into ``dest``; ``site_root`` fills nginx's root."""
    template = read_nginx_template()
    nginx = template if site_root is None else nginx_server_block(template, root=site_root)
    readme = _shipped("README.md").read_text(encoding="utf-8")
    try:
        dest.mkdir(parents=True, exist_ok=True)
        (dest / "nginx.conf").write_text(nginx, encoding="utf-8")
        (dest / "README.md").write_text(readme, encoding="utf-8")
    except OSError as exc:
        raise WriteError(f"{dest}: cannot write deploy files ({exc.strerror or exc})") from None


def read_nginx_template() -> str:
    return _shipped("nginx.conf").read_text(encoding="utf-8")


def nginx_server_block(
    template: str,
    *,
    root: Path,
    listen: str | None = None,
    server_name: str | None = None,
    session: str | None = None,
    base_path: str = "",
) -> str:
    """The shipped server block with ``root`` (absolute), and optionally ``listen``,
    ``server_name`` and ``session`` (the session service's ``host:port``) replaced. Refuses
    values nginx would misread (quotes, ``$``, newlines).

    With ``base_path`` ("/shop", from a site url with a path prefix) the output is served under
    that prefix instead of at the root, by the same rules (``under_prefix``)."""
    for value in (str(root), listen or "", server_name or "", session or "", base_path):
        if any(c in value for c in '"\\$;{}\n\r'):
            raise ConfigError(f"cannot put {value!r} into nginx.conf: it has a special character")
    config = _replace_once(template, TEMPLATE_ROOT, f'root "{root.resolve()}";')
    config = _replace_once(config, TEMPLATE_CSP_INCLUDE, f'include "{root.resolve() / CSP_FILE}";')
    if listen is not None:
        config = _replace_once(config, TEMPLATE_LISTEN, f"listen {listen};")
    if server_name is not None:
        config = _replace_once(config, TEMPLATE_SERVER_NAME, f"server_name {server_name};")
    if session is not None:
        config = _replace_once(config, TEMPLATE_SESSION, f"proxy_pass http://{session};")
    if base_path:
        config = under_prefix(config, root=root.resolve(), base_path=base_path)
    return config


def under_prefix(config: str, *, root: Path, base_path: str) -> str:
    """The server block's locations moved under ``base_path``, each mapped onto the output
    folder with ``alias``: ``/shop/a/b`` is ``a/b.html``, ``/shop/`` is ``index.html``,
    ``/shop`` redirects to ``/shop/``, and nothing outside the prefix is served."""
    b, out = base_path, f'"{root}/'
    for old, new in (
        ("error_page 404 /404.html;", f"error_page 404 {b}/404.html;"),
        ("location / {\n", "location / {\n        return 404;\n    }\n"
         f"    location = {b} {{\n        return 301 {b}/;\n    }}\n"
         f"    location {b}/ {{\n        alias {out}\";\n"),
        ("location = / {\n        try_files /index.html =404;",
         f"location = {b}/ {{\n        alias {out}\";\n        try_files index.html =404;"),
        ("location = /index.html {\n        return 301 /;",
         f"location = {b}/index.html {{\n        return 301 {b}/;"),
        ("location ~ ^/.+/$ {", f"location ~ ^{re.escape(b)}/.+/$ {{"),
        ("location ^~ /_assets/ {\n",
         f"location ^~ {b}/_assets/ {{\n        alias {out}_assets/\";\n"),
        ("location = /404.html {\n",
         f"location = {b}/404.html {{\n        alias {out}404.html\";\n"),
        ("location = /404 {", f"location = {b}/404 {{"),
        ("location = /_headers {", f"location = {b}/_headers {{"),
        ("location = /_redirects {", f"location = {b}/_redirects {{"),
        (f"location = /{CSP_FILE} {{", f"location = {b}/{CSP_FILE} {{"),
        # The islands call the session under the prefix; the service answers at /session/.
        ("location ^~ /session/ {", f"location ^~ {b}/session/ {{"),
    ):  # fmt: skip
        config = _replace_once(config, old, new)
    config = re.sub(r"proxy_pass (http://[^;/]+);", r"proxy_pass \1/session/;", config, count=1)
    return config


def _replace_once(text: str, old: str, new: str) -> str:
    if text.count(old) != 1:
        raise ConfigError(f"deploy/nginx.conf no longer has exactly one {old!r} to replace")
    return text.replace(old, new)


def _shipped(name: str) -> Path:
    path = SHIPPED_DEPLOY_DIR / name
    if not path.is_file():
        raise ConfigError(
            f"deploy/{name} is missing from the installed package ({SHIPPED_DEPLOY_DIR}); "
            "reinstall storefront"
        )
    return path
