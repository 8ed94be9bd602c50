"""War of the Ring over HTTP only (issue 11, requirement 2): a whole ``south`` game between a
human (the Free Peoples) and a ``basic`` bot (the Shadow) with the real server and worker; the
human answers the battle prompts (combat card, casualties, retreat) and one clock expires."""

from __future__ import annotations

import time

import pytest

from games.core import Rng
from games.wotr.bot import basic
from tests.workers.conftest import wait_for
from tests.workers.test_e2e import _create, _events, _get, _player

pytestmark = pytest.mark.e2e


def _choose(view: dict, rng: Rng) -> dict:
    """The human's play: the ``basic`` heuristic for the action dice (it garrisons and musters
    Elites, so the game lasts and its armies have a choice of casualties), always a field battle
    when attacked in a Stronghold, mostly standing firm, and a free pick among the legal combat
    cards, casualties and retreats."""
    legal = view["legal_commands"]
    kinds = {c["type"] for c in legal}
    if "withdraw" in kinds:
        return {"type": "withdraw", "yes": False}
    if "retreat" in kinds and rng.below(3):
        return {"type": "retreat", "to": ""}
    if kinds & {"combat_card", "take_hit", "retreat", "continue_battle", "advance"}:
        return legal[rng.below(len(legal))]
    return basic(view["view"], legal, rng)


def _play_one_game(api, human, idle_once: bool) -> tuple[str, set[str]]:
    """Create and play one ``south`` game to its end over HTTP; the command types sent."""
    seats = [{"kind": "human"}, {"kind": "bot", "level": "basic"}]
    game_id = _create(api, human, "wotr", seats,
                      {"scenario": "south", "max_rounds": 8, "turn_seconds": 2,
                       "reaction_seconds": 2, "max_timeouts": 3})
    assert api.post(f"/v1/games/{game_id}/start", headers=human).status_code == 200
    rng, sent, idled = Rng(f"wotr-http-{game_id}"), set(), not idle_once
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        public = _get(api, game_id)
        if public["status"] == "finished":
            assert public["result"]["winners"]
            return game_id, sent
        if "0" not in public["pending"]:
            time.sleep(0.02)  # the bot is thinking
            continue
        view = _get(api, game_id, human)
        if not view["legal_commands"]:
            continue
        if not idled:
            idled = True  # go idle once: the turn clock plays the default for the human
            wait_for(lambda: any(e["type"] == "clock_expired" and e["data"]["seat"] == 0
                                 for e in _events(api, game_id)),
                     timeout=20, message="the clock to expire")
            continue
        command = _choose(view, rng)
        response = api.post(f"/v1/games/{game_id}/commands", headers=human,
                            json={**command, "expected_version": view["version"]})
        if response.status_code == 409:
            continue  # the clock or the bot moved first: look again
        assert response.status_code == 200, response.json
        sent.add(command["type"])
    pytest.fail("the game did not finish in time")


def test_a_human_plays_whole_south_games_against_the_basic_bot(api, worker_process):
    """Whether the Shadow's attacks ever give the human a choice of casualties depends on the
    server's random seed (about three games in four do), so up to six whole games are played
    until one had the human answer a combat card, a casualty and a retreat prompt."""
    worker_process()
    human = _player(api, "frodo")
    first, sent = _play_one_game(api, human, idle_once=True)
    events = _events(api, first)
    assert any(e["type"] == "clock_expired" and e["data"]["seat"] == 0 for e in events)
    assert any(e["type"] == "battle_started" for e in events)
    for _ in range(5):
        if {"combat_card", "take_hit", "retreat"} <= sent:
            break
        _, sent = _play_one_game(api, human, idle_once=False)
    assert {"combat_card", "take_hit", "retreat"} <= sent, sorted(sent)
