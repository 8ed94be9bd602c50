"""The Mag Blast board (service/web/static/boards/magblast.js) in a phone-sized page: a whole game
against a bot played by clicking on the board, each ship drawn in its zone with its hull left, and
a response window's reaction clock counting down while the viewer answers on the board."""

from __future__ import annotations

import random
import re

import pytest
from playwright.sync_api import Error as PlaywrightError

from games.magblast.data import SHIPS
from tests.web.board_clicks import (
    api_get,
    api_post,
    new_player,
    open_as,
    play_on_board,
    send,
    wait_until,
)
from tests.web.conftest import SCREENSHOTS
from tests.web.driving import create_game, sign_in

pytestmark = pytest.mark.e2e

ANN_FLEET = ["ship-01", "ship-02", "ship-03", "ship-04"]  # hull 1+2+2+3: Ann (seat 0) starts
BOB_FLEET = ["ship-13", "ship-14", "ship-15", "ship-16"]
DEAL = {
    "races": ["freep", "tribot"],
    "fleets": [[*ANN_FLEET, "ship-05", "ship-06"], [*BOB_FLEET, "ship-17", "ship-18"]],
    "hands": [["laser_blast-1", "laser_blast-2", "laser_blast-3", "beam_blast-1", "beam_blast-2"],
              ["evasive_action-1", "beam_blast-7", "beam_blast-8", "beam_blast-9",
               "beam_blast-10"]],
}
ZONES = ("n", "e", "s", "w")


def _blasted_game(site: str, reaction_seconds: int) -> tuple[str, str, str]:
    """Ann (API) and Bob (the page) at a dealt table; Ann blasts Bob's ship-13 with a Laser
    Blast, so Bob, who holds Evasive Action, is asked on the reaction clock."""
    ann, bob = new_player(site, "ann"), new_player(site, "bob")
    game = api_post(site, "/games", {"game": "magblast", "seats": [{"kind": "human"}] * 2,
                                     "options": {"reaction_seconds": reaction_seconds,
                                                 "deal": DEAL}}, ann, status=201)
    game_id = game["id"]
    api_post(site, f"/games/{game_id}/join", None, bob)
    api_post(site, f"/games/{game_id}/start", None, ann)
    send(site, game_id, ann, {"type": "place_fleet", "zones": dict(zip(ZONES, ANN_FLEET,
                                                                       strict=True))})
    send(site, game_id, bob, {"type": "place_fleet", "zones": dict(zip(ZONES, BOB_FLEET,
                                                                       strict=True))})
    wait_until(lambda: api_get(site, f"/games/{game_id}")["view"]["phase"] == "reinforce",
          "the fleets to be revealed")
    send(site, game_id, ann, {"type": "end_phase"})
    send(site, game_id, ann, {"type": "end_phase"})
    send(site, game_id, ann, {"type": "blast", "card": "laser_blast-1", "ship": "ship-01",
                              "target": "ship-13", "sound": "pew pew"})
    return game_id, ann, bob


def _chain_resolved_after_ann_passes(site: str, game_id: str, ann: str) -> bool:
    """Every opponent is asked in turn (§4c), so Ann is asked about Bob's answer: she passes."""
    game = api_get(site, f"/games/{game_id}", ann)
    if game["view"]["chain"] is None:
        return True
    passes = [c for c in game["legal_commands"] if c["type"] == "no_response"]
    if "0" in game["pending"] and passes:
        send(site, game_id, ann, {k: v for k, v in passes[0].items() if k != "expected_version"})
    return False


def test_a_magblast_game_is_played_to_its_end_by_clicking_on_the_board(page, site, seen):
    sign_in(page, "ann-magblast-board")
    create_game(page, "magblast", ["bot:basic"])

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    seen_clicks = {"n": 0}

    def fleets_screenshot() -> None:  # once the fleets are on the table
        seen_clicks["n"] += 1
        if seen_clicks["n"] >= 12 and not seen_clicks.get("shot"):
            try:
                page.locator("#board .mb-fleets").scroll_into_view_if_needed(timeout=2_000)
            except PlaywrightError:
                return  # redrawn meanwhile: try after the next click
            seen_clicks["shot"] = True
            page.screenshot(path=SCREENSHOTS / "magblast-board.png")
            page.screenshot(path=SCREENSHOTS / "magblast-board-full.png", full_page=True)

    clicks = play_on_board(page, random.Random("magblast-board"), after_click=fleets_screenshot)

    assert clicks > 0
    assert page.locator("#result").inner_text().startswith("Game over.")
    page.screenshot(path=SCREENSHOTS / "magblast-board-over.png", full_page=True)

    # Replayed at an earlier version, it is still this board (not the generic fallback).
    middle = int(page.locator("#version").inner_text()) // 2
    page.get_by_label("Version", exact=True).fill(str(middle))
    page.locator(f"#board[data-version='{middle}']").wait_for()
    assert page.locator("#board .mb-fleet").count() == 2
    assert page.locator("#board .generic-view").count() == 0
    assert seen.errors == []
    assert seen.foreign(site) == []


def test_every_ship_is_drawn_in_its_zone_with_the_hull_it_has_left(page, site, seen):
    game_id, _ann, bob = _blasted_game(site, reaction_seconds=60)
    send(site, game_id, bob, {"type": "no_response"})  # the Laser Blast lands: 1 damage
    wait_until(lambda: api_get(site, f"/games/{game_id}")["view"]["under"].get("ship-13"),
          "the Blast to land")
    view = api_get(site, f"/games/{game_id}", bob)["view"]
    open_as(page, site, bob, game_id)
    page.locator(f"#board[data-version='{api_get(site, f'/games/{game_id}')['version']}']"
                 ).wait_for()

    for seat, zones in enumerate(view["zones"]):
        for zone, ships in zones.items():
            cell = page.locator(f".mb-fleet[data-seat='{seat}'] .mb-zone[data-zone='{zone}']")
            drawn = cell.locator(".mb-ship").evaluate_all("ns => ns.map(n => n.dataset.ship)")
            assert drawn == ships, (seat, zone)
    hull = page.locator(".mb-fleet[data-seat='1'] .mb-ship[data-ship='ship-13']")
    full = SHIPS["ship-13"].hull
    assert hull.get_attribute("data-hull") == str(full - 1)
    assert hull.locator(".mb-hull-text").inner_text() == f"{full - 1}/{full}"
    undamaged = page.locator(".mb-ship[data-ship='ship-14']")
    assert undamaged.get_attribute("data-hull") == str(SHIPS["ship-14"].hull)
    # The viewer's own hand, named; the other hand only counted.
    cards = page.locator(".mb-hand .mb-card").evaluate_all("ns => ns.map(n => n.dataset.card)")
    assert sorted(cards) == sorted(view["hand"])
    head = page.locator(".mb-fleet[data-seat='0'] .mb-fleet-head").inner_text()
    assert f"{view['hand_counts'][0]} cards" in head
    assert seen.errors == []


def test_a_response_window_shows_its_countdown_and_is_answered_by_clicking_a_card(
        page, site, seen):
    game_id, ann, bob = _blasted_game(site, reaction_seconds=60)
    asked = api_get(site, f"/games/{game_id}", bob)
    assert asked["pending"]["1"]["clock"] == "reaction"
    open_as(page, site, bob, game_id)

    wait = page.locator(".mb-pending .mb-wait.reaction[data-seat='1']")
    wait.wait_for()
    clock = wait.locator(".clock")
    assert re.fullmatch(r"\d+ s left", clock.inner_text().strip())
    assert 0 < int(clock.get_attribute("data-seconds")) <= 60
    assert "_" not in wait.inner_text()  # "respond to laser blast?", in words
    assert page.locator(".mb-chain .mb-link").first.get_attribute("data-card") == "laser_blast-1"
    assert "Ship" not in page.locator(".mb-chain").inner_text()  # named, not ids
    assert "Laser Blast" in page.locator(".mb-chain").inner_text()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=SCREENSHOTS / "magblast-board-reaction.png", full_page=True)

    # Evasive Action is the only response in Bob's hand: one click on it answers the Blast.
    page.locator(".mb-hand .mb-card[data-card='evasive_action-1']").click()
    wait_until(lambda: _chain_resolved_after_ann_passes(site, game_id, ann),
          "the chain to resolve")
    events = api_get(site, f"/games/{game_id}/events?from=1&limit=500")["events"]
    responses = [e["data"].get("card") for e in events if e["type"] == "response_made"]
    assert responses == ["evasive_action-1"]
    assert "ship-13" not in api_get(site, f"/games/{game_id}")["view"]["under"]
    assert seen.errors == []
