"""No seat ever receives another seat's hidden cards or the deck order (issue 2, item 4).

Whole games are played over HTTP. After every command each seat's view and an error body are
scanned for the ids of the cards that seat may not see then (``game.secrets``, worked out from
the server's full state). At the end every event, as each seat receives it from the event
pages and from the SSE stream, is scanned for the cards hidden from that seat both just before
and just after it (an event may show what it makes public, and a card id may be dealt again).
"""

from __future__ import annotations

import json

import pytest

from events.projector import apply as apply_event
from events.projector import empty, with_batch_ends
from games import REGISTRY
from games.core import Rng
from tests.service.test_sse import _read_events

HIDDEN_GAMES = [name for name in ("loot", "maskmen", "faker_blue", "magblast", "wotr")
                if name in REGISTRY]


def _leaks(text: str, secrets: set[str]) -> list[str]:
    return sorted(s for s in secrets if f'"{s}"' in text)


@pytest.mark.parametrize("name", HIDDEN_GAMES)
@pytest.mark.parametrize("seed", [1, 2])
def test_no_seat_ever_sees_hidden_cards(seeded_api, name, seed):
    api = seeded_api
    game = REGISTRY[name]
    seats = 3 if game.max_seats >= 3 else 2
    game_id, players = api.table(name, seats)
    rng = Rng(f"hidden-{seed}")
    for _ in range(3000):
        projection = api.service.projection(game_id)
        secrets = [game.secrets(projection.state, seat) for seat in range(seats)]
        _scan_views_and_errors(api, game_id, players, secrets)
        if projection.status == "finished":
            break
        pending = sorted(int(s) for s in api.get(game_id)["pending"])
        seat = pending[rng.below(len(pending))]
        mine = api.get(game_id, players[seat])
        command = mine["legal_commands"][rng.below(len(mine["legal_commands"]))]
        response = api.send(game_id, players[seat], command, mine["version"])
        assert response.status_code == 200, response.json
    else:
        pytest.fail("the game did not end")
    hidden = _hidden_around_each_event(api, game, game_id, seats)
    _scan_event_pages(api, game_id, players, hidden)
    _scan_streams(api, game_id, players, hidden)


def _hidden_around_each_event(api, game, game_id, seats) -> dict[int, list[set[str]]]:
    """Version -> per seat, the ids hidden from it both before and after that event."""
    projection, hidden = empty(), {}
    before = [set()] * seats
    for event, batch_end in with_batch_ends(api.service.store.read(game_id)):
        apply_event(projection, event, batch_end=batch_end)
        state = projection.state
        after = [game.secrets(state, s) if state else set() for s in range(seats)]
        hidden[event.version] = [b & a for b, a in zip(before, after, strict=True)]
        before = after
    return hidden


def _scan_views_and_errors(api, game_id, players, secrets) -> None:
    for seat, headers in enumerate(players):
        view = api.client.get(f"/v1/games/{game_id}", headers=headers)
        assert not _leaks(view.get_data(as_text=True), secrets[seat]), f"view of seat {seat}"
        # An error body carries legal commands: they must be the caller's own.
        error = api.send(game_id, headers, {"type": "no_such_command"}, view.json["version"])
        assert error.status_code in (400, 422)
        assert not _leaks(error.get_data(as_text=True), secrets[seat]), f"error to {seat}"


def _scan_event_pages(api, game_id, players, hidden) -> None:
    for seat, headers in enumerate(players):
        page = 1
        while page:
            body = api.client.get(f"/v1/games/{game_id}/events?from={page}&limit=1000",
                                  headers=headers).json
            for event in body["events"]:
                leaked = _leaks(json.dumps(event), hidden[event["version"]][seat])
                assert not leaked, f"event {event['version']} shows seat {seat} {leaked}"
            page = body["next"]


def _scan_streams(api, game_id, players, hidden) -> None:
    for seat, headers in enumerate(players):
        response = api.client.get(f"/v1/games/{game_id}/events/stream?last_event_id=0",
                                  headers=headers, buffered=False)
        events = _read_events(response, 100_000)
        assert events[-1]["event"] == "seed_revealed"
        for event in events:
            leaked = _leaks(json.dumps(event["data"]), hidden[event["id"]][seat])
            assert not leaked, f"SSE {event['id']} shows seat {seat} {leaked}"


# --- test-only options (issue 23 item 11) -----------------------------------------------------

STACKED = {"hands": [["laser_blast-1", "laser_blast-2", "laser_blast-3", "beam_blast-1",
                      "beam_blast-2"], []], "action_top": ["direct_hit-1"]}


@pytest.mark.skipif("magblast" not in REGISTRY, reason="no magblast")
def test_a_stacked_deal_is_refused_over_http_with_production_settings(make_app):
    from tests.service.conftest import Api

    api = Api(make_app(limits={"test_options": False}))
    host = api.player()
    before = api.client.get("/v1/games?status=open").json
    response = api.client.post("/v1/games", headers=host, json={
        "game": "magblast", "seats": [{"kind": "human"}] * 2, "options": {"deal": STACKED}})
    assert response.status_code == 400 and response.json["code"] == "test_only_option"
    assert response.json["details"] == {"options": ["deal"]}
    assert api.client.get("/v1/games?status=open").json == before
    catalog = {g["name"]: g for g in api.client.get("/v1/games/catalog").json}
    assert "deal" not in catalog["magblast"]["options"]["properties"]


@pytest.mark.skipif("magblast" not in REGISTRY, reason="no magblast")
def test_a_stacked_deal_allowed_for_tests_is_shown_to_no_one(api):
    game_id, players = api.table("magblast", 2, {"deal": STACKED})
    _, auditor_token = api.app.extensions["tablestream"].accounts.create("aud", ["auditor"])
    auditor = {"Authorization": f"Bearer {auditor_token}"}
    for headers in (*players, {}, auditor):
        game = api.get(game_id, headers)
        assert "deal" not in game["options"] and "reaction_seconds" in game["options"]
        events = api.client.get(f"/v1/games/{game_id}/events", headers=headers).json["events"]
        created = next(e for e in events if e["type"] == "game_created")
        assert "deal" not in created["data"]["options"]
        if headers in (players[1], {}):  # the dealt hand itself is seat 0's alone
            assert "laser_blast-3" not in json.dumps(events)
    mine = api.get(game_id, players[0])
    command = mine["legal_commands"][0]
    moved = api.send(game_id, players[0], command, mine["version"])
    assert moved.status_code == 200 and "deal" not in moved.json["game"]["options"]
    # The deal was used: seat 0 holds the hand it names.
    assert sorted(api.service.projection(game_id).state["hands"][0]) == sorted(STACKED["hands"][0])
