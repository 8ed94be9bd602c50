"""Disputes and takeback requests do not touch clocks, and disputes are limited per player
(issue 9 item 4)."""

from __future__ import annotations

from tests.service.conftest import Api


def _add(api, game_id, players, seat: int) -> None:
    version = api.get(game_id)["version"]
    response = api.send(game_id, players[seat], {"type": "add", "amount": 1}, version)
    assert response.status_code == 200, response.json


def _to_move(api, game_id) -> int:
    return int(next(iter(api.get(game_id)["pending"])))


def test_filing_a_dispute_leaves_the_running_clock_alone(api):
    game_id, players = api.table("tally", 2, {"target": 50, "turn_seconds": 60})
    seat = _to_move(api, game_id)
    prompt = api.get(game_id)["pending"][str(seat)]
    for _ in range(3):  # the seat on the clock disputes, again and again
        response = api.client.post(f"/v1/games/{game_id}/disputes", headers=players[seat],
                                   json={"version": 1, "reason": "stalling"})
        assert response.status_code == 201, response.json
    assert api.get(game_id)["pending"][str(seat)] == prompt
    # The clock job issued when the decision opened still finds it pending, and expires it.
    outcome = api.service.expire_clock(game_id, seat, prompt["since"],
                                       now=api.service.projection(game_id).deadline(seat) + 1)
    assert outcome is not None and outcome.events[0].type == "clock_expired"


def test_asking_for_a_takeback_leaves_the_running_clock_alone(api):
    game_id, players = api.table("tally", 2, {"target": 50, "turn_seconds": 60})
    first = _to_move(api, game_id)
    for seat in (first, 1 - first, first):
        _add(api, game_id, players, seat)
    seat = 1 - first  # on the clock, with a move of its own to take back
    prompt = api.get(game_id)["pending"][str(seat)]
    response = api.client.post(f"/v1/games/{game_id}/undo", headers=players[seat], json={})
    assert response.status_code == 200, response.json
    assert response.json["undo"]["waiting"] == [first]
    assert api.get(game_id)["pending"][str(seat)] == prompt
    response = api.client.post(f"/v1/games/{game_id}/undo/answer", headers=players[first],
                               json={"accept": False})
    assert response.status_code == 200, response.json
    assert api.get(game_id)["pending"][str(seat)] == prompt


def test_disputes_are_limited_per_player(make_app):
    api = Api(make_app(limits={"disputes_per_minute": 2}))
    game_id, players = api.table("tally", 2, {"target": 50})
    statuses = []
    for _ in range(3):
        response = api.client.post(f"/v1/games/{game_id}/disputes", headers=players[0],
                                   json={"version": 1, "reason": "look again"})
        statuses.append(response.status_code)
    assert statuses == [201, 201, 429]
    assert response.mimetype == "application/problem+json"
    assert response.json["code"] == "rate_limited"
    assert 1 <= int(response.headers["Retry-After"]) <= 60
    length = api.log_length(game_id)
    assert [e.type for e in api.service.store.read(game_id)].count("dispute_opened") == 2
    # Another player's disputes are their own count.
    other = api.client.post(f"/v1/games/{game_id}/disputes", headers=players[1],
                            json={"version": 1, "reason": "me too"})
    assert other.status_code == 201 and api.log_length(game_id) == length + 2
