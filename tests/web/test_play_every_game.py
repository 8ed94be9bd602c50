"""A whole game of every title, played against bots by clicking, on a phone (390x844) and a
desk (1280x800), then replayed with the slider, explained and downloaded as a transcript
(issue 15). At every move the page is no wider than the screen and the move buttons show
without scrolling (issue 27); the result says who won and why."""

from __future__ import annotations

import json
import random
import re

import pytest

from events.audit import verify
from tests.web.conftest import SCREENSHOTS, SIZES
from tests.web.driving import (
    BOT_TABLES,
    MOVES,
    create_game,
    moves_in_view,
    page_width_overflow,
    play_to_end,
    sign_in,
)

pytestmark = pytest.mark.e2e


def save_screenshots(page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("#board").scroll_into_view_if_needed()
    page.screenshot(path=SCREENSHOTS / f"{name}.png")
    page.screenshot(path=SCREENSHOTS / f"{name}-full.png", full_page=True)
    print(f"screenshots of the {name} board: {SCREENSHOTS / name}.png, {name}-full.png")


def fits_the_screen(page, button) -> None:
    """The page never scrolls sideways and a move button shows without scrolling."""
    assert page_width_overflow(page) <= 0, f"{page_width_overflow(page)} px too wide"
    if not moves_in_view(page) and page.locator(MOVES).count():
        page.screenshot(path=SCREENSHOTS / "off-screen.png")
        pytest.fail("no move button shows without scrolling (screenshots/off-screen.png)")


@pytest.mark.parametrize("size", sorted(SIZES))
@pytest.mark.parametrize("game", sorted(BOT_TABLES))
def test_a_game_played_by_clicking_ends_and_can_be_replayed_explained_and_downloaded(
        page, site, seen, tmp_path, game, size):
    page.set_viewport_size(SIZES[size])
    bots, options = BOT_TABLES[game]
    sign_in(page, f"ann-{game}")
    game_id = create_game(page, game, bots, options)

    clicks = play_to_end(page, random.Random(game),
                         screenshot=lambda: save_screenshots(page, f"{game}-{size}"),
                         each=lambda button: fits_the_screen(page, button))

    assert clicks > 0
    assert page.locator("#result").inner_text().startswith("Game over.")
    assert re.search(r"\b(wins?|No winner)\b", page.locator("#result").inner_text())
    assert page_width_overflow(page) <= 0
    last = int(page.locator("#version").inner_text())

    # The replay slider shows the board as it was at an earlier version, then one step later.
    middle = last // 2
    page.get_by_label("Version", exact=True).fill(str(middle))
    page.locator(f"#board[data-version='{middle}']").wait_for()
    assert page.locator("#replay-version").inner_text() == f"{middle} of {last} (replay)"
    page.get_by_role("button", name="One version forward").click()
    page.locator(f"#board[data-version='{middle + 1}']").wait_for()
    page.get_by_role("button", name="Live", exact=True).click()
    page.locator(f"#board[data-version='{last}']").wait_for()

    # The transcript downloads, whole and verifiable offline.
    with page.expect_download() as download:
        page.get_by_role("button", name="Download transcript").click()
    path = tmp_path / "transcript.json"
    download.value.save_as(path)
    transcript = json.loads(path.read_text())
    assert transcript["game_id"] == game_id
    assert transcript["events"][-1]["version"] == last
    assert verify(transcript).ok

    # Explain one of the human's own moves: who sent it and why it was legal.
    mine = next(c["version"] for c in transcript["commands"] if c["seat"] == "0")
    page.get_by_label("Explain event", exact=True).fill(str(mine))
    page.get_by_role("button", name="Explain", exact=True).click()
    page.locator("#explain h3").wait_for()
    assert page.locator("#explain h3").inner_text() == f"Event {mine} by ann-{game}"
    assert page.locator("#explain .checks li").count() > 0
    page.screenshot(path=SCREENSHOTS / f"{game}-{size}-over.png", full_page=True)

    assert seen.foreign(site) == []
    assert seen.errors == []
