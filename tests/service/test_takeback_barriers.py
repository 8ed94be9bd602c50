"""Takebacks never cross what they would un-reveal (issue 9, item 3).

After a bot answers a move by playing a card from its hand, taking the move back would return
that card to the bot's hand while everyone has seen it. The kernel's rule (games/core.py,
``takeback_barrier``): no takeback crosses an event that brought into anyone's sight something
the requester did not know; what the requester alone knew (their own card, played) they may
take back.
"""

from __future__ import annotations

import json

import pytest

from games import REGISTRY
from games.core import Rng
from tests.service.bots import run_bots

pytestmark = pytest.mark.usefixtures("seeded_api")


def _against_a_bot(api, name: str) -> tuple[str, dict[str, str]]:
    human = api.player("ann")
    level = REGISTRY[name].bot_levels[-1]
    game_id = api.create(human, name, [{"kind": "human"}, {"kind": "bot", "level": level}])
    response = api.client.post(f"/v1/games/{game_id}/start", headers=human)
    assert response.status_code == 200, response.json
    run_bots(api.service, game_id)
    return game_id, human


def _named(events) -> set[str]:
    """Every string the events' payloads hold (card ids among them)."""
    return {word for e in events for word in json.dumps(e.data).split('"')}


def _barrier_free(game, events) -> bool:
    static = game.undo_barriers | {"game_started", "game_finished", "seed_revealed"}
    return not any(e.type in static for e in events)


def _play_until(api, name: str, wanted, seed: str = "takeback"):
    """The human plays (no draws when it can help it) until the bot's answer to its move,
    ``wanted(game, human_events, bot_events, hidden_from_human_before_the_answer)``, holds;
    returns the game id, the human's headers and the bot's events."""
    game = REGISTRY[name]
    game_id, human = _against_a_bot(api, name)
    rng = Rng(seed)
    for _ in range(400):
        mine = api.get(game_id, human)
        assert mine["status"] == "running", "the game ended before the situation came up"
        legal = mine["legal_commands"]
        plays = [c for c in legal if c["type"] != "draw"] or legal
        command = plays[rng.below(len(plays))]
        response = api.send(game_id, human, command, mine["version"])
        assert response.status_code == 200, response.json
        own = api.service.store.read(game_id, mine["version"] + 1)
        hidden = game.secrets(api.service.projection(game_id).state, 0)
        answer = run_bots(api.service, game_id)
        if answer and wanted(game, own, answer, hidden):
            return game_id, human, answer
    pytest.fail("the situation never came up")


def _bot_showed_a_hidden_card(game, own, answer, hidden) -> bool:
    return _barrier_free(game, own + answer) and \
        bool(_named(answer) & hidden)


def _bot_showed_nothing(game, own, answer, hidden) -> bool:
    return _barrier_free(game, own + answer) and \
        not _named(answer) & hidden


@pytest.mark.parametrize("name", [g for g in ("loot", "maskmen") if g in REGISTRY])
def test_a_takeback_never_crosses_a_card_a_bot_played_from_its_hand(seeded_api, name):
    api = seeded_api
    game_id, human, answer = _play_until(api, name, _bot_showed_a_hidden_card)
    state = api.service.projection(game_id).state
    length = api.log_length(game_id)
    response = api.client.post(f"/v1/games/{game_id}/undo", headers=human, json={})
    assert response.status_code == 422, response.json
    assert response.json["code"] == "undo_past_hidden_information"
    assert response.json["details"]["version"] in {e.version for e in answer}
    assert api.log_length(game_id) == length
    assert api.service.projection(game_id).state == state


@pytest.mark.parametrize("name", [g for g in ("maskmen",) if g in REGISTRY])
def test_a_takeback_may_cross_a_bot_answer_that_showed_nothing(seeded_api, name):
    api = seeded_api
    game_id, human, answer = _play_until(api, name, _bot_showed_nothing)
    first = answer[0].version
    response = api.client.post(f"/v1/games/{game_id}/undo", headers=human, json={})
    assert response.status_code == 200, response.json
    types = [e.type for e in api.service.store.read(game_id, api.log_length(game_id) - 1)]
    assert types == ["undo_requested", "rewound"]
    assert api.service.store.read(game_id)[-1].data["to_version"] < first


@pytest.mark.skipif("tally" not in REGISTRY, reason="no tally")
def test_with_nothing_hidden_a_takeback_crosses_the_bots_moves(seeded_api):
    api = seeded_api
    game_id, human = _against_a_bot(api, "tally")
    before = api.service.projection(game_id)
    mine = api.get(game_id, human)
    assert api.send(game_id, human, {"type": "add", "amount": 2}, mine["version"]).status_code \
        == 200
    assert run_bots(api.service, game_id)
    response = api.client.post(f"/v1/games/{game_id}/undo", headers=human, json={})
    assert response.status_code == 200, response.json
    assert api.service.projection(game_id).state == before.state


@pytest.mark.skipif("loot" not in REGISTRY, reason="no loot")
def test_the_offline_audit_rejects_a_takeback_that_crossed_a_bots_card(seeded_api):
    from events.audit import transcript, verify
    from events.store import NewEvent

    api = seeded_api
    game_id, _, _ = _play_until(api, "loot", _bot_showed_a_hidden_card)
    store = api.service.store
    mine = [e for e in store.read(game_id) if e.command is not None and e.seat == "0"]
    length = api.log_length(game_id)
    # What the service used to allow, written straight to the log.
    store.append(game_id, length, [
        NewEvent("undo_requested", {"seat": 0, "to_version": mine[-1].version - 1,
                                    "waiting": []}, "0"),
        NewEvent("rewound", {"to_version": mine[-1].version - 1})], "forged-takeback")
    finding = verify(transcript(game_id, store.read(game_id), api.service.seed(game_id)))
    assert not finding.ok and finding.version == length + 2
    assert "did not know" in finding.reason
