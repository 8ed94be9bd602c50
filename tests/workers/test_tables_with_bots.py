"""Humans and bots at one table over HTTP only, with a real worker answering for the bots:
Mask Men with 2 humans and 2 bots (issue 5), Faker Blue with 2 humans answering defence and
challenge windows, 2 bots, and a clock expiring on one human (issue 6)."""

from __future__ import annotations

import time
from typing import Any

import pytest

import games
from games.core import Rng
from tests.workers.conftest import wait_for
from tests.workers.test_e2e import _create, _events, _get, _player

pytestmark = pytest.mark.e2e


def play_humans(api, game_id: str, humans: dict[int, dict[str, str]], rng: Rng,
                skip_once: Any = None, timeout: float = 240) -> tuple[dict, list[tuple]]:
    """Every human seat answers its prompts with a random legal command until the end.

    ``skip_once(seat, view)`` may return True once to leave a prompt unanswered (a clock test).
    Returns the final view and the (seat, command type) of every command the humans sent.
    """
    sent: list[tuple[int, str]] = []
    skipped = False
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        public = _get(api, game_id)
        if public["status"] == "finished":
            return public, sent
        waiting = [int(s) for s in public["pending"] if int(s) in humans
                   and not public["seats"][int(s)]["bot"]]
        if not waiting:
            time.sleep(0.02)  # the bots are thinking
            continue
        for seat in waiting:
            view = _get(api, game_id, humans[seat])
            if not view["legal_commands"]:
                continue
            if skip_once and not skipped and skip_once(seat, view):
                skipped = True
                # Go idle (every human) until this seat's clock runs out and plays for it.
                wait_for(lambda s=seat: any(e["type"] == "clock_expired" and e["data"]["seat"] == s
                                            for e in _events(api, game_id)),
                         timeout=20, message="the clock to expire")
                break
            legal = view["legal_commands"]
            command = legal[rng.below(len(legal))]
            response = api.post(f"/v1/games/{game_id}/commands", headers=humans[seat],
                                json={**command, "expected_version": view["version"]})
            if response.status_code == 409:
                break  # someone else answered first: look again
            assert response.status_code == 200, response.json
            sent.append((seat, command["type"]))
    pytest.fail("the game did not finish in time")


@pytest.mark.skipif("maskmen" not in games.REGISTRY, reason="no maskmen")
def test_two_humans_and_two_bots_play_a_whole_maskmen_game(api, worker_process):
    worker_process()
    host, guest = _player(api, "ann"), _player(api, "bob")
    seats = [{"kind": "human"}, {"kind": "bot", "level": "basic"}, {"kind": "human"},
             {"kind": "bot", "level": "random"}]
    game_id = _create(api, host, "maskmen", seats)
    assert api.post(f"/v1/games/{game_id}/join", headers=guest).status_code == 200
    assert api.post(f"/v1/games/{game_id}/start", headers=host).status_code == 200
    final, sent = play_humans(api, game_id, {0: host, 2: guest}, Rng("mm-bots"))
    events = _events(api, game_id)
    assert len([e for e in events if e["type"] == "season_ended"]) == 4
    assert {seat for seat, _ in sent} == {0, 2}
    assert {e["seat"] for e in events if e["type"] == "cards_played"} >= {1, 3}
    assert final["result"]["winners"]


@pytest.mark.skipif("faker_blue" not in games.REGISTRY, reason="no faker_blue")
def test_faker_blue_humans_answer_reaction_windows_beside_bots_and_a_clock_expires(
        api, worker_process):
    worker_process()
    host, guest = _player(api, "ann"), _player(api, "bob")
    seats = [{"kind": "human"}, {"kind": "bot", "level": "basic"}, {"kind": "human"},
             {"kind": "bot", "level": "random"}]
    game_id = _create(api, host, "faker_blue", seats,
                      {"turn_seconds": 2, "reaction_seconds": 2, "max_timeouts": 3})
    assert api.post(f"/v1/games/{game_id}/join", headers=guest).status_code == 200
    assert api.post(f"/v1/games/{game_id}/start", headers=host).status_code == 200

    def idle_in_a_reaction_window(seat: int, view: dict) -> bool:
        return seat == 2 and view["pending"][str(seat)]["clock"] == "reaction"

    final, sent = play_humans(api, game_id, {0: host, 2: guest}, Rng("fb-bots"),
                              skip_once=idle_in_a_reaction_window)
    kinds = {kind for _, kind in sent}
    assert kinds & {"defend", "no_defence"}, "the humans answered a defence window"
    assert kinds & {"challenge", "no_challenge"}, "the humans answered a challenge window"
    events = _events(api, game_id)
    expired = [e for e in events if e["type"] == "clock_expired"]
    assert any(e["data"]["seat"] == 2 for e in expired)
    assert final["result"]["winners"]
