"""Every board on a phone (390x844) and a desk (1280x800), a few moves into a game against bots
(issue 27): axe-core finds no serious or critical accessibility violation, the page never
scrolls sideways, and a screenshot of each is written for a person to look at (`make
screenshots`). War of the Ring's full map too: it pans and zooms inside its own box."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest

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

# `make test` installs axe-core (pinned) into the venv's own node prefix (Makefile: AXE).
AXE = Path(sys.prefix) / "axe" / "node_modules" / "axe-core" / "axe.min.js"
BAD = ("serious", "critical")

BOARDS = {**BOT_TABLES, "wotr-full": (["bot:basic"], {"scenario": '"full"'})}


@pytest.fixture
def page(browser, site):
    """A fresh page whose context lets the test inject axe-core past the site's
    Content-Security-Policy (script-src 'self'); the page itself is unchanged."""
    context = browser.new_context(viewport=SIZES["phone"], base_url=site, bypass_csp=True)
    context.set_default_timeout(30_000)
    yield context.new_page()
    context.close()


def axe_violations(page) -> list[dict]:
    """axe-core's serious and critical violations on the page as it stands."""
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: `make test` installs axe-core")
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    found = page.evaluate("async () => (await axe.run(document, {resultTypes: ['violations']}))"
                          ".violations")
    return [{"id": v["id"], "impact": v["impact"], "help": v["help"],
             "nodes": [n["target"] for n in v["nodes"]][:5]}
            for v in found if v["impact"] in BAD]


@pytest.mark.parametrize("size", sorted(SIZES))
@pytest.mark.parametrize("board", sorted(BOARDS))
def test_each_board_is_accessible_fits_the_screen_and_is_photographed(page, board, size):
    page.set_viewport_size(SIZES[size])
    bots, options = BOARDS[board]
    sign_in(page, f"ann-{board}")
    assert axe_violations(page) == []  # the lobby too
    create_game(page, board.removesuffix("-full"), bots, options)

    play_to_end(page, random.Random(board), stop_after=5)
    page.wait_for_selector(f"{MOVES}, #result", timeout=90_000)
    page.wait_for_timeout(300)  # the board's last redraw
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=SCREENSHOTS / f"screen-{board}-{size}.png")
    page.screenshot(path=SCREENSHOTS / f"screen-{board}-{size}-full.png", full_page=True)

    assert page_width_overflow(page) <= 0
    if page.locator(MOVES).count():
        assert moves_in_view(page)
    violations = axe_violations(page)
    assert violations == [], json.dumps(violations, indent=1)


def test_the_full_map_pans_and_zooms_inside_its_box_at_a_desk(page):
    page.set_viewport_size(SIZES["desk"])
    sign_in(page, "ann-map")
    create_game(page, "wotr", ["bot:basic"], {"scenario": '"full"'})
    box = page.locator(".panzoom-viewport")
    box.wait_for()
    page.wait_for_function("document.querySelector('.wotr-map').getAttribute('viewBox')"
                           ".split(' ').length === 4")
    assert page_width_overflow(page) <= 0
    assert box.bounding_box()["width"] <= SIZES["desk"]["width"]

    def view_box() -> list[float]:
        return [float(v) for v in page.locator(".wotr-map").get_attribute("viewBox").split()]

    # Labels start readable: the map is drawn at least 1.2 px per unit (10.5-unit text).
    before = view_box()
    assert box.bounding_box()["width"] / before[2] >= 1.2
    page.get_by_role("button", name="Zoom out").click()
    assert view_box()[2] > before[2]
    page.get_by_role("button", name="Zoom in").click()
    page.get_by_role("button", name="Zoom in").click()
    zoomed = view_box()
    assert zoomed[2] < before[2]
    # Keys pan it (the box is focusable), never the page.
    box.focus()
    page.keyboard.press("ArrowRight")
    assert view_box()[0] != zoomed[0] or view_box()[1] != zoomed[1]
    assert page_width_overflow(page) <= 0
