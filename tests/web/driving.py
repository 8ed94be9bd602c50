"""Driving the web client like a person: through labels, buttons and the slider only."""

from __future__ import annotations

import random

import pytest
from playwright.sync_api import Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

# Each title against bots, as the full-game tests play it; War of the Ring on its smallest map
# (README: `scenario` south). Values: the seats after yours, and the options as the form lists them.
BOT_TABLES = {
    "loot": (["bot:basic"], {}),
    "maskmen": (["bot:basic", "bot:basic"], {}),
    "faker_blue": (["bot:basic", "bot:basic"], {}),
    "magblast": (["bot:basic", "bot:basic"], {}),
    "wotr": (["bot:basic"], {"scenario": '"south"'}),
}

# The enabled move buttons of the table (the shell shows every legal command as one).
MOVES = "#commands button.cmd:not([disabled])"
# How long a bot or the server may take before the page shows the next decision.
WAIT_MS = 90_000
# Clicks in a row that may miss (the page redrawn under the pointer) before a clicker gives up.
MISSES_ALLOWED = 30


# True when a move button shows on screen as the page stands, unscrolled and uncovered: the
# point at the middle of one of them is that button.
MOVE_IN_VIEW = """() => [...document.querySelectorAll('#commands button.cmd:not([disabled])')]
  .some((b) => {
    const r = b.getBoundingClientRect();
    if (!r.width || r.top < 0 || r.left < 0) return false;
    if (r.bottom > innerHeight || r.right > innerWidth) return false;
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return hit !== null && b.contains(hit);
})"""


def in_view(page: Page, button=None) -> bool:
    """Whether a move button (or ``button``) shows whole in the viewport, not covered, as the
    page stands (no scrolling)."""
    if button is None:
        return page.evaluate(MOVE_IN_VIEW)
    return button.evaluate("""b => { const r = b.getBoundingClientRect();
        return r.width > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight
            && r.right <= innerWidth; }""")


def moves_in_view(page: Page, timeout_ms: int = 3_000) -> bool:
    """Whether a move button comes into view by itself (a redraw may be under way)."""
    try:
        page.wait_for_function(MOVE_IN_VIEW, timeout=timeout_ms)
    except PlaywrightTimeout:
        return False
    return True


def page_width_overflow(page: Page) -> int:
    """How many pixels the page is wider than the viewport (0: no horizontal scroll)."""
    return page.evaluate("document.documentElement.scrollWidth - innerWidth")


def sign_in(page: Page, name: str) -> None:
    page.goto("/")
    page.get_by_label("Your name").fill(name)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("heading", name="New game").wait_for()


def join_in_another_browser(browser, site: str, game_id: str, name: str, viewport: dict) -> Page:
    """A second player, in a browser context of its own, signed in and seated in the game."""
    other = browser.new_context(viewport=viewport, base_url=site).new_page()
    sign_in(other, name)
    other.goto(f"/#/games/{game_id}")
    other.get_by_role("button", name="Join this game").click()
    return other


def create_game(page: Page, game: str, seats: list[str], options: dict[str, str] | None = None,
                ) -> str:
    """Create a ``game`` with you in seat 1 and ``seats`` ("bot:basic", "human") after you;
    ``options`` are chosen in the form's option fields (values as the form lists them).
    Returns the new game's id, from the page's address."""
    page.get_by_label("Game", exact=True).select_option(game)
    page.get_by_label("Players").select_option(str(len(seats) + 1))
    for index, kind in enumerate(seats, start=1):
        page.get_by_label(f"Seat {index + 1}").select_option(kind)
    if options:
        page.locator("summary", has_text="Options").click()
        for name, value in options.items():
            page.locator(f"#opt-{name}").select_option(value)
    page.get_by_role("button", name="Create game").click()
    page.wait_for_url("**/#/games/*")
    page.locator("#version").wait_for()
    return page.url.rsplit("/", 1)[1]


def missed_again(misses: int, missed: Exception) -> int:
    """One more missed click in a row: the page moved on under the pointer (a bot, a clock), so
    look again, but not forever."""
    if misses >= MISSES_ALLOWED:
        pytest.fail(f"{MISSES_ALLOWED} clicks in a row missed; the last: {missed}")
    return misses + 1


def play_to_end(page: Page, rng: random.Random, max_clicks: int = 4000,
                screenshot=None, stop_after: int | None = None, each=None) -> int:
    """Click a random move button until the game is over (or ``stop_after`` clicks); the
    number of clicks. ``screenshot`` (a callable) is called once, after a few moves, with the
    page mid-game; ``each`` (a callable) with the button about to be clicked."""
    clicks = misses = 0
    while clicks < max_clicks:
        if clicks == stop_after:
            return clicks
        try:
            page.wait_for_selector(f"{MOVES}, #result", timeout=WAIT_MS)
        except PlaywrightTimeout:
            pytest.fail(f"after {clicks} clicks, neither a move nor the result shows:\n"
                        f"{page.locator('main').inner_text()}")
        if page.locator("#result").count():
            return clicks
        buttons = page.locator(MOVES)
        count = buttons.count()
        if not count:
            continue  # redrawn meanwhile: look again
        button = buttons.nth(rng.randrange(count))
        try:
            if each is not None:
                each(button)
            button.click(timeout=5_000)
        except PlaywrightTimeout as missed:
            misses = missed_again(misses, missed)
            continue
        clicks += 1
        misses = 0
        if clicks == 6 and screenshot is not None:
            page.wait_for_selector(f"{MOVES}, #result", timeout=WAIT_MS)
            screenshot()
    pytest.fail(f"no end after {max_clicks} clicks")
