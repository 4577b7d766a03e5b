"""Each page's policy: merchant content cannot widen the policy of the pages that take payment
or personal data, and elsewhere it loads only what the theme's settings declare.

A product description holds the three scripts a probe tried (inline, inside <svg>, and from
another host). The fixture store is written through the write stage a build uses, then each
page's policy is read where every host reads it: the page's <meta>, ``_headers`` (Netlify's
and Cloudflare's reading of it), ``storefront serve`` and the preview server (``_csp.conf``)."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import anyio
import httpx
import pytest

from generator.loads import script_hash
from generator.model import Product
from generator.plan.paths import output_name
from generator.plan.site_plan import plan_site
from generator.serve.app import site_app
from generator.serve.static import serving
from tests.generator.write.test_csp import directives, meta_policy
from tests.support.fixture_site import THEME, write_plan
from tests.support.fixture_store import SITE_URL, small_catalog, with_product

INLINE = "window.ranInline = 1"
IN_SVG = "window.ranSvg = 1"
EVIL = "https://evil.test"
DESCRIPTION = (
    f"<p>Áo đẹp</p><script>{INLINE}</script>"
    f"<svg><script>{IN_SVG}</script></svg>"
    f"<script src={EVIL}/x.js></script>"
    '<iframe src="https://www.youtube-nocookie.com/embed/abc"></iframe>'
)
HASHES = (script_hash(INLINE), script_hash(IN_SVG))
#: The pages that take payment or personal data, at their output files.
SENSITIVE = {
    "/gio-hang": "gio-hang.html",
    "/thanh-toan": "thanh-toan.html",
    "/thanh-toan/ket-qua": "thanh-toan/ket-qua.html",
    "/tai-khoan": "tai-khoan.html",
}
EMBEDS = """
[embeds]
frame-src = ["https://www.youtube-nocookie.com"]
"""


def build(tmp_path: Path, settings: str | None = None) -> tuple[Path, str]:
    """The fixture store, its first product described by DESCRIPTION, written with the default
    theme (and ``settings`` as its theme.toml); the output and that product's page file."""
    theme = tmp_path / "theme"
    shutil.copytree(THEME, theme)
    if settings is not None:
        (theme / "theme.toml").write_text(settings, encoding="utf-8")

    def describe(product: Product) -> Product:
        return dataclasses.replace(product, description_html=DESCRIPTION)

    catalog = with_product(small_catalog(), 0, describe)
    out = tmp_path / "out"
    write_plan(plan_site(catalog, SITE_URL), out, theme=theme)
    product = next(p for p in plan_site(catalog, SITE_URL).pages if p.kind == "product")
    page = output_name(product.path)
    assert DESCRIPTION in (out / page).read_text(encoding="utf-8")
    return out, page


def headers_rules(out: Path) -> list[tuple[str, str]]:
    """``_headers``'s Content-Security-Policy rules in order: (path pattern, policy)."""
    rules: list[tuple[str, str]] = []
    pattern = ""
    for line in (out / "_headers").read_text(encoding="utf-8").splitlines():
        if line.startswith("/"):
            pattern = line.strip()
        elif line.startswith("  Content-Security-Policy: "):
            rules.append((pattern, line.split(": ", 1)[1]))
    return rules


def _matches(pattern: str, path: str) -> bool:
    if pattern.endswith("/*"):
        return path.startswith(pattern[:-1])
    return pattern == path


def host_policies(out: Path, path: str) -> dict[str, list[str]]:
    """Each policy a browser enforces on ``path``, by where it comes from. Netlify sends the
    last matching rule's value of a header; Cloudflare Pages joins them all, and a browser then
    enforces each (a request must pass every one)."""
    matching = [policy for pattern, policy in headers_rules(out) if _matches(pattern, path)]

    async def served(p: str) -> str:
        transport = httpx.ASGITransport(app=site_app(out))
        async with httpx.AsyncClient(transport=transport, base_url="http://shop.test") as client:
            return (await client.get(p)).headers["content-security-policy"]

    with serving(out) as base:
        preview = httpx.get(base + path).headers["content-security-policy"]
    return {
        "netlify": matching[-1:],
        "cloudflare": matching,
        "serve": [anyio.run(served, path)],
        "preview": [preview],
    }


def loads_any(policy: str, sources: tuple[str, ...]) -> bool:
    return any(source in policy.split() for source in sources)


def test_sensitive_pages_allow_no_content_script_whatever_the_host(tmp_path: Path) -> None:
    out, _ = build(tmp_path)
    for path, file in SENSITIVE.items():
        meta = meta_policy(out / file)
        assert not loads_any(meta, (*HASHES, EVIL)), path
        assert "https://www.youtube-nocookie.com" not in meta, path
        # The images the cart and checkout show (any product's) stay allowed.
        assert "https://cdn.example.vn" in directives(meta)["img-src"], path
        for host, policies in host_policies(out, path).items():
            assert policies, (host, path)
            # Each enforced policy must refuse them, or one that refuses them must be enforced.
            strict = [p for p in policies if not loads_any(p, (*HASHES, EVIL))]
            assert strict, (host, path, policies)
            assert directives(strict[0])["img-src"] == directives(meta)["img-src"], (host, path)


def test_elsewhere_content_loads_only_the_hosts_the_theme_declares(tmp_path: Path) -> None:
    out, product = build(tmp_path, EMBEDS)
    policy = meta_policy(out / product)
    # Declared: the YouTube frame. Not declared: the script host. Inline: off by default.
    assert "https://www.youtube-nocookie.com" in directives(policy)["frame-src"]
    assert not loads_any(policy, (*HASHES, EVIL))
    path = next(p.path for p in plan_site(small_catalog(), SITE_URL).pages if p.kind == "product")
    for host, policies in host_policies(out, path).items():
        assert policies == [policies[0]] * len(policies) and policies, host
        header = directives(policies[0])
        assert header.pop("frame-ancestors") == ["'self'"]
        assert header == directives(policy), host
    # The checkout does not take the declared frame host either.
    assert "https://www.youtube-nocookie.com" not in meta_policy(out / "thanh-toan.html")


def test_without_declared_hosts_content_opens_nothing_but_images(tmp_path: Path) -> None:
    out, product = build(tmp_path)
    policy = directives(meta_policy(out / product))
    assert set(policy) == set(directives(meta_policy(out / "index.html")))
    assert "frame-src" not in policy and "script-src" not in policy
    assert policy["default-src"] == ["'self'"]


def test_inline_content_scripts_only_by_the_themes_setting_and_never_on_checkout(
    tmp_path: Path,
) -> None:
    widget = "https://widget.example.org"
    out, product = build(tmp_path, EMBEDS + f'script-src = ["{widget}"]\ninline_scripts = true\n')
    assert {*HASHES, widget} <= set(directives(meta_policy(out / product))["script-src"])
    for path, file in SENSITIVE.items():
        assert not loads_any(meta_policy(out / file), (*HASHES, widget)), path
        for host, policies in host_policies(out, path).items():
            assert [p for p in policies if not loads_any(p, (*HASHES, widget))], (host, path)


def test_a_bad_embed_setting_is_one_line_naming_its_key(tmp_path: Path) -> None:
    from generator.errors import ConfigError
    from generator.render.theme_settings import ThemeSettings

    for text, key in (
        ('[embeds]\nscript-src = ["https://a.vn; script-src *"]\n', "embeds.script-src"),
        ('[embeds]\nform-action = ["https://a.vn"]\n', "embeds.form-action"),
        ("[embeds]\ninline_scripts = 1\n", "embeds.inline_scripts"),
    ):
        (tmp_path / "theme.toml").write_text(text, encoding="utf-8")
        with pytest.raises(ConfigError, match=rf"^theme\.toml: (?:unknown setting )?{key}\b"):
            ThemeSettings.load(tmp_path)


def test_the_sensitive_pages_are_the_shells_that_take_payment_or_personal_data() -> None:
    pages = {p.path: p.kind for p in plan_site(small_catalog(), SITE_URL).pages}
    assert {path: pages[path] for path in SENSITIVE} == {
        "/gio-hang": "cart",
        "/thanh-toan": "checkout",
        "/thanh-toan/ket-qua": "payment_return",
        "/tai-khoan": "account",
    }


def test_the_build_summary_warns_of_each_content_script_not_allowed(tmp_path: Path) -> None:
    import io
    from collections import Counter

    from generator.console import PlainConsole
    from generator.render.pages import build_environment
    from generator.summary import BuildSummary, print_summary
    from generator.write.site import write_incremental

    theme = tmp_path / "theme"
    shutil.copytree(THEME, theme)
    (theme / "theme.toml").write_text(EMBEDS, encoding="utf-8")

    def describe(product: Product) -> Product:
        return dataclasses.replace(product, description_html=DESCRIPTION)

    plan = plan_site(with_product(small_catalog(), 0, describe), SITE_URL)
    result = write_incremental(
        plan, build_environment(theme), tmp_path / "out", theme_dir=theme, previous=None
    )
    product = next(p.path for p in plan.pages if p.kind == "product")
    warnings = result.warnings
    assert any(product in w and "inline script" in w for w in warnings), warnings
    assert any(EVIL in w and "[embeds] script-src" in w for w in warnings), warnings
    assert not any("youtube" in w for w in warnings), warnings  # declared: allowed
    summary = BuildSummary(
        out_dir=Path("out"), pages_by_kind=Counter({"product": 1}), files=1, bytes=1,
        sitemap_files=(), requests=0, retries=0, rate_limited=0, waited_seconds=0.0,
        skipped=(), seconds=1.0, source="x", warnings=warnings,
    )  # fmt: skip
    text = io.StringIO()
    print_summary(summary, PlainConsole(text))
    for warning in warnings:
        assert f"  warning: {warning}\n" in text.getvalue()


def test_the_audit_warns_of_a_script_its_page_policy_refuses(tmp_path: Path) -> None:
    from tests.generator.audit.fixture_site import run_audit

    out, product = build(tmp_path, EMBEDS)
    found = [f for f in run_audit(out, site_url=SITE_URL).findings if f.check == "page-csp-refused"]
    assert {f.severity.value for f in found} == {"warning"}
    assert {f.where.split(":")[0] for f in found} == {product}
    messages = " ".join(f.message for f in found)
    assert messages.count("inline script") == 2 and EVIL in messages
    assert "youtube" not in messages


def test_nginx_sends_each_page_its_policy(tmp_path: Path) -> None:
    from tests.generator.test_deploy_nginx import running_nginx

    out, product = build(tmp_path)
    pages = {path: meta_policy(out / file) for path, file in SENSITIVE.items()}
    pages["/" + product.removesuffix(".html")] = meta_policy(out / product)
    with running_nginx(out, tmp_path / "nginx") as base, httpx.Client() as client:
        for path, meta in pages.items():
            for served in (path, path + ".html") if path in SENSITIVE else (path,):
                header = client.get(base + served).headers["content-security-policy"]
                assert header == meta + "; frame-ancestors 'self'", served
    for path in SENSITIVE:
        assert not loads_any(pages[path], (*HASHES, EVIL)), path


def test_a_declared_wildcard_origin_covers_the_hosts_under_it() -> None:
    from generator.render.csp import allowed_from_content
    from generator.render.theme_settings import Embeds

    embeds = Embeds(origins=(("frame-src", "https://*.youtube.com"),))
    assert allowed_from_content(("frame-src", "https://www.youtube.com"), embeds)
    assert not allowed_from_content(("script-src", "https://www.youtube.com"), embeds)
    assert not allowed_from_content(("frame-src", "https://youtube.com.evil.test"), embeds)
    assert not allowed_from_content(("script-src", HASHES[0]), embeds)
    assert allowed_from_content(("script-src", HASHES[0]), Embeds(inline_scripts=True))
    assert allowed_from_content(("img-src", EVIL), embeds)
