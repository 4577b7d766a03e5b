"""Browser tests: Playwright drives Debian's Chromium (never a downloaded browser) through the
demo store served by `storefront serve`'s stack with the real companion over loopback."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Playwright, sync_playwright

from tests.browser.live_server import live_server
from tests.support.demo_build import build_demo_site

CHROMIUM = "/usr/bin/chromium"
HERE = Path(__file__).parent
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]  # fmt: skip


def mark_browser_tests(items: list[pytest.Item], folder: Path) -> None:
    """Every test in ``folder`` drives Chromium: marked `browser` whatever its module says."""
    for item in items:
        if folder in item.path.parents:
            item.add_marker(pytest.mark.browser)


@pytest.hookimpl(tryfirst=True)  # before `-m` selects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    mark_browser_tests(items, HERE)


@pytest.fixture(scope="session")
def demo_output(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_demo_site(tmp_path_factory.getbasetemp())


@pytest.fixture(scope="session")
def origin(demo_output: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    database = tmp_path_factory.mktemp("browser-db") / "companion.sqlite3"
    with live_server(demo_output, database) as served:
        yield served


# Module scope: Playwright's sync API keeps an event loop running in this thread while it is
# open, which the async tests of other packages cannot share; it closes with each module.
@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    if not Path(CHROMIUM).is_file():
        pytest.fail(f"{CHROMIUM} is missing: `make test` installs Debian's chromium", False)
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="module")
def browser(playwright: Playwright) -> Iterator[Browser]:
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    yield browser
    browser.close()


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    context = browser.new_context(locale="vi-VN")
    context.set_default_timeout(15_000)
    yield context
    context.close()


@pytest.fixture
def page(context: BrowserContext) -> Page:
    return context.new_page()
