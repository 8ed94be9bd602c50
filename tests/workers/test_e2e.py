"""End to end: the API in-process over real Redis, and a real ``python -m workers`` subprocess."""

from __future__ import annotations

import signal
import time
from typing import Any

import pytest

from tests.workers.conftest import GAMES, wait_for

pytestmark = pytest.mark.e2e

TALLY_OPTIONS = {"tally": {"target": 30}}


def _player(api, name: str) -> dict[str, str]:
    response = api.post("/v1/players", json={"name": name})
    assert response.status_code == 201, response.json
    return {"Authorization": f"Bearer {response.json['token']}"}


def _create(api, headers, game: str, seats: list[dict[str, Any]],
            options: dict[str, Any] | None = None) -> str:
    response = api.post("/v1/games", headers=headers,
                        json={"game": game, "seats": seats, "options": options or {}})
    assert response.status_code == 201, response.json
    return response.json["id"]


def _get(api, game_id: str, headers=None) -> dict[str, Any]:
    response = api.get(f"/v1/games/{game_id}", headers=headers or {})
    assert response.status_code == 200, response.json
    return response.json


def _events(api, game_id: str) -> list[dict[str, Any]]:
    events, first = [], 1
    while True:
        response = api.get(f"/v1/games/{game_id}/events", query_string={"from": first})
        assert response.status_code == 200, response.json
        page = response.json if isinstance(response.json, list) else response.json["events"]
        page = [e for e in page if e["version"] >= first]
        if not page:
            return events
        events += page
        first = page[-1]["version"] + 1


def _bots(game: str, count: int) -> list[dict[str, str]]:
    levels = ["basic", "random"] if game != "tally" else ["random"]
    return [{"kind": "bot", "level": levels[i % len(levels)]} for i in range(count)]


@pytest.mark.parametrize("game", GAMES)
def test_a_game_of_bots_created_over_http_runs_to_its_end_on_its_own(game, api,
                                                                     worker_process):
    worker_process()
    headers = _player(api, "host")
    game_id = _create(api, headers, game, _bots(game, 4), TALLY_OPTIONS.get(game))
    final = wait_for(lambda: (view := _get(api, game_id))["status"] == "finished" and view,
                     timeout=30, message=f"the {game} bot game to finish")
    assert final["result"]["winners"]
    assert not final["pending"]


@pytest.mark.parametrize("game", GAMES)
def test_a_human_plays_bots_over_http_and_the_bots_answer_every_turn(game, api,
                                                                     worker_process):
    worker_process()
    headers = _player(api, "ann")
    game_id = _create(api, headers, game, [{"kind": "human"}, *_bots(game, 3)],
                      TALLY_OPTIONS.get(game))
    assert api.post(f"/v1/games/{game_id}/start", headers=headers).status_code == 200

    def our_turn_or_the_end() -> dict[str, Any] | None:
        view = _get(api, game_id, headers)
        return view if view["status"] == "finished" or "0" in view["pending"] else None

    human_turns = 0
    for _ in range(2000):
        # Between two of our moves the bots play on their own; we only wait for our turn.
        view = wait_for(our_turn_or_the_end, timeout=15, message="the bots to answer")
        if view["status"] == "finished":
            break
        response = api.post(f"/v1/games/{game_id}/commands", headers=headers,
                            json={**view["legal_commands"][0],
                                  "expected_version": view["version"]})
        if response.status_code == 409:
            continue  # a bot answered in the same reaction window first: look again
        assert response.status_code == 200, response.json
        human_turns += 1
    final = _get(api, game_id)
    assert final["status"] == "finished"
    assert human_turns > 0
    bot_seats = {e["seat"] for e in _events(api, game_id)
                 if e["seat"] in {1, 2, 3} and e["type"] != "command_received"}
    assert bot_seats == {1, 2, 3}


def test_an_idle_human_times_out_is_replaced_by_a_bot_and_takes_the_seat_back(api,
                                                                              worker_process):
    worker = worker_process()
    headers = _player(api, "idle")
    # Far enough that the bot holding the seat cannot finish before the worker is frozen
    # (thousands of moves); near enough that the later tests' workers, which sweep this shared
    # database and so play the seat again once its clock has run out three more times, end
    # the game within seconds instead of playing on for the rest of the run.
    game_id = _create(api, headers, "tally", [{"kind": "human"}],
                      {"target": 10_000, "turn_seconds": 1, "max_timeouts": 3})
    started = time.time()
    assert api.post(f"/v1/games/{game_id}/start", headers=headers).status_code == 200
    view = _get(api, game_id, headers)
    assert view["pending"]["0"]["deadline"] / 1000 == pytest.approx(started + 1, abs=1)  # ms

    def expiries() -> list[dict[str, Any]]:
        return [e for e in _events(api, game_id) if e["type"] == "clock_expired"]

    first = wait_for(expiries, timeout=3.5, message="the first clock expiry")[0]
    assert first["at"] / 1000 - started <= 3
    # The expiry is followed by the seat's default command, recorded as the seat's own move.
    moves = [e for e in _events(api, game_id) if e["type"] == "added"]
    assert moves[0]["data"] == {"seat": 0, "amount": 1}

    wait_for(lambda: any(e["type"] == "seat_replaced_by_bot" for e in _events(api, game_id)),
             timeout=12, message="the hand-over to a bot")
    # Freeze the worker, so the human's reclaim does not race the bot now playing the seat.
    worker.signal(signal.SIGSTOP)
    events = _events(api, game_id)
    handed = next(e for e in events if e["type"] == "seat_replaced_by_bot")
    assert len([e for e in events if e["type"] == "clock_expired"
                and e["version"] < handed["version"]]) == 3
    assert _get(api, game_id)["seats"][0]["bot"]
    for _ in range(20):
        view = _get(api, game_id, headers)
        response = api.post(f"/v1/games/{game_id}/commands", headers=headers,
                            json={"type": "add", "amount": 3,
                                  "expected_version": view["version"]})
        if response.status_code != 409:  # a bot move still landing when the worker froze
            break
    assert response.status_code == 200, response.json
    types = [e["type"] for e in response.json["events"]]
    assert types[0] == "seat_reclaimed"
    seat = _get(api, game_id)["seats"][0]
    assert seat["bot"] is None and seat["timeouts"] == 0
    worker.signal(signal.SIGCONT)


def test_a_bot_game_survives_its_worker_being_killed_mid_game(api, worker_process):
    worker = worker_process()
    headers = _player(api, "host")
    game_id = _create(api, headers, "tally", _bots("tally", 3), {"target": 400})
    wait_for(lambda: _get(api, game_id)["version"] >= 40, timeout=15,
             message="the bots to get going")
    worker.kill()
    stopped = _get(api, game_id)
    assert stopped["status"] == "running", "the game ended before the kill; raise the target"
    time.sleep(0.3)  # nobody plays while no worker runs
    assert _get(api, game_id)["version"] == stopped["version"]
    worker_process()
    final = wait_for(lambda: (view := _get(api, game_id))["status"] == "finished" and view,
                     timeout=30, message="the game to finish under the new worker")
    assert final["version"] > stopped["version"]
