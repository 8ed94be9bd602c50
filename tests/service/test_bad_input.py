"""Bad input gets a 4xx problem+json with a stable code and appends nothing (issue 2, item 6)."""

from __future__ import annotations

import pytest

from service.http import create_app
from service.runtime.config import Config
from tests import unlimited
from tests.service.conftest import Api


@pytest.fixture
def table(api):
    game_id, players = api.table("tally", 2, {"target": 50})
    return api, game_id, players


def _mover(api, game_id, players):
    public = api.get(game_id)
    seat = int(next(iter(public["pending"])))
    return players[seat], players[1 - seat], public["version"]


def _assert_problem(response, status: int, code: str) -> None:
    assert response.status_code == status, response.json
    assert response.mimetype == "application/problem+json"
    body = response.json
    assert body["code"] == code
    assert body["status"] == status
    assert body["title"] and body["detail"] and body["type"].endswith(code)


def _unchanged(api, game_id, before: int) -> None:
    assert api.log_length(game_id) == before


def test_unknown_game_type_is_rejected(api):
    headers = api.player()
    response = api.client.post("/v1/games", headers=headers,
                               json={"game": "chess", "seats": [{"kind": "human"}] * 2})
    _assert_problem(response, 400, "unknown_game_type")


def test_malformed_json_is_rejected_and_appends_nothing(table):
    api, game_id, players = table
    before = api.log_length(game_id)
    response = api.client.post(f"/v1/games/{game_id}/commands", headers=players[0],
                               data="{not json", content_type="application/json")
    _assert_problem(response, 400, "malformed_json")
    _unchanged(api, game_id, before)


def test_wrong_field_types_are_rejected_and_append_nothing(table):
    api, game_id, players = table
    mover, _, version = _mover(api, game_id, players)
    before = api.log_length(game_id)
    response = api.send(game_id, mover, {"type": "add", "amount": "lots"}, version)
    _assert_problem(response, 400, "invalid_command")
    response = api.client.post(f"/v1/games/{game_id}/commands", headers=mover,
                               json={"type": "add", "amount": 1, "expected_version": "v1"})
    _assert_problem(response, 400, "invalid_request")
    _unchanged(api, game_id, before)


def test_unknown_command_is_rejected_and_appends_nothing(table):
    api, game_id, players = table
    mover, _, version = _mover(api, game_id, players)
    before = api.log_length(game_id)
    response = api.send(game_id, mover, {"type": "fly"}, version)
    _assert_problem(response, 400, "unknown_command")
    _unchanged(api, game_id, before)


def test_acting_out_of_turn_is_a_rule_violation_with_legal_commands(table):
    api, game_id, players = table
    _, waiter, version = _mover(api, game_id, players)
    before = api.log_length(game_id)
    response = api.send(game_id, waiter, {"type": "add", "amount": 1}, version)
    _assert_problem(response, 422, "not_your_turn")
    assert response.json["version"] == version
    assert response.json["legal_commands"] == []
    _unchanged(api, game_id, before)


def test_acting_for_a_seat_you_do_not_hold_is_forbidden(table):
    api, game_id, _ = table
    stranger = api.player("eve")
    version = api.get(game_id)["version"]
    before = api.log_length(game_id)
    response = api.send(game_id, stranger, {"type": "add", "amount": 1}, version)
    _assert_problem(response, 403, "not_seated")
    _unchanged(api, game_id, before)


def test_illegal_play_is_a_rule_violation_naming_the_rule(api):
    game_id, players = api.table("tally", 1, {"target": 50})
    version = api.get(game_id)["version"]
    before = api.log_length(game_id)
    response = api.send(game_id, players[0], {"type": "add", "amount": 9}, version)
    _assert_problem(response, 400, "invalid_command")
    _unchanged(api, game_id, before)


def test_missing_token_is_unauthorized(table):
    api, game_id, _ = table
    version = api.get(game_id)["version"]
    before = api.log_length(game_id)
    response = api.send(game_id, {}, {"type": "add", "amount": 1}, version)
    _assert_problem(response, 401, "missing_token")
    _unchanged(api, game_id, before)


def test_wrong_token_is_unauthorized(table):
    api, game_id, _ = table
    version = api.get(game_id)["version"]
    before = api.log_length(game_id)
    response = api.send(game_id, {"Authorization": "Bearer nope"}, {"type": "add", "amount": 1},
                        version)
    _assert_problem(response, 401, "invalid_token")
    _unchanged(api, game_id, before)


def test_stale_expected_version_is_a_conflict(table):
    api, game_id, players = table
    mover, _, version = _mover(api, game_id, players)
    before = api.log_length(game_id)
    response = api.send(game_id, mover, {"type": "add", "amount": 1}, version - 1)
    _assert_problem(response, 409, "version_conflict")
    assert response.json["version"] == version
    _unchanged(api, game_id, before)


def test_unknown_game_is_not_found(api):
    response = api.client.get("/v1/games/doesnotexist")
    _assert_problem(response, 404, "game_not_found")


def test_unknown_route_is_a_problem_too(api):
    _assert_problem(api.client.get("/v1/nothing-here"), 404, "not_found")


def test_too_many_commands_a_second_get_429_and_append_nothing(redis_url):
    limited = Api(create_app(Config(redis_url=redis_url, workers_enabled=False,
                                    **{**unlimited.CONFIG, "rate_limit_per_second": 3})))
    game_id, players = limited.table("tally", 1, {"target": 1000})
    statuses = []
    for _ in range(5):
        version = limited.get(game_id)["version"]
        response = limited.send(game_id, players[0], {"type": "add", "amount": 1}, version)
        statuses.append(response.status_code)
    assert statuses == [200, 200, 200, 429, 429]
    _assert_problem(response, 429, "rate_limited")
    assert response.headers["Retry-After"] == "1"
    assert limited.log_length(game_id) == 4 + 3


@pytest.mark.parametrize("name", ["a\x00b", "ann\r\nX-Admin: 1", "\u202eanna", " ", "\t\n",
                                  "ann\u200b", "ann\u2066x", "x\u2028y"])
def test_a_name_with_control_or_bidi_characters_or_blank_is_refused(api, name):
    """Issue 23 item 15: names are shown to other players, in logs and terminals."""
    response = api.client.post("/v1/players", json={"name": name})
    assert response.status_code == 400 and response.json["code"] == "invalid_name"
    assert response.mimetype == "application/problem+json"


def test_a_name_is_kept_in_nfkc_form_without_surrounding_spaces(api):
    response = api.client.post("/v1/players", json={"name": "  \uff21nn\u00e9 \uff2cee "})
    assert response.status_code == 201 and response.json["name"] == "Anné Lee"
    assert api.client.post("/v1/players", json={"name": "Zoë 李"}).json["name"] == "Zoë 李"
