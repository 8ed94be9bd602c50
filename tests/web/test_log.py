"""The events panel speaks people (issue 27 item 3): every event credited to the seat it
happened to, seats by name, no snake_case on screen, one row per version, and the panel follows
the replay position."""

from __future__ import annotations

import random
import re

import pytest

from tests.web.driving import create_game, play_to_end, sign_in

pytestmark = pytest.mark.e2e

SNAKE = re.compile(r"\b[a-z]+_[a-z_]+\b")


def all_events(page, game_id: str) -> list[dict]:
    return page.evaluate("""async (id) => {
        const token = localStorage.getItem('tablestream.token');
        const r = await fetch(`/v1/games/${id}/events?limit=1000`,
                              {headers: {Authorization: `Bearer ${token}`}});
        return (await r.json()).events;
    }""", game_id)


def on_screen(page) -> str:
    """The page's visible text without the game's id (an id may hold an underscore)."""
    text = page.locator("main").inner_text()
    return text.replace(page.locator(".meta").first.inner_text(), "")


def replay_to(page, version: int) -> None:
    page.get_by_label("Version", exact=True).fill(str(version))
    page.locator(f"#board[data-version='{version}']").wait_for()
    page.locator(f".events li[data-version='{version}']").wait_for()


def row(page, version: int) -> str:
    return page.locator(f".events li[data-version='{version}'] > span").inner_text()


def test_the_log_credits_the_seat_an_event_happened_to_in_words(page):
    sign_in(page, "ann")
    game_id = create_game(page, "loot", ["bot:basic"])
    play_to_end(page, random.Random(7))
    events = all_events(page, game_id)
    bot = "Bot 2 (basic)"
    assert not SNAKE.findall(on_screen(page)), SNAKE.findall(on_screen(page))

    # The game's end happened to nobody: no seat is credited with it.
    ended = next(e for e in events if e["type"] == "game_ended")
    page.locator(f".events li[data-version='{ended['version']}']").wait_for()
    assert re.fullmatch(r"\d+\. The game is over\.", row(page, ended["version"]))

    # An event caused by one seat's command that happened to the other (a capture at the
    # start of the capturer's turn, the turn passing to the next seat) names the other seat.
    crossed = [e for e in events if isinstance((e["data"] or {}).get("seat"), int)
               and e["seat"] is not None and e["data"]["seat"] != e["seat"]]
    assert crossed
    crossed.sort(key=lambda e: e["type"] != "merchant_captured")
    event = crossed[0]
    replay_to(page, event["version"])
    text = row(page, event["version"])
    subject = "You" if event["data"]["seat"] == 0 else bot
    assert text.startswith(f"{event['version']}. {subject}: "), (event, text)
    assert not SNAKE.findall(on_screen(page))

    # The panel follows the replay position: it ends at the replayed version, each version once.
    shown = [int(v) for v in page.locator(".events li").evaluate_all(
        "rows => rows.map(r => r.dataset.version)")]
    assert shown[0] == event["version"]
    assert shown == sorted(set(shown), reverse=True)
    assert shown == list(range(shown[0], shown[0] - len(shown), -1))


def test_the_opponents_move_is_announced_in_a_live_region(page):
    sign_in(page, "ann")
    create_game(page, "loot", ["bot:basic"])
    announce = page.locator("#announce")
    assert announce.get_attribute("aria-live") == "polite"
    play_to_end(page, random.Random(3), stop_after=2)
    # The bot has moved (it is ann's turn again or the game went on): its move was read out.
    page.wait_for_function(
        "() => document.getElementById('announce').textContent.includes('Bot 2 (basic): ')",
        timeout=90_000)
    assert not SNAKE.findall(announce.text_content())
    assert "You: " not in announce.text_content()
