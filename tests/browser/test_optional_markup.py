"""Chromium builds the same page from a template's text as written and as it loads, without
the end tags and quotes HTML does not need (generator/render/optional_markup.py)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser

from generator.render.optional_markup import OptionalMarkup
from generator.render.whitespace import BlockWhitespace
from tests.generator.render.test_optional_markup import CASES, render

PARSE = "h => new DOMParser().parseFromString(h, 'text/html').body.innerHTML"


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_the_page_is_the_same(browser: Browser, text: str, expected: str) -> None:
    page = browser.new_page()
    try:
        # As the build loads a template: its line breaks beside blocks go first.
        written = render(text, [BlockWhitespace])
        loaded = render(text, [BlockWhitespace, OptionalMarkup])
        assert page.evaluate(PARSE, f"<body>{loaded}") == page.evaluate(PARSE, f"<body>{written}")
    finally:
        page.close()
