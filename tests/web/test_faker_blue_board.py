"""Faker Blue's board (service/web/static/boards/faker_blue.js) on a phone (issue 27 item 4): a
card in your hand is chosen by tapping it on the board, then the moves panel, in view, asks only
what to do with it (what to say it is, at whom) until one move is left to send. By touch and by
keyboard alone; axe-core finds nothing serious with a card chosen."""

from __future__ import annotations

import json
import random

import pytest

from tests.web.board_clicks import api_get, token
from tests.web.conftest import PHONE, SCREENSHOTS
from tests.web.driving import MOVES, WAIT_MS, create_game, in_view, play_to_end, sign_in
from tests.web.test_screens import axe_violations

pytestmark = pytest.mark.e2e

# A card of your hand you may use or defend with now (a toggle button); the one chosen.
CHOOSABLE = "#board .faker-blue button.playing-card[aria-pressed]"
CHOSEN = "#board .faker-blue button.playing-card[aria-pressed='true']"
# The panel's next question about the chosen card, and its moves ready to send.
STEPS = "#commands button.cmd.narrow:not([disabled])"
READY = "#commands button.cmd:not(.narrow):not([disabled])"


@pytest.fixture
def page(browser, site):
    """A phone-sized page whose context lets axe-core in past the site's CSP (test_screens);
    the page's own errors are collected and must stay none."""
    context = browser.new_context(viewport=PHONE, base_url=site, bypass_csp=True)
    context.set_default_timeout(30_000)
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    yield page
    context.close()


def version(page) -> int:
    return int(page.locator("#version").inner_text())


def until_a_card_can_be_chosen(page, rng: random.Random) -> None:
    """Make moves from the panel (challenges, passes) until a card of the hand is choosable."""
    for _ in range(60):
        page.wait_for_selector(f"{MOVES}, #result", timeout=WAIT_MS)
        if page.locator(CHOOSABLE).count():
            return
        assert not page.locator("#result").count(), "the game ended before a card could be used"
        play_to_end(page, rng, stop_after=1)
    pytest.fail("no card of the hand became choosable in 60 moves")


def hand(page, site: str, game_id: str) -> list[str]:
    """The page's player's hand as the API shows it to them."""
    return api_get(site, f"/games/{game_id}", token(page))["view"]["hand"]


def test_a_faker_blue_turn_is_played_by_tapping_a_card_on_the_board(page, site):
    sign_in(page, "fay")
    game_id = create_game(page, "faker_blue", ["bot:basic", "bot:basic"])
    until_a_card_can_be_chosen(page, random.Random(1))
    before = version(page)
    every = len(api_get(site, f"/games/{game_id}", token(page))["legal_commands"])

    card = page.locator(CHOOSABLE).first
    name = card.locator(".card-name").inner_text()
    card_id = card.get_attribute("data-key").removeprefix("fb-card:")
    assert card_id in hand(page, site, game_id)
    card.click()

    # The card shows chosen, alone; the panel says so and asks only about it, in view.
    assert page.locator(CHOSEN).count() == 1
    assert page.locator(CHOSEN).locator(".card-name").inner_text() == name
    assert page.locator("#commands .chooser-picked").inner_text().startswith(f"Card: {name}")
    assert in_view(page, page.locator(f"{STEPS}, {READY}").first)
    assert not any(text.startswith("Card: ") for text in page.locator(STEPS).all_inner_texts())
    assert "Take the hit (no defence)" not in page.locator(READY).all_inner_texts()
    violations = axe_violations(page)
    assert violations == [], json.dumps(violations, indent=1)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=SCREENSHOTS / "faker_blue-card-chosen-phone.png")

    # Answer the panel's questions (what to call it, at whom) until one move is left: send it.
    while page.locator(STEPS).count():
        assert in_view(page, page.locator(STEPS).first)
        page.locator(STEPS).first.click()
    ready = page.locator(READY)
    assert 1 <= ready.count() < every
    assert all(name in text for text in ready.all_inner_texts()), ready.all_inner_texts()
    assert in_view(page, ready.first)
    ready.first.click()
    page.wait_for_function("v => Number(document.getElementById('version').textContent) > v",
                           arg=before)

    assert card_id not in hand(page, site, game_id)  # used or defended with: it left the hand
    assert page.errors == []


def test_a_card_is_chosen_unchosen_and_played_with_the_keyboard_alone(page, site):
    sign_in(page, "kit")
    game_id = create_game(page, "faker_blue", ["bot:basic", "bot:basic"])
    until_a_card_can_be_chosen(page, random.Random(4))
    before = version(page)
    all_moves = page.locator(f"{MOVES}").all_inner_texts()

    # Enter on a card chooses it and takes the keyboard to the panel's first choice.
    page.locator(CHOOSABLE).first.focus()
    key = page.evaluate("document.activeElement.dataset.key")
    page.keyboard.press("Enter")
    assert page.locator(CHOSEN).count() == 1
    assert page.evaluate("document.getElementById('commands').contains(document.activeElement)")

    # Space on the chosen card unchooses it: every move is offered again.
    page.locator(f"[data-key='{key}']").focus()
    page.keyboard.press("Space")
    assert page.locator(CHOSEN).count() == 0
    assert page.locator("#commands .chooser-picked").count() == 0
    assert page.locator(f"{MOVES}").all_inner_texts() == all_moves

    # Chosen again, then Enter on the focused answer, step after step, sends a move.
    page.locator(f"[data-key='{key}']").focus()
    page.keyboard.press("Enter")
    for _ in range(6):
        if version(page) > before:
            break
        assert page.evaluate("document.getElementById('commands')"
                             ".contains(document.activeElement)")
        page.keyboard.press("Enter")
        page.wait_for_timeout(100)
    page.wait_for_function("v => Number(document.getElementById('version').textContent) > v",
                           arg=before)
    assert key.removeprefix("fb-card:") not in hand(page, site, game_id)
    assert page.errors == []
