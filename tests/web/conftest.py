"""Browser fixtures: the real `tablestream serve` (API, embedded-Redis test server, a job worker
for the bots) and Debian's chromium driven by Playwright. Never `playwright install`: the
browser is the system's /usr/bin/chromium (`make browser` installs it)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.e2e.conftest import serving

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
PHONE = {"width": 390, "height": 844}
DESK = {"width": 1280, "height": 800}
# The two screens every board is played and photographed on (issue 27).
SIZES = {"phone": PHONE, "desk": DESK}
# Where the boards' screenshots go, for a person to look at (.gitignore'd).
SCREENSHOTS = Path(os.environ.get("WEB_SCREENSHOTS", Path(__file__).parent / "screenshots"))

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def site(redis_url, tmp_path_factory) -> Iterator[str]:
    """`tablestream serve` (one API process, one job worker for bots and clocks) on a free
    port; yields the site's origin, e.g. http://127.0.0.1:PORT."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ACCESS_LOG", "0")  # a line per request would drown the test's output
        with serving(redis_url, tmp_path_factory.mktemp("web"), "--web-workers", "1",
                     "--job-workers", "1") as base:
            yield base.removesuffix("/v1")


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(f"{CHROMIUM} is missing: `make browser` installs Debian's chromium")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


class Requests:
    """Every URL the page asked for, and the browser's console errors."""

    def __init__(self) -> None:
        self.urls: list[str] = []
        self.errors: list[str] = []
        self.warnings: list[str] = []

    def foreign(self, origin: str) -> list[str]:
        """The requests that went anywhere but ``origin`` (blob: downloads are the page's own)."""
        return [url for url in self.urls if not url.startswith("blob:")
                and f"{urlsplit(url).scheme}://{urlsplit(url).netloc}" != origin]


@pytest.fixture
def seen() -> Requests:
    return Requests()


@pytest.fixture
def page(browser, site, seen):
    """A fresh phone-sized page (390x844, its own storage) recording its requests."""
    context = browser.new_context(viewport=PHONE, accept_downloads=True, base_url=site)
    context.set_default_timeout(30_000)
    page = context.new_page()
    page.on("request", lambda request: seen.urls.append(request.url))
    page.on("pageerror", lambda error: seen.errors.append(str(error)))
    page.on("console", lambda message: message.type == "warning"
            and seen.warnings.append(message.text))
    yield page
    if seen.warnings:
        print("the page warned:", *seen.warnings, sep="\n  ")
    context.close()
