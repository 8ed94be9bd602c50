"""Bad or unusual input is a 4xx problem, never a 500 (issue 9, item 8)."""

from __future__ import annotations

import io
import json

import jsonschema
import pytest

from games import REGISTRY, UNLISTED
from service.http.blueprint import MAX_JSON_DEPTH
from service.runtime.config import Config
from tests.playing import play_randomly

MAX_BODY = Config().max_body_bytes


def _assert_problem(response, status: int, code: str) -> None:
    assert response.status_code == status, response.data[:300]
    assert response.mimetype == "application/problem+json"
    assert response.json["code"] == code
    assert response.json["status"] == status


@pytest.mark.skipif("faker_blue" not in REGISTRY, reason="no faker_blue")
def test_faker_blue_replay_between_a_discard_and_the_next_draw_shows_the_table(api):
    service = api.service
    game_id = service.create_game("p_host", "faker_blue", {},
                                  [{"kind": "bot", "level": "random"}] * 3)
    play_randomly(service, game_id, 0)
    discards = [e.version for e in service.store.read(game_id) if e.type == "cards_discarded"]
    assert discards
    viewer = api.player()
    for version in discards[:5]:
        for headers in ({}, viewer):
            response = api.client.get(f"/v1/games/{game_id}/replay?version={version}",
                                      headers=headers)
            assert response.status_code == 200, response.data[:300]
            assert response.json["version"] == version and response.json["view"]


GAME_PATHS = [("get", ""), ("get", "/events"), ("get", "/events/stream"),
              ("get", "/replay?version=1"), ("get", "/audit"), ("get", "/events/1/explain"),
              ("post", "/join"), ("post", "/leave"), ("post", "/start"), ("post", "/commands"),
              ("post", "/undo"), ("post", "/undo/answer"), ("post", "/disputes")]


@pytest.mark.parametrize("bad_id", ["a{b", "a}b", "{}", "%7Bg%7D"])
@pytest.mark.parametrize(("method", "suffix"), GAME_PATHS)
def test_a_game_id_with_braces_is_not_found(api, bad_id, method, suffix):
    """Braces would break the game's Redis hash tag: such an id names no game (404)."""
    response = getattr(api.client, method)(f"/v1/games/{bad_id}{suffix}", headers=api.player(),
                                           json={})
    _assert_problem(response, 404, "game_not_found")


@pytest.mark.parametrize("header", ["²", "\u0661\u0662x", "-1", "9" * 40, "abc"])
def test_a_last_event_id_that_is_no_version_is_a_bad_request(api, header):
    # A finished game: a stream that (wrongly) started would end rather than wait for moves.
    game_id, players = api.table("tally", 1, {"target": 50})
    api.play_to_end(game_id, players)
    response = api.client.get(f"/v1/games/{game_id}/events/stream",
                              headers={**players[0], "Last-Event-ID": header})
    _assert_problem(response, 400, "invalid_request")


def test_json_nested_thousands_deep_is_malformed_not_a_recursion_error(api):
    game_id, players = api.table("tally", 1, {"target": 50})
    before = api.log_length(game_id)
    deep = "[" * 5000 + "]" * 5000
    response = api.client.post(f"/v1/games/{game_id}/commands", headers=players[0],
                               data='{"type": "add", "expected_version": 1, "amount": ' + deep
                               + "}", content_type="application/json")
    _assert_problem(response, 400, "malformed_json")
    response = api.client.post("/v1/players", data=deep, content_type="application/json")
    _assert_problem(response, 400, "malformed_json")
    assert api.log_length(game_id) == before


def test_json_nested_past_the_depth_limit_is_malformed(api):
    shallow = {"name": "ann", "extra": [[[[1]]]]}
    deep = {"name": "ann", "extra": 1}
    for _ in range(MAX_JSON_DEPTH):
        deep = {"name": "ann", "extra": deep}
    assert api.client.post("/v1/players", json=shallow).status_code == 400  # unknown field
    _assert_problem(api.client.post("/v1/players", json=deep), 400, "malformed_json")


def test_a_body_over_the_limit_is_refused_unread_before_authentication(api):
    game_id, _ = api.table("tally", 1, {"target": 50})
    before = api.log_length(game_id)
    body = b'{"type": "add", "amount": 1, "expected_version": 1, "pad": "' + b"x" * (12 << 20) \
        + b'"}'
    response = api.client.post(f"/v1/games/{game_id}/commands", data=body,
                               content_type="application/json")  # no token: 413 comes first
    _assert_problem(response, 413, "payload_too_large")
    assert api.log_length(game_id) == before


def test_a_chunked_body_over_the_limit_is_refused(api):
    body = b'{"name": "' + b"x" * (MAX_BODY + 10) + b'"}'
    response = api.client.post("/v1/players", input_stream=io.BytesIO(body),
                               content_type="application/json",
                               headers={"Transfer-Encoding": "chunked"},
                               # as gunicorn marks a chunked body, so werkzeug reads it to its end
                               environ_overrides={"wsgi.input_terminated": True})
    _assert_problem(response, 413, "payload_too_large")


def test_a_body_just_under_the_limit_is_read(api):
    body = b'{"name": "' + b"x" * (MAX_BODY - 20) + b'"}'
    response = api.client.post("/v1/players", data=body, content_type="application/json")
    _assert_problem(response, 400, "invalid_request")  # read and checked: the name is too long


@pytest.fixture(scope="module")
def problem_schema():
    from service.http.openapi import openapi_dict

    return openapi_dict()["components"]["schemas"]["Problem"]


def _assert_documented_problem(response, schema, status: int, code: str) -> dict:
    _assert_problem(response, status, code)
    jsonschema.validate(response.json, schema)  # the Problem schema allows no other members
    return response.json


def test_an_unknown_game_type_lists_the_hosted_games_as_documented(api, problem_schema):
    response = api.client.post("/v1/games", headers=api.player(),
                               json={"game": "chess", "seats": [{"kind": "human"}] * 2})
    body = _assert_documented_problem(response, problem_schema, 400, "unknown_game_type")
    assert body["details"]["known"] == sorted(set(REGISTRY) - UNLISTED)


@pytest.mark.skipif("loot" not in REGISTRY, reason="no loot")
def test_options_a_game_refuses_name_the_rule_as_documented(api, problem_schema):
    response = api.client.post("/v1/games", headers=api.player(),
                               json={"game": "loot", "seats": [{"kind": "human"}] * 3,
                                     "options": {"teams": True}})
    body = _assert_documented_problem(response, problem_schema, 400, "invalid_options")
    assert body["details"] == {"rule": "teams_need_4_6_or_8", "seats": 3}


def test_starting_with_empty_seats_is_a_conflict_naming_them_not_a_version_conflict(
        api, problem_schema):
    host = api.player()
    game_id = api.create(host, "tally", 3, {"target": 50})
    response = api.client.post(f"/v1/games/{game_id}/start", headers=host)
    body = _assert_documented_problem(response, problem_schema, 409, "seats_empty")
    assert body["details"] == {"seats": [1, 2]}
    assert body["title"] == "Conflict"


def test_a_stale_version_is_still_titled_a_version_conflict(api, problem_schema):
    game_id, players = api.table("tally", 1, {"target": 50})
    version = api.get(game_id)["version"]
    response = api.send(game_id, players[0], {"type": "add", "amount": 1}, version - 1)
    body = _assert_documented_problem(response, problem_schema, 409, "version_conflict")
    assert body["title"] == "Version conflict" and body["version"] == version


def test_a_fact_the_problem_schema_does_not_declare_goes_under_details(problem_schema):
    from service.http.errors import problem

    response = problem(409, "x", "X", "x happened", seats=[1], details={"a": 1}, version=3)
    body = json.loads(response.get_data())
    jsonschema.validate(body, problem_schema)
    assert body["details"] == {"a": 1, "seats": [1]} and body["version"] == 3


# --- what schemathesis found (tests/service/test_schemathesis.py) ---------------------------------

def test_the_live_stream_sends_each_event_as_the_events_page_does(api):
    from tests.service.test_sse import _read_events

    game_id, players = api.table("tally", 1, {"target": 1})
    version = api.get(game_id)["version"]
    api.send(game_id, players[0], {"type": "add", "amount": 1}, version)
    page = api.client.get(f"/v1/games/{game_id}/events", headers=players[0]).json["events"]
    response = api.client.get(f"/v1/games/{game_id}/events/stream?last_event_id=0",
                              headers=players[0], buffered=False)
    streamed = [e["data"] for e in _read_events(response, 1000)]
    assert streamed == page
    assert streamed[0]["seat"] is None  # the platform's game_created: no seat, not "system"


def test_a_replay_names_the_players_on_the_seats(api):
    game_id, _ = api.table("tally", 2, {"target": 50})
    now = api.get(game_id)
    replayed = api.client.get(f"/v1/games/{game_id}/replay?version={now['version']}")
    assert replayed.status_code == 200
    assert [s["name"] for s in replayed.json["seats"]] == [s["name"] for s in now["seats"]]
    assert [s["name"] for s in now["seats"]] == ["p0", "p1"]


@pytest.mark.parametrize("notice_id", ["0-20000000000000000000", "99999999999999999999-0",
                                       "\u0661-\u0661"])
def test_a_notice_id_that_cannot_be_a_stream_id_is_a_bad_request(api, notice_id):
    response = api.client.get(f"/v1/me/events/stream?last_event_id={notice_id}",
                              headers=api.player())
    _assert_problem(response, 400, "invalid_request")


def test_a_dispute_answers_with_the_table_after_the_ruling_as_documented(api):
    from service.http.openapi import openapi_dict

    game_id, players = api.table("faker_blue", 2)
    response = api.client.post(f"/v1/games/{game_id}/disputes", headers=players[0],
                               json={"version": 1, "reason": "check it"})
    assert response.status_code == 201, response.json
    document = openapi_dict()
    schema = {**document["components"]["schemas"]["CommandOut"],
              "components": document["components"]}
    jsonschema.validate(response.json, schema)  # it was missing the required game
    assert response.json["game"]["version"] == response.json["version"]


def _first_command(api, game_id, players):
    public = api.get(game_id)
    seat = int(sorted(public["pending"])[0])
    mine = api.get(game_id, players[seat])
    return seat, mine["legal_commands"][0], mine["version"]


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_a_command_with_a_field_of_its_own_it_does_not_have_is_refused_naming_it(api, name):
    """Issue 23 item 12: every game's commands carry only their own fields (400, named)."""
    game = REGISTRY[name]
    game_id, players = api.table(name, game.min_seats)
    seat, command, version = _first_command(api, game_id, players)
    response = api.send(game_id, players[seat], {**command, "stray_field": 1}, version)
    _assert_problem(response, 400, "invalid_command")
    assert "stray_field" in response.json["details"]["fields"], response.json
    assert api.log_length(game_id) == version


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_explain_of_any_version_of_any_game_is_never_a_server_error(api, name):
    """Versions across a random game, as the auditor (who sees the commands and their checks)
    and a spectator (issue 23 item 12: a command the rules wrongly let through made explain
    answer 500)."""
    service = api.service
    game = REGISTRY[name]
    game_id = service.create_game("p_host", name, {},
                                  [{"kind": "bot", "level": "random"}] * game.min_seats)
    play_randomly(service, game_id, 0)
    last = service.store.last_version(game_id)
    _, token = api.app.extensions["tablestream"].accounts.create("auditor", ["auditor"])
    viewers = [{"Authorization": f"Bearer {token}"}, {}]
    for version in sorted({1, last, *range(1, last + 1, max(1, last // 40))}):
        for headers in viewers:
            response = api.client.get(f"/v1/games/{game_id}/events/{version}/explain",
                                      headers=headers)
            assert response.status_code == 200, (version, response.data[:300])


def test_explain_words_a_failure_of_the_rules_to_explain_instead_of_failing(api, monkeypatch):
    game_id, players = api.table("tally", 1, {"target": 50})
    seat, command, version = _first_command(api, game_id, players)
    assert api.send(game_id, players[seat], command, version).status_code == 200

    def broken(*args):
        raise KeyError("target")

    monkeypatch.setattr(REGISTRY["tally"], "explain", broken)
    response = api.client.get(f"/v1/games/{game_id}/events/{version + 1}/explain",
                              headers=players[seat])
    assert response.status_code == 200
    assert "could not word their checks" in response.json["checks"][0]
