"""Choices a person can make (issue 27 item 4): a long list of one kind of move becomes a few
choices in a row, and "Start" shows only once every seat is taken."""

from __future__ import annotations

import random
import re

import pytest

from tests.web.conftest import PHONE
from tests.web.driving import (
    MOVES,
    WAIT_MS,
    create_game,
    in_view,
    join_in_another_browser,
    play_to_end,
    sign_in,
)

pytestmark = pytest.mark.e2e


def test_mag_blast_fleet_arrangement_is_chosen_zone_by_zone_not_from_every_arrangement(page):
    sign_in(page, "ann")
    create_game(page, "magblast", ["bot:basic", "bot:basic"])
    page.locator("#commands .chooser").wait_for(timeout=WAIT_MS)
    before = int(page.locator("#version").inner_text())
    every = page.evaluate("""async () => {
        const token = localStorage.getItem('tablestream.token');
        const id = location.hash.split('/').pop();
        const r = await fetch(`/v1/games/${id}`, {headers: {Authorization: `Bearer ${token}`}});
        return (await r.json()).legal_commands.length;
    }""")
    assert every > 20  # 6 ships dealt, 4 of them placed: hundreds of arrangements
    steps = []
    while page.locator("#commands button.narrow").count():
        offered = page.locator("#commands button.narrow")
        assert offered.count() <= 7  # a ship for a zone (or none), never every arrangement
        steps.append(offered.first.inner_text())
        offered.first.click()
    assert len(steps) >= 3 and all(" zone: " in step for step in steps)
    final = page.locator(MOVES)
    assert final.count() == 1 and final.inner_text().startswith("Place fleet:")
    final.click()
    page.wait_for_function("v => Number(document.getElementById('version').textContent) > v",
                           arg=before)


def test_start_shows_only_once_every_seat_is_taken(browser, page, site):
    sign_in(page, "ann")
    game_id = create_game(page, "loot", ["human"])
    page.locator("#seats-empty").wait_for()
    assert "seat 2 is still empty" in page.locator("#seats-empty").inner_text()
    assert page.get_by_role("button", name="Start").count() == 0
    other = join_in_another_browser(browser, site, game_id, "bob", PHONE)
    try:
        page.get_by_role("button", name="Start").wait_for()
        assert page.locator("#seats-empty").count() == 0
    finally:
        other.context.close()


def test_a_war_of_the_ring_move_is_chosen_from_where_to_where_and_with_which_die(page):
    sign_in(page, "ann")
    create_game(page, "wotr", ["bot:basic"], {"scenario": '"south"'})
    rng = random.Random(3)
    move = page.locator("#commands .chooser[aria-label='Move']")
    for _ in range(40):  # the Shadow may act first: answer until a move of armies is asked
        page.wait_for_selector(f"{MOVES}, #result", timeout=WAIT_MS)
        if move.count():
            break
        play_to_end(page, rng, stop_after=1)
    else:
        pytest.fail("no army move was offered in 40 moves")
    assert page.locator("#commands button.cmd", has_text=" → ").count() == 0  # none listed whole
    before = int(page.locator("#version").inner_text())
    steps = []
    while move.locator("button.narrow").count():
        offered = move.locator("button.narrow")
        if not steps:  # the pinned moves take at most half the screen: the first may need a scroll
            offered.first.scroll_into_view_if_needed()
        assert in_view(page, offered.first)  # the next ones come into view by themselves
        steps.append(offered.first.inner_text())
        offered.first.click()
    # At most three questions (the die, the army, where to), each in words.
    assert 1 <= len(steps) <= 3
    assert all(re.match(r"(From|To) |\w[\w/ ]* die$", step) for step in steps), steps
    final = move.locator("button.cmd")
    assert final.count() == 1 and " move " in final.inner_text()
    final.click()
    page.wait_for_function("v => Number(document.getElementById('version').textContent) > v",
                           arg=before)
