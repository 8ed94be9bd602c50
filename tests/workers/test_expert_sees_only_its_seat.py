"""The expert's inputs over the real stack (issue 12, "done" 3): a human plays an ``expert`` bot
over HTTP, a real ``python -m workers`` process runs the bot's turns, and every ``Seen`` the
expert is handed there is recorded (tests/workers/seen_recorder.py). Each must be exactly its
seat's view and its seat's redacted events at that point, and show no card hidden from the seat.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from urllib.parse import urlparse, urlunparse

import pytest
import redis

from events.projector import is_platform_event
from events.redis_store import connect
from games import get_game
from games.core import Event, ids_in
from tests.workers.conftest import wait_for
from tests.workers.test_bots_see_only_their_view import _leaks
from tests.workers.test_e2e import _create, _get, _player

pytestmark = pytest.mark.e2e

EXPERT = 1  # the seat of the expert; the human is seat 0
OPTIONS = {"maskmen": {"edition": "first"}}  # 10-card hands: a short game
# A database of this module's own: the real worker sweeps every overdue bot game it can see
# when it starts, and in a full run the worker tests' shared database holds other tests' games
# whose expert turns it would queue ahead of this game's (first in, first out).
OWN_DB = 10


@pytest.fixture(scope="module")
def workers_url(redis_url: str) -> str:
    return urlunparse(urlparse(redis_url)._replace(path=f"/{OWN_DB}"))


@pytest.fixture(scope="module")
def workers_client(workers_url: str) -> Iterator[redis.Redis]:
    client = connect(workers_url)
    yield client
    client.close()


@pytest.mark.parametrize("game_name", ["loot", "maskmen"])
def test_the_expert_in_a_real_worker_is_handed_only_its_seats_view_and_redacted_events(
        game_name, api, service, worker_process, tmp_path):
    record = tmp_path / "seen.jsonl"
    worker_process("tests.workers.seen_recorder", TABLESTREAM_SEEN_LOG=str(record))
    headers = _player(api, "ann")
    game_id = _create(api, headers, game_name,
                      [{"kind": "human"}, {"kind": "bot", "level": "expert", "think_ms": 10}],
                      OPTIONS.get(game_name))
    assert api.post(f"/v1/games/{game_id}/start", headers=headers).status_code == 200
    _play_to_the_end(api, game_id, headers, random.Random(game_name))

    game = get_game(game_name)
    stored = service.store.read(game_id)
    log = [Event(e.type, e.data) for e in stored if not is_platform_event(e.type)]
    decisions = {e.cmd for e in stored if e.cmd.startswith("bot:")}
    seens = [json.loads(line) for line in record.read_text().splitlines()]
    assert len(seens) >= len(decisions) > 0
    leaks = _leaks(game, log, EXPERT)
    dealt_to_expert = _cards_ever_held(game, log, EXPERT)
    for seen in seens:
        assert (seen["game"], seen["seat"], seen["think_ms"], seen["live"]) == (
            game_name, EXPERT, 10, True)
        known = len(seen["events"])
        state = game.fold(log[:known])
        # Exactly what the seat's own view and events page show at that point...
        assert seen["view"] == json.loads(json.dumps(game.view(state, EXPERT)))
        assert seen["legal"] == json.loads(json.dumps(game.legal_commands(state, EXPERT)))
        assert seen["events"] == [(game.redact(e, EXPERT) or Event(e.type)).to_dict()
                                  for e in log[:known]]
        # ...so nothing hidden from it: no hidden card in the view, none in any event.
        hidden = game.secrets(state, EXPERT)
        assert not hidden & ids_in(seen["view"])
        assert not any(leaks[:known])
        if game_name == "maskmen":
            # Copies of a wrestler are identical: the only card ids it may ever read are the
            # copies it was dealt (issue 12), not which copies the human played.
            named = ids_in([seen["view"], seen["events"]]) & set(hidden | _all_cards(log))
            assert named <= dealt_to_expert


def _play_to_the_end(api, game_id: str, headers: dict[str, str], rng: random.Random) -> None:
    """The human plays random legal commands whenever it is its turn, until the game ends."""
    def our_turn_or_the_end() -> dict | None:
        view = _get(api, game_id, headers)
        return view if view["status"] == "finished" or "0" in view["pending"] else None

    for _ in range(3000):
        view = wait_for(our_turn_or_the_end, timeout=60, message="the expert to move")
        if view["status"] == "finished":
            return
        command = rng.choice(view["legal_commands"])
        response = api.post(f"/v1/games/{game_id}/commands", headers=headers,
                            json={**command, "expected_version": view["version"]})
        assert response.status_code in (200, 409), response.json
    pytest.fail("the game did not end")


def _all_cards(log: list[Event]) -> set[str]:
    """Every card id of the game (the deal events name them all)."""
    return {c for e in log if e.type == "season_dealt"
            for c in [*(c for h in e.data["hands"] for c in h), *e.data["set_aside"]]}


def _cards_ever_held(game, log: list[Event], seat: int) -> set[str]:
    held: set[str] = set()
    state = None
    for event in log:
        state = game.evolve(state if state is not None else game.initial_state(), event)
        if state and state.get("hands"):
            held |= set(state["hands"][seat])
    return held
