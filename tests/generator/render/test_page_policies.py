"""The <meta> policy a page carries is the render's: the environment is given the build's
policies (``render.csp.use_policies``), and the plan, which says which pages exist, holds none."""

from __future__ import annotations

import dataclasses

import lxml.html

from generator.plan.site_plan import Page, SitePlan
from generator.render.csp import ContentSecurityPolicy, page_policies, use_policies
from generator.render.pages import build_environment, render_recorded
from generator.shells import SENSITIVE_KINDS
from tests.support.fixture_site import THEME, fixture_plan


def _meta_policy(plan: SitePlan, page: Page, env: object) -> str | None:
    rendered, _ = render_recorded(plan, page, env)  # type: ignore[arg-type]
    found = lxml.html.document_fromstring(rendered.html).xpath(
        "//meta[@http-equiv='Content-Security-Policy']/@content"
    )
    return str(found[0]) if found else None


def test_pages_carry_the_policies_their_environment_was_given() -> None:
    plan = fixture_plan()
    env = build_environment(THEME)
    product = next(page for page in plan.pages if page.kind == "product")
    sensitive = next(page for page in plan.pages if page.kind in SENSITIVE_KINDS)
    assert _meta_policy(plan, product, env) is None  # none given, none carried

    found = page_policies(plan, env)
    # The sensitive pages' told apart from the site's: content of the site's own allowed.
    policies = dataclasses.replace(
        found, site=ContentSecurityPolicy.of({("frame-src", "https://video.example")})
    )
    use_policies(env, policies)
    assert _meta_policy(plan, product, env) == policies.site.meta()
    assert _meta_policy(plan, sensitive, env) == policies.sensitive.meta()
    assert "https://video.example" not in policies.sensitive.meta()
    assert not [field.name for field in dataclasses.fields(SitePlan) if "policy" in field.name]
