"""Long polls (issue 26): a game's events and a player's notices for clients that cannot follow
a stream (a generated client), answering at once when there is something, else after `wait`."""

from __future__ import annotations

import threading
import time


def _later(action, delay: float = 0.3) -> threading.Thread:
    thread = threading.Thread(target=lambda: (time.sleep(delay), action()), daemon=True)
    thread.start()
    return thread


def test_a_long_poll_answers_at_once_when_events_are_there(api):
    game_id, players = api.table("tally", 1, {"target": 100})
    version = api.get(game_id)["version"]
    started = time.monotonic()
    page = api.client.get(f"/v1/games/{game_id}/events?after={version - 2}&wait=25",
                          headers=players[0]).json
    assert time.monotonic() - started < 5
    assert [e["version"] for e in page["events"]] == [version - 1, version]
    assert page["version"] == version


def test_a_long_poll_waits_for_the_next_move_and_returns_it(api):
    game_id, players = api.table("tally", 1, {"target": 100})
    version = api.get(game_id)["version"]
    mover = _later(lambda: api.send(game_id, players[0], {"type": "add", "amount": 2}, version))
    started = time.monotonic()
    page = api.client.get(f"/v1/games/{game_id}/events?after={version}&wait=25",
                          headers=players[0]).json
    waited = time.monotonic() - started
    mover.join()
    assert 0.2 < waited < 20
    assert page["events"][0]["version"] == version + 1
    assert page["events"][0]["type"] == "added"
    assert page["version"] >= version + 1


def test_a_long_poll_with_nothing_new_answers_empty_after_its_wait(api):
    game_id, _ = api.table("tally", 1, {"target": 100})
    version = api.get(game_id)["version"]
    started = time.monotonic()
    page = api.client.get(f"/v1/games/{game_id}/events?after={version}&wait=1").json
    assert time.monotonic() - started >= 0.9
    assert page == {"game": "tally", "version": version, "events": [], "next": None}


def test_a_long_poll_waits_no_longer_than_the_server_allows(make_app):
    from tests.service.conftest import Api

    api = Api(make_app({"long_poll_max_seconds": 0.5}))
    game_id, _ = api.table("tally", 1, {"target": 100})
    version = api.get(game_id)["version"]
    started = time.monotonic()
    assert api.client.get(f"/v1/games/{game_id}/events?after={version}&wait=25").json[
        "events"] == []
    assert time.monotonic() - started < 5


def test_a_wait_beyond_25_seconds_is_refused(api):
    game_id, _ = api.table("tally", 1, {"target": 100})
    for query in ("wait=26", "wait=-1", "after=-1"):
        response = api.client.get(f"/v1/games/{game_id}/events?{query}")
        assert response.status_code == 400, query
        assert response.json["code"] == "invalid_request"


def test_a_players_notices_long_poll_returns_their_turn_when_it_comes(api):
    ann, bob = api.player("ann"), api.player("bob")
    game_id = api.create(ann, "loot", 2)
    api.client.post(f"/v1/games/{game_id}/join", headers=bob)
    before = api.client.get("/v1/me/events", headers=bob).json
    assert before["notices"] == []
    assert before["after"] == "0-0"
    _later(lambda: api.client.post(f"/v1/games/{game_id}/start", headers=ann))
    started = time.monotonic()
    page = api.client.get(f"/v1/me/events?after={before['after']}&wait=25", headers=bob).json
    assert time.monotonic() - started < 20
    kinds = [n["kind"] for n in page["notices"]]
    assert kinds[0] == "game_started" and page["notices"][0]["game_id"] == game_id
    assert page["after"] == page["notices"][-1]["id"]
    # Everything since comes at once; nothing after it, after a second's wait.
    rest = api.client.get(f"/v1/me/events?after={page['after']}&wait=1", headers=bob).json
    assert [n["kind"] for n in page["notices"] + rest["notices"]].count("game_started") == 1
    if rest["notices"]:
        page = rest
    quiet = api.client.get(f"/v1/me/events?after={page['after']}&wait=1", headers=bob).json
    assert quiet == {"notices": [], "after": page["after"], "next": None}


def test_a_players_notices_need_their_token(api):
    assert api.client.get("/v1/me/events").status_code == 401
    bad = api.client.get("/v1/me/events?after=nope", headers=api.player())
    assert bad.status_code == 400 and bad.json["code"] == "invalid_request"



def test_the_player_who_disputed_a_play_is_told_of_the_ruling(api):
    game_id, players = api.table("tally", 2, {"target": 100})
    version = api.get(game_id)["version"]
    filed = api.client.post(f"/v1/games/{game_id}/disputes", headers=players[1],
                            json={"version": version, "reason": "that was not legal"})
    assert filed.status_code == 201, filed.json
    notices = api.client.get("/v1/me/events", headers=players[1]).json["notices"]
    [ruled] = [n for n in notices if n["kind"] == "dispute_ruled"]
    assert ruled["game_id"] == game_id and ruled["seat"] == 1
    assert ruled["disputed"] == version
    others = api.client.get("/v1/me/events", headers=players[0]).json["notices"]
    assert "dispute_ruled" not in [n["kind"] for n in others]
