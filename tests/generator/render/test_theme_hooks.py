"""theme.toml's hooks: head and end-of-body snippets under a policy that allows exactly the
origins each declares (and its inline scripts by hash), and the ecommerce events switch."""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path

import pytest

from generator.errors import ConfigError
from generator.render.csp import FALLS_BACK
from generator.render.theme_settings import ThemeSettings
from generator.write.host_files import read_policy
from tests.support.fixture_site import write_with_settings

INLINE = "window.dataLayer=window.dataLayer||[];dataLayer.push({verified:1})"
SETTINGS = f"""
[analytics]
ecommerce_events = true

[[snippets]]
name = "tag manager"
place = "head"
html = '''
<script async src="https://www.googletagmanager.com/gtag/js?id=G-1"></script>
<script>{INLINE}</script>
'''
script-src = ["https://www.googletagmanager.com"]
connect-src = ["https://*.google-analytics.com"]

[[snippets]]
place = "body_end"
html = '<div id="chat" data-chat="1"></div>'
"""


def sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def directive(policy: str, name: str) -> list[str]:
    """The sources ``name`` allows: its own, or default-src's when the policy leaves it out."""
    found = re.search(rf"(?:^|; ){name} ([^;]*)", policy)
    if found is None and name in FALLS_BACK:
        found = re.search(r"(?:^|; )default-src ([^;]*)", policy)
    assert found is not None, name
    return found.group(1).split()


def test_snippets_are_in_every_page_and_the_policy_allows_exactly_their_origins(
    tmp_path: Path,
) -> None:
    plain = read_policy(write_with_settings(tmp_path / "plain", None))
    out = write_with_settings(tmp_path / "hooked", SETTINGS)
    policy = read_policy(out)
    assert plain is not None and policy is not None
    added = {
        name: sorted(set(directive(policy, name)) - set(directive(plain, name)))
        for name in ("script-src", "connect-src", "img-src", "style-src", "frame-src")
    }
    assert added == {
        "script-src": sorted(["https://www.googletagmanager.com", sha256(INLINE)]),
        "connect-src": ["https://*.google-analytics.com"],
        "img-src": [],
        "style-src": [],
        "frame-src": [],
    }
    home = (out / "index.html").read_text(encoding="utf-8")
    head, body = home.split("</head>")
    assert head.rstrip().endswith(f"<script>{INLINE}</script>")
    assert body.rstrip().endswith('<div id="chat" data-chat="1"></div>\n</body></html>')
    assert '<html lang="vi" data-ecommerce="ga4">' in home
    meta = policy.replace("; frame-ancestors 'self'", "")
    assert f'content="{meta}"' in home.replace("&#39;", "'")


def test_without_settings_no_snippet_and_no_ecommerce_switch(tmp_path: Path) -> None:
    home = (write_with_settings(tmp_path, None) / "index.html").read_text(encoding="utf-8")
    assert "data-ecommerce" not in home
    assert "googletagmanager" not in home


def test_a_snippet_loading_from_an_undeclared_origin_is_refused(tmp_path: Path) -> None:
    (tmp_path / "theme.toml").write_text(
        SETTINGS.replace('script-src = ["https://www.googletagmanager.com"]\n', ""),
        encoding="utf-8",
    )
    with pytest.raises(ConfigError) as caught:
        ThemeSettings.load(tmp_path)
    assert str(caught.value) == (
        "theme.toml: snippets[0].html loads from https://www.googletagmanager.com: "
        "add it to snippets[0].script-src"
    )


@pytest.mark.parametrize(
    ("origin", "key"),
    [
        ("'unsafe-eval'", "snippets[0].script-src"),
        ("https://a.vn; script-src *", "snippets[0].script-src"),
        ("*", "snippets[0].script-src"),
    ],
)
def test_a_bad_origin_is_one_line_naming_its_key(tmp_path: Path, origin: str, key: str) -> None:
    (tmp_path / "theme.toml").write_text(
        SETTINGS.replace(
            '"https://www.googletagmanager.com"]',
            f'"https://www.googletagmanager.com", "{origin}"]',
        ),
        encoding="utf-8",
    )
    with pytest.raises(ConfigError, match=rf"^theme\.toml: {re.escape(key)} must be origins"):
        ThemeSettings.load(tmp_path)


def test_a_snippet_may_not_open_form_action_to_other_origins(tmp_path: Path) -> None:
    (tmp_path / "theme.toml").write_text(
        '[[snippets]]\nplace = "body_end"\nhtml = \'<form action="https://evil.example"></form>\'\n',
        encoding="utf-8",
    )
    with pytest.raises(
        ConfigError, match=r"snippets\[0\]\.html uses https://evil\.example for form-action"
    ):
        ThemeSettings.load(tmp_path)
