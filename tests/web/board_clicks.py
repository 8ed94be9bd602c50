"""Playing on a board itself (not the shell's list of move buttons): clicking cards, ships,
regions and dice, then one of the moves the board offers for what was clicked (pick.js)."""

from __future__ import annotations

import json
import random
import time

import pytest
import requests
from playwright.sync_api import Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.web.driving import WAIT_MS, missed_again

# What the board offers now: things to click, or the moves left for what was clicked.
PICKABLE = "#board .pickable"
OFFERED = "#board .pick-panel button.pick-cmd"
SHELL_MOVES = "#commands button.cmd:not([disabled])"
# How much of a phone's screen the moves pinned over its bottom take, in pixels (0: not pinned).
PINNED_HEIGHT = """() => { const m = document.querySelector('#commands');
    return m && !m.hidden && getComputedStyle(m).position === 'sticky'
        ? m.getBoundingClientRect().height : 0; }"""


def play_on_board(page: Page, rng: random.Random, max_clicks: int = 3000,
                  after_click=None) -> int:
    """Click on the board until the game is over: a move the board lists for the selection if
    there is one, else something clickable on the board that a player can see (not hidden in a
    closed box). Fails if the player has a move the board does not offer that way (only the
    shell's buttons could make it), or if clicks keep missing. Returns the clicks made.
    ``after_click`` (a callable) is called after every click, e.g. to take a screenshot."""
    clicks = 0
    stuck = misses = 0
    while clicks < max_clicks:
        page.wait_for_selector(f"{PICKABLE}, {OFFERED}, #result, {SHELL_MOVES}", timeout=WAIT_MS)
        if page.locator("#result").count():
            return clicks
        offered = page.locator(OFFERED)
        pickable = page.locator(PICKABLE).filter(visible=True)
        target = offered if offered.count() else pickable
        count = target.count()
        if not count:
            # Only the shell's buttons: the board failed to offer a move, or it is redrawing.
            stuck += 1
            if stuck > 20:
                moves = page.locator(SHELL_MOVES).all_inner_texts()
                pytest.fail(f"the board offers none of these moves: {moves}")
            page.wait_for_timeout(200)
            continue
        stuck = 0
        # However many kinds of move are offered, the board stays in sight and within reach.
        pinned = page.evaluate(PINNED_HEIGHT)
        height = page.viewport_size["height"]
        assert pinned <= height / 2, f"the pinned moves cover {pinned:.0f} of {height} px"
        chosen = target.nth(rng.randrange(count))
        try:
            # Focus first: a map region off its pan-and-zoom box's view is brought into view.
            chosen.evaluate("e => e.focus && e.focus()", timeout=5_000)
            chosen.click(timeout=5_000)
        except PlaywrightTimeout as missed:
            misses = missed_again(misses, missed)
            continue
        clicks += 1
        misses = 0
        if after_click is not None:
            after_click()
    pytest.fail(f"no end after {max_clicks} clicks")


def token(page: Page) -> str:
    return page.evaluate("localStorage.getItem('tablestream.token')")


def api_get(site: str, path: str, bearer: str | None = None) -> dict:
    headers = {"Authorization": f"Bearer {bearer}"} if bearer else {}
    response = requests.get(f"{site}/v1{path}", headers=headers, timeout=10)
    assert response.status_code == 200, response.text
    return response.json()


def api_post(site: str, path: str, body: dict | None, bearer: str, status: int = 200) -> dict:
    headers = {"Authorization": f"Bearer {bearer}"} if bearer else {}
    response = requests.post(f"{site}/v1{path}", json=body, timeout=10, headers=headers)
    assert response.status_code == status, response.text
    return response.json()


def send(site: str, game_id: str, bearer: str, command: dict) -> dict:
    """POST a command as the player holding ``bearer``, at the game's current version."""
    version = api_get(site, f"/games/{game_id}")["version"]
    return api_post(site, f"/games/{game_id}/commands", {**command, "expected_version": version},
                    bearer)


def new_player(site: str, name: str) -> str:
    return api_post(site, "/players", {"name": name}, "", status=201)["token"]


def open_as(page: Page, site: str, bearer: str, game_id: str) -> None:
    """Open a game's table in the page as the player holding ``bearer``."""
    page.goto("/play/")
    page.evaluate(f"localStorage.setItem('tablestream.token', {json.dumps(bearer)})")
    page.goto(f"/play/#/games/{game_id}")
    page.reload()
    page.locator("#version").wait_for()


def wait_until(predicate, message: str, timeout: float = 30):
    """Poll ``predicate`` until it is truthy; its value."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    pytest.fail(f"timed out waiting for {message}")
