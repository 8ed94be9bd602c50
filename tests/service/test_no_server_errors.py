"""Bad or unusual input is a 4xx problem, never a 500 (issue 9, item 8)."""

from __future__ import annotations

import pytest

from games import REGISTRY
from tests.playing import play_randomly


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
    response = getattr(api.client, method)(f"/v1/games/{bad_id}{suffix}", headers=api.player())
    _assert_problem(response, 404, "not_found")


@pytest.mark.parametrize("header", ["²", "١٢x", "-1", "9" * 40, "abc"])
def test_a_last_event_id_that_is_no_version_is_a_bad_request(api, header):
    # A finished game: a stream that (wrongly) started would end rather than wait for moves.
    game_id, players = api.table("tally", 1, {"target": 50})
    api.play_to_end(game_id, players)
    response = api.client.get(f"/v1/games/{game_id}/events/stream",
                              headers={**players[0], "Last-Event-ID": header})
    _assert_problem(response, 400, "invalid_request")
