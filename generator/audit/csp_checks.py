"""What a page holds that its own Content-Security-Policy refuses: a script, a frame or
another load of the store's content the browser will block (``page-csp-refused``).

The build allows content only what the theme declares (``theme.toml`` ``[embeds]``) and never
on the pages that take payment or personal data; this names each page where that leaves a
merchant's script or embed blocked, so the merchant knows it did not run.
"""

from __future__ import annotations

from generator.audit.findings import Finding, warning
from generator.audit.site import Page
from generator.render.csp import FALLS_BACK, refusal


def check_policy(page: Page, origin: str | None) -> list[Finding]:
    if page.policy is None:
        return []
    allowed = {words[0]: words[1:] for part in page.policy.split(";") if (words := part.split())}
    return [
        warning("page-csp-refused", page.file, refusal(load))
        for load in sorted(page.loads)
        if not _allows(allowed, load, origin)
    ]


def _allows(allowed: dict[str, list[str]], load: tuple[str, str], origin: str | None) -> bool:
    directive, source = load
    sources = allowed.get(directive)
    if sources is None and directive in FALLS_BACK:
        sources = allowed.get("default-src")
    if not sources:
        return False
    if source in sources or (source == origin and "'self'" in sources):
        return True
    scheme, _, host = source.partition("://")
    return any(
        allowed_source.startswith(f"{scheme}://*.")
        and host.endswith(allowed_source.partition("://*")[2])
        for allowed_source in sources
    )
