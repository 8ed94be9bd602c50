"""The hot path's answers (service/http/wire.py) are what the documented schemas would dump."""

from __future__ import annotations

import json

import orjson
import pytest

from games.core import AUDITOR, SPECTATOR
from service.http import wire
from service.http.games import game_body, game_wire
from service.http.schemas import CommandOut, EventOut, EventPage, GameOut


def _viewers(api, game_id):
    """Every seated player, an outsider (a spectator), an auditor and nobody."""
    seated = [{"id": s["player"], "roles": []} for s in api.get(game_id)["seats"]]
    return [*seated, {"id": "p_outsider", "roles": []},
            {"id": "p_auditor", "roles": ["auditor"]}, None]


@pytest.mark.parametrize("game, humans, options", [
    ("loot", 2, {"turn_seconds": 60}),  # deadlines: seconds inside, milliseconds on the wire
    ("maskmen", 3, {}),
    ("magblast", 2, {"reaction_seconds": 30}),
])
def test_fast_game_answer_equals_the_game_schema_dump(api, game, humans, options):
    game_id, players = api.table(game, humans, options)
    for _ in range(6):
        public = api.get(game_id)
        if public["status"] != "running":
            break
        seat = int(sorted(public["pending"])[0])
        mine = api.get(game_id, players[seat])
        assert api.send(game_id, players[seat], mine["legal_commands"][0],
                        mine["version"]).status_code == 200
        with api.app.app_context():
            projection = api.service.projection(game_id)
            for viewer in _viewers(api, game_id):
                body = game_body(game_id, viewer, projection)
                assert wire.game_out(body) == GameOut().dump(body)
                # The same JSON (its view and commands are embedded encoded: wire.Encoded).
                assert orjson.loads(wire.dumps(game_wire(game_id, viewer, projection))) \
                    == orjson.loads(wire.dumps(wire.game_out(body)))


def test_fast_move_answer_equals_the_command_schema_dump(api):
    game_id, players = api.table("loot", 2, {"turn_seconds": 60})
    public = api.get(game_id)
    seat = int(sorted(public["pending"])[0])
    mine = api.get(game_id, players[seat])
    response = api.send(game_id, players[seat], mine["legal_commands"][0], mine["version"])
    assert response.status_code == 200
    with api.app.app_context():
        projection = api.service.projection(game_id)
        stored = api.service.store.read(game_id)
        # The whole log as each kind of viewer sees it: own commands, redacted data, the
        # platform's "system" seat.
        for viewer in (seat, 1 - seat, SPECTATOR, AUDITOR):
            events = [api.service.public_event(projection.game, e, viewer) for e in stored]
            body = {"version": projection.version, "events": events,
                    "game": game_body(game_id, None, projection)}
            assert wire.command_out(body) == CommandOut().dump(body)
            assert [wire.event_out(e) for e in events] == EventOut(many=True).dump(events)
            page = {"game": "loot", "version": projection.version, "events": events,
                    "next": None}
            assert wire.event_page_out(page) == EventPage().dump(page)
        # The move's own answer: its events and the mover's picture, as the schema dumps them.
        mover = {"id": public["seats"][seat]["player"], "roles": []}
        body = {"version": projection.version,
                "events": [api.service.public_event(projection.game, e, seat)
                           for e in stored if e.version > mine["version"]],
                "game": game_body(game_id, mover, projection)}
        assert response.json == json.loads(json.dumps(CommandOut().dump(body)))


def test_move_answer_on_the_wire_is_the_schema_dump_sorted(api):
    game_id, players = api.table("tally", 1, {"target": 100})
    mine = api.get(game_id, players[0])
    response = api.send(game_id, players[0], mine["legal_commands"][0], mine["version"])
    assert response.status_code == 200
    assert response.headers["Content-Type"] == "application/json"
    assert response.headers["Idempotent-Replayed"] == "false"
    text = response.get_data(as_text=True)
    # Compact, keys sorted: what Flask's JSON provider wrote before.
    assert text == json.dumps(json.loads(text), sort_keys=True, separators=(",", ":")) + "\n"


def test_fast_encoding_falls_back_for_integers_beyond_64_bits():
    assert wire.dumps({"b": 2**70, "a": 1}) == b'{"a":1,"b":1180591620717411303424}'


@pytest.mark.parametrize("body", [
    {"type": "add", "amount": 1, "expected_version": 0},
    {"type": "play", "card": {"id": 3}, "expected_version": 12, "command_id": "x" * 128},
    {"type": "pass", "expected_version": 5, "command_id": "retry-1"},
])
def test_well_formed_command_loads_as_the_schema_loads_it(body):
    import marshmallow as ma

    from service.http.schemas import CommandIn

    assert CommandIn().load(body) == ma.Schema.load(CommandIn(), body) == body


@pytest.mark.parametrize("body", [
    {"type": "add", "expected_version": -1},
    {"type": "add", "expected_version": True},
    {"type": 3, "expected_version": 1},
    {"type": "add", "expected_version": 1, "command_id": ""},
    {"type": "add", "expected_version": 1, "command_id": "x" * 129},
    {"type": "add"},
])
def test_malformed_command_is_still_refused_by_the_schema(api, body):
    headers = api.player()
    game_id, _ = api.table("tally", 1, {"target": 100})
    response = api.client.post(f"/v1/games/{game_id}/commands", headers=headers, json=body)
    assert response.status_code == 400
    assert api.log_length(game_id) == api.get(game_id)["version"]



def test_the_audit_answer_is_the_transcript_schema_dump(api):
    from events.audit import transcript
    from service.http.schemas import AuditOut

    game_id, players = api.table("loot", 2)
    api.play_to_end(game_id, players)
    response = api.client.get(f"/v1/games/{game_id}/audit", headers=players[0])
    assert response.status_code == 200
    with api.app.app_context():
        body = transcript(game_id, api.service.store.read(game_id), api.service.seed(game_id))
    assert response.json == json.loads(json.dumps(AuditOut().dump(body)))


def test_an_encoded_part_is_embedded_as_the_same_json_even_beside_a_huge_integer():
    view = {"b": [1, {"z": None, "a": "é"}], "a": 2}
    plain = {"view": view, "version": 7}
    carried = {"view": wire.Encoded(view), "version": 7}
    assert wire.dumps(carried) == wire.dumps(plain)
    # Beyond 64 bits orjson gives up and the stdlib encodes: the part still goes in whole.
    huge = 2 ** 70
    assert json.loads(wire.dumps({**carried, "version": huge})) == {**plain, "version": huge}
