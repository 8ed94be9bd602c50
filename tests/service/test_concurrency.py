"""Optimistic concurrency and idempotent retries over HTTP (issue 2, item 5)."""

from __future__ import annotations

import threading


def test_twenty_concurrent_commands_at_one_version_give_one_success(api):
    game_id, players = api.table("tally", 1, {"target": 1000})
    version = api.get(game_id)["version"]
    before = api.log_length(game_id)
    statuses: list[int] = []
    barrier = threading.Barrier(20)

    def send(i: int) -> None:
        client = api.app.test_client()
        barrier.wait()
        response = client.post(f"/v1/games/{game_id}/commands", headers=players[0],
                               json={"type": "add", "amount": 1 + i % 3,
                                     "expected_version": version, "command_id": f"race-{i}"})
        statuses.append(response.status_code)

    threads = [threading.Thread(target=send, args=(i,)) for i in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [200] + [409] * 19
    assert api.log_length(game_id) == before + 1


def test_retry_with_the_same_command_id_returns_the_first_answer_and_appends_nothing(api):
    game_id, players = api.table("tally", 1, {"target": 1000})
    version = api.get(game_id)["version"]
    first = api.send(game_id, players[0], {"type": "add", "amount": 2}, version,
                     command_id="once")
    assert first.status_code == 200
    assert first.headers["Idempotent-Replayed"] == "false"
    length = api.log_length(game_id)
    again = api.send(game_id, players[0], {"type": "add", "amount": 2}, version,
                     command_id="once")
    assert again.status_code == 200
    assert again.json == first.json
    assert again.headers["Idempotent-Replayed"] == "true"
    assert api.log_length(game_id) == length


def test_two_api_processes_never_decide_on_a_stale_game(make_app):
    from tests.service.conftest import Api

    first, second = Api(make_app()), Api(make_app())  # two caches over one Redis
    game_id, players = first.table("tally", 1, {"target": 1000})
    version = first.get(game_id)["version"]  # the first process caches this version
    moved = second.send(game_id, players[0], {"type": "add", "amount": 1}, version)
    assert moved.status_code == 200
    # Rejected on the stale cached state, but the client is stale: 409, not a rule error.
    illegal_and_stale = first.send(game_id, players[0], {"type": "add", "amount": 9}, version)
    assert illegal_and_stale.status_code == 409
    assert illegal_and_stale.json["version"] == version + 1
    stale = first.send(game_id, players[0], {"type": "add", "amount": 1}, version)
    assert stale.status_code == 409 and stale.json["version"] == version + 1
    fresh = first.send(game_id, players[0], {"type": "add", "amount": 2}, version + 1)
    assert fresh.status_code == 200 and fresh.json["version"] == version + 2
