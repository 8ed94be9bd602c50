"""The web client as a person and a browser see it: keyboard only, the phone viewport, its
network traffic, the live table and the clocks (issue 15)."""

from __future__ import annotations

import random
import re
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import requests
import yaml

from tests.web.conftest import PHONE
from tests.web.driving import MOVES, WAIT_MS, create_game, play_to_end, sign_in

pytestmark = pytest.mark.e2e

OPENAPI = Path(__file__).parents[2] / "openapi.yaml"


def documented_paths() -> list[re.Pattern[str]]:
    """The API's paths from openapi.yaml, as patterns ({game_id} matches one segment)."""
    paths = yaml.safe_load(OPENAPI.read_text())["paths"]
    return [re.compile("^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(p)) + "$")
            for p in paths]


def token_of(page) -> str:
    return page.evaluate("localStorage.getItem('tablestream.token')")


def test_the_page_asks_only_its_own_origin_and_only_documented_api_paths(page, site, seen):
    sign_in(page, "ann")
    create_game(page, "loot", ["bot:basic"])
    play_to_end(page, random.Random(1), stop_after=3)
    page.get_by_role("link", name="← Lobby").click()
    page.get_by_role("heading", name="Your games").wait_for()
    page.locator("#my-games li").first.wait_for()

    assert seen.urls and seen.foreign(site) == []
    documented = documented_paths()
    api = [urlsplit(url).path for url in seen.urls if urlsplit(url).path.startswith("/v1/")]
    assert api
    assert [p for p in api if not any(d.match(p) for d in documented)] == []
    # The rest is the page's own files.
    assert {urlsplit(url).path.split("/")[1] for url in seen.urls
            if not urlsplit(url).path.startswith("/v1/")} <= {"", "play"}


def test_keyboard_alone_signs_in_creates_a_game_and_makes_moves(page):
    page.goto("/")
    page.get_by_label("Your name").wait_for()
    assert page.evaluate("document.activeElement.id") == "signin-name"
    page.keyboard.type("kim")
    page.keyboard.press("Enter")
    page.get_by_role("heading", name="New game").wait_for()

    tab_to(page, "#create-game")
    page.keyboard.press("Enter")
    page.wait_for_url("**/#/games/*")
    for key in ("Enter", " "):
        page.wait_for_selector(MOVES, timeout=WAIT_MS)
        before = int(page.locator("#version").inner_text())
        tab_to(page, MOVES)
        outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
        assert outline != "none"  # the focused control is visibly marked
        page.keyboard.press(key)
        page.wait_for_function("v => Number(document.getElementById('version').textContent) > v",
                               arg=before)


def tab_to(page, selector: str, limit: int = 80) -> None:
    """Press Tab until the focused element matches ``selector``."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate("s => document.activeElement.matches(s)", selector):
            return
    pytest.fail(f"{limit} presses of Tab never reached {selector}")


def test_every_form_control_has_a_label(page):
    sign_in(page, "lee")
    page.locator("summary", has_text="Options").click()
    for game in ("loot", "maskmen", "faker_blue", "magblast", "wotr"):
        page.get_by_label("Game", exact=True).select_option(game)
        unlabelled = page.evaluate("""[...document.querySelectorAll('input, select')]
            .filter(e => !e.labels.length && !e.getAttribute('aria-label')).map(e => e.id)""")
        assert unlabelled == [], game


def test_nothing_is_wider_than_a_phone(page):
    sign_in(page, "mia")
    create_game(page, "faker_blue", ["bot:basic", "bot:basic"])
    page.wait_for_selector(MOVES, timeout=WAIT_MS)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def test_the_sign_in_is_kept_across_reloads_until_signing_out(page):
    sign_in(page, "noa")
    page.reload()
    page.get_by_text("Signed in as noa").wait_for()
    assert "null" not in page.locator("#who").inner_text()  # a guest has no profile link
    page.get_by_role("button", name="Sign out").click()
    page.get_by_label("Your name").wait_for()
    assert token_of(page) is None


def _first_pending_seat(site: str, game_id: str) -> int:
    """The lowest seat with a decision, once there is one: the Start click is answered
    asynchronously, and the other page shows a version before the game is running."""
    deadline = time.monotonic() + WAIT_MS / 1000
    while True:
        game = requests.get(f"{site}/v1/games/{game_id}", timeout=10).json()
        if game["pending"]:
            return int(min(game["pending"]))
        assert time.monotonic() < deadline, f"nobody to move in a {game['status']} game"
        time.sleep(0.05)


def test_a_second_player_joins_from_the_lobby_and_each_table_follows_the_others_move(
        browser, page, site):
    sign_in(page, "ann")
    game_id = create_game(page, "loot", ["human"])
    other = browser.new_context(viewport=PHONE, base_url=site).new_page()
    try:
        sign_in(other, "bob")
        other.locator(f"#open-games li[data-game='{game_id}']").get_by_role(
            "button", name="Join").click()
        other.wait_for_url(f"**/#/games/{game_id}")
        page.get_by_role("button", name="Start").click()
        other.locator("#version").wait_for()
        # The mover's page shows the move to the other's with no reload (the SSE feed).
        for _ in range(2):
            seat = _first_pending_seat(site, game_id)
            mover, watcher = (page, other) if seat == 0 else (other, page)
            mover.wait_for_selector(MOVES, timeout=WAIT_MS)
            before = int(mover.locator("#version").inner_text())
            mover.locator(MOVES).first.click()
            watcher.wait_for_function(
                "v => Number(document.getElementById('version').textContent) > v", arg=before)
    finally:
        other.context.close()


def test_a_turn_clock_counts_down_to_the_deadline_the_api_gives(page, site):
    sign_in(page, "ola")
    page.get_by_label("Game", exact=True).select_option("loot")
    page.locator("summary", has_text="Options").click()
    page.get_by_label("turn seconds").fill("600")
    page.get_by_role("button", name="Create game").click()
    page.wait_for_url("**/#/games/*")
    game_id = page.url.rsplit("/", 1)[1]
    countdown = page.locator(".prompt.mine .countdown")
    countdown.wait_for()
    game = requests.get(f"{site}/v1/games/{game_id}", timeout=10).json()
    deadline = game["pending"]["0"]["deadline"]
    assert countdown.get_attribute("data-deadline") == str(deadline)
    first = countdown.inner_text()
    seconds = float(re.search(r"([\d.]+) s", first).group(1))
    assert 0 < seconds <= 600
    page.wait_for_function("t => document.querySelector('.prompt.mine .countdown').textContent "
                           "!== t", arg=first)  # it ticks without any new event


def test_a_reaction_window_is_shown_with_its_countdown(page):
    sign_in(page, "pia")
    page.get_by_label("Game", exact=True).select_option("faker_blue")
    page.get_by_label("Players").select_option("3")
    page.locator("summary", has_text="Options").click()
    page.get_by_label("reaction seconds").fill("600")
    page.get_by_role("button", name="Create game").click()
    page.wait_for_url("**/#/games/*")
    window = page.locator(".prompt.reaction")
    rng = random.Random(5)
    for _ in range(40):  # attacks open windows soon: the bots' on the human, the human's on them
        if window.count():
            break
        play_to_end(page, rng, stop_after=1)
    else:
        pytest.fail("no reaction window opened in 40 moves")
    assert "(reaction window)" in window.first.inner_text()
    deadline = int(window.first.locator(".countdown").get_attribute("data-deadline"))
    assert 0 < deadline - page.evaluate("Date.now()") <= 600_000  # Unix ms, within the window


@pytest.mark.parametrize("game", ["loot", "maskmen"])
def test_a_card_in_the_hand_plays_on_the_board_by_clicking_it(page, game):
    sign_in(page, f"sam-{game}")
    create_game(page, game, ["bot:basic"])
    rng = random.Random(2)
    playable = page.locator("#board button.playing-card, #board button.wrestler")
    for _ in range(30):  # Loot's first turns may offer only a draw: make moves until a card plays
        page.wait_for_selector(f"{MOVES}, #result", timeout=WAIT_MS)
        if playable.count() or page.locator("#result").count():
            break
        play_to_end(page, rng, stop_after=1)
    assert playable.count()
    before = int(page.locator("#version").inner_text())
    card = playable.first
    chooses = card.get_attribute("aria-pressed") is not None  # several uses: pick one after
    card.click()
    if chooses:
        assert page.locator("#board [aria-pressed='true']").count() == 1
        page.locator("#board button.board-move").first.click()
    page.wait_for_function("v => Number(document.getElementById('version').textContent) > v",
                           arg=before)


def test_the_lobby_shows_a_game_starting_without_a_reload(browser, page, site):
    sign_in(page, "ann")
    game_id = create_game(page, "loot", ["human"])
    page.get_by_role("link", name="← Lobby").click()
    mine = page.locator(f"#my-games li[data-game='{game_id}']")
    mine.get_by_text("Loot · open").wait_for()
    other = browser.new_context(viewport=PHONE, base_url=site).new_page()
    try:
        sign_in(other, "bob")
        other.locator(f"#open-games li[data-game='{game_id}']").get_by_role(
            "button", name="Join").click()
        other.get_by_role("button", name="Start").click()
        other.locator("#version").wait_for()
        mine.get_by_text("Loot · running").wait_for()  # from the notice stream, no reload
    finally:
        other.context.close()
