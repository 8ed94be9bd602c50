"""Choices a person can make (issue 27 item 4): a long list of one kind of move becomes a few
choices in a row, and "Start" shows only once every seat is taken."""

from __future__ import annotations

import pytest

from tests.web.conftest import PHONE
from tests.web.driving import MOVES, WAIT_MS, create_game, join_in_another_browser, sign_in

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
