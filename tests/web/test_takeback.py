"""Takebacks on the page (issue 27 item 1): asked in one browser, seen and accepted in another;
refused in plain words before anyone asks."""

from __future__ import annotations

import pytest

from tests.web.conftest import PHONE
from tests.web.driving import MOVES, WAIT_MS, create_game, join_in_another_browser, sign_in

pytestmark = pytest.mark.e2e


def version(page) -> int:
    return int(page.locator("#version").inner_text())


def mover_of(page, other):
    """The page whose player is to move, once both pages show the same version."""
    for _ in range(WAIT_MS // 100):
        if version(page) == version(other):
            for each in (page, other):
                if each.locator(MOVES).count():
                    return each
        page.wait_for_timeout(100)
    pytest.fail("the two pages never agreed on whose move it is")


def test_a_takeback_asked_in_one_browser_is_accepted_in_the_other(browser, page, site):
    sign_in(page, "ann")
    game_id = create_game(page, "loot", ["human"])
    other = join_in_another_browser(browser, site, game_id, "bob", PHONE)
    try:
        page.get_by_role("button", name="Start").click()
        other.locator("#version").wait_for()

        # Draw until the player to move can sail a merchant: sailing reveals nothing it did
        # not know, so it may be taken back (a draw may not).
        for _ in range(40):
            mover = mover_of(page, other)
            sail = mover.locator(MOVES, has_text="Sail a merchant ship")
            if sail.count():
                break
            before = version(mover)
            mover.locator(MOVES, has_text="Draw a card").click()
            mover.wait_for_function(
                "v => Number(document.getElementById('version').textContent) > v", arg=before)
            note = mover.locator("#takeback-note")
            note.filter(has_text="No takeback now").wait_for()
            assert mover.locator("#takeback-ask").is_disabled()
        else:
            pytest.fail("no merchant came")
        answerer = other if mover is page else page
        before = version(mover)
        sail.first.click()
        mover.wait_for_function(
            "v => Number(document.getElementById('version').textContent) > v", arg=before)
        mover.locator("#takeback-note", has_text="must agree").wait_for()
        mover.get_by_role("button", name="Take back my last move").click()

        # Both seats see the request; only the other may answer it.
        mover.locator("#takeback-request", has_text="You asked").wait_for()
        assert mover.locator("#takeback-accept").count() == 0
        request = answerer.locator("#takeback-request")
        request.wait_for()
        asker = "ann" if mover is page else "bob"
        assert f"{asker} asked to take back their last move" in request.inner_text()
        answerer.get_by_role("button", name="Accept takeback").click()

        # The move is taken back on both pages: the mover may sail again.
        for seen in (mover, answerer):
            seen.locator("#takeback-request").wait_for(state="detached")
        mover.locator(MOVES, has_text="Sail a merchant ship").first.wait_for(timeout=WAIT_MS)
    finally:
        other.context.close()
