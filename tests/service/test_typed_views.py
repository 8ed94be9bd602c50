"""Each game's view, result and events are typed in the OpenAPI document (issue 26 item 4), and
what the rules send matches those types exactly: random play of every game, seen by every seat,
a spectator (an anonymous caller) and the auditor, validates each payload against its schema in
the document, unknown fields refused (``additionalProperties: false``), so a drift fails here."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import jsonschema_rs
import pytest
from marshmallow import fields, validate

from games import REGISTRY
from games.core import AUDITOR, SPECTATOR, Rejected, Rng, random_bot
from service.http.contract import type_name
from service.http.openapi import openapi_dict
from tests.playing import play_randomly

SEEDS = range(2)  # tests/games/test_conformance.py plays more; here every shape is met
MAX_STEPS = 20_000


@cache
def _schemas() -> dict[str, Any]:
    return openapi_dict()["components"]["schemas"]


@cache
def _validator(component: str) -> jsonschema_rs.Draft202012Validator:
    assert component in _schemas(), f"the document has no {component}"
    root = {"components": {"schemas": _schemas()},
            "$ref": f"#/components/schemas/{component}"}
    return jsonschema_rs.Draft202012Validator(root)


def _check(component: str, payload: Any, where: str) -> None:
    # Through JSON, as a client receives it (tuples become lists, int keys strings).
    payload = json.loads(json.dumps(payload))
    validator = _validator(component)
    if not validator.is_valid(payload):
        errors = [f"{list(e.instance_path)}: {e.message[:300]}"
                  for e in validator.iter_errors(payload)]
        pytest.fail(f"{where}: {component} refuses " + "; ".join(errors[:3]))


def _variants(game) -> list[dict[str, Any]]:
    """Each option set apart from the defaults: every other choice of a choice option, every
    flag flipped (events some options alone bring: Mag Blast's No Mercy, Loot's teams)."""
    out = []
    for key, field in game.options().fields.items():
        if key in game.test_only_options:
            continue
        if isinstance(field, fields.Boolean):
            out.append({key: not field.load_default})
        for check in field.validators:
            if isinstance(check, validate.OneOf) and isinstance(field, fields.String):
                out += [{key: choice} for choice in check.choices
                        if choice != field.load_default]
    return out


def _cases() -> list[Any]:
    cases = [(name, seats, seed, {}) for name, game in REGISTRY.items()
             for seats in range(game.min_seats, game.max_seats + 1) for seed in SEEDS] + \
        [(name, seats, 0, options) for name, game in REGISTRY.items()
         for options in _variants(game) for seats in (game.min_seats, game.max_seats)]
    return [pytest.param(*case, id="-".join(map(str, case[:3])) + "".join(
        f"-{k}={v}" for k, v in case[3].items())) for case in cases]


@pytest.mark.parametrize(("name", "seats", "seed", "options"), _cases())
def test_every_view_result_and_event_of_random_play_matches_its_type(name, seats, seed,
                                                                      options):
    game = REGISTRY[name]
    prefix = type_name(name)
    viewers = [*range(seats), SPECTATOR, AUDITOR]

    def check_events(events, step):
        for event in events:
            assert event.type in game.event_shapes, f"{name}'s {event.type} has no shape"
            for viewer in viewers:
                shown = game.redact(event, viewer)
                if shown is not None:
                    _check(f"{type_name(name, shown.type)}Data", shown.data,
                           f"step {step}, {event.type} to {viewer}")

    try:
        events = game.setup(seats, game.load_options(options), Rng(f"setup-{seed}"))
    except Rejected:
        pytest.skip(f"{options} need another number of seats")
    state = game.fold(events)
    check_events(events, 0)
    for step in range(MAX_STEPS):
        for viewer in viewers:
            _check(f"{prefix}View", game.view(state, viewer), f"step {step}, view of {viewer}")
            if step % 5 == 0:
                _check(f"{prefix}View", game.replay_view(state, viewer, game_over=True),
                       f"step {step}, replay of {viewer}")
        result = game.result(state)
        if result is not None:
            _check(f"{prefix}Result", result, "the result")
            return
        pending = game.pending(state)
        seat = sorted(pending)[Rng(f"pick-{seed}", step).below(len(pending))]
        command = random_bot(game.seen(state, seat), Rng(f"bot-{seed}", step))
        new = game.decide(state, command, seat, Rng(f"game-{seed}", step))
        for event in new:
            state = game.evolve(state, event)
        check_events(new, step)
    pytest.fail(f"{name} did not end within {MAX_STEPS} steps")


def test_a_game_and_its_event_pages_are_unions_discriminated_by_game():
    schemas = _schemas()
    for union, member in (("GameOut", "Game"), ("EventPage", "EventPage")):
        assert schemas[union]["discriminator"]["propertyName"] == "game"
        mapping = schemas[union]["discriminator"]["mapping"]
        assert sorted(mapping) == sorted(REGISTRY)
        for name, ref in mapping.items():
            assert ref == f"#/components/schemas/{type_name(name)}{member}"
            assert schemas[ref.rsplit("/", 1)[1]]["properties"]["game"]["enum"] == [name]


def test_a_games_events_are_a_union_discriminated_by_type_beside_the_platforms():
    from events.projector import PLATFORM_EVENTS

    schemas = _schemas()
    for name, game in REGISTRY.items():
        union = schemas[f"{type_name(name)}Event"]
        mapping = union["discriminator"]["mapping"]
        assert union["discriminator"]["propertyName"] == "type"
        assert set(mapping) == set(game.event_shapes) | PLATFORM_EVENTS


def test_seats_are_integers_and_pending_is_keyed_by_seat_number():
    schemas = _schemas()
    loot = schemas["LootGame"]["properties"]
    assert loot["pending"]["propertyNames"] == {"pattern": "^[0-9]+$"}
    assert loot["you"]["type"] == ["integer", "null"]
    assert schemas["LootResult"]["properties"]["winners"]["items"]["type"] == "integer"
    assert schemas["SeatOut"]["properties"]["seat"]["type"] == "integer"


def test_a_served_game_and_its_event_pages_match_their_types(api):
    """Over HTTP, as a seat and anonymously: the game (view, result, pending, legal commands)
    and its log, platform events included, match the document."""
    ann = api.player("ann")
    game_id = api.create(ann, "loot", [{"kind": "human"}, {"kind": "bot", "level": "random"}])
    _check("GameOut", api.get(game_id, ann), "an open game")
    started = api.client.post(f"/v1/games/{game_id}/start", headers=ann)
    assert started.status_code == 200, started.json
    _check("GameOut", started.json, "a started game")
    # The move's answer (its events and the game after it), by whichever seat is to move: the
    # bot seat is played here (no worker runs bots in these tests), as the service would.
    for step in range(20):
        game = api.get(game_id, ann)
        if game["legal_commands"]:
            break
        play_randomly(api.service, game_id, f"typed-{step}", moves=1)
    moved = api.client.post(f"/v1/games/{game_id}/commands", headers=ann,
                            json=game["legal_commands"][0])
    assert moved.status_code == 200, moved.json
    assert moved.json["events"]
    _check("CommandOut", moved.json, "a move's answer")
    play_randomly(api.service, game_id, "typed")
    for headers in (ann, {}):
        game = api.get(game_id, headers)
        assert game["result"] is not None
        _check("GameOut", game, "a finished game")
        page = api.client.get(f"/v1/games/{game_id}/events?limit=1000", headers=headers).json
        assert page["game"] == "loot" and page["events"]
        _check("EventPage", page, "the event page")
    mine = api.client.get("/v1/me/games?filter=finished", headers=ann)
    assert mine.status_code == 200, mine.json
    for row in mine.json:
        _check("MyGame", row, "a row of my games")
