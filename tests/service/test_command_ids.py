"""Command ids belong to their sender (issue 9 item 2): a client's id never stands for a bot's,
a clock's or another player's, and one id reused for another command is refused."""

from __future__ import annotations

from events.projector import machine_command_id


def _human_to_move_against_a_bot(api) -> tuple[str, list[dict[str, str]]]:
    """A running tally with a human at seat 0 and a bot at seat 1, the human to move."""
    game_id, players = api.table("tally", 1, {"target": 50}, bots=["random"])
    bot = api.service.projection(game_id).opened.get("1")
    if bot:  # the bot was drawn to start (no workers here: its job is run by hand)
        api.service.bot_move(game_id, 1, bot["since"])
    assert "0" in api.get(game_id)["pending"]
    return game_id, players


def _assert_problem(response, status: int, code: str) -> None:
    assert response.status_code == status, response.json
    assert response.mimetype == "application/problem+json"
    assert response.json["code"] == code


def test_a_human_cannot_freeze_a_bot_seat_by_sending_the_bot_jobs_command_id(api):
    game_id, players = _human_to_move_against_a_bot(api)
    version = api.get(game_id)["version"]
    # The human's move is one event, so the bot's decision will open at version + 1, and its
    # job will use this id: sent first by the human, the job took the move as already made.
    bot_id = machine_command_id("bot", game_id, 1, version + 1)
    response = api.send(game_id, players[0], {"type": "add", "amount": 1}, version,
                        command_id=bot_id)
    assert response.status_code == 200, response.json
    assert api.get(game_id)["pending"]["1"]["since"] == version + 1
    outcome = api.service.bot_move(game_id, 1, version + 1)
    assert outcome is not None and not outcome.duplicate
    assert [(e.type, e.seat) for e in outcome.events] == [("added", "1")]
    assert "0" in api.get(game_id)["pending"]  # the table moves on


def test_a_player_cannot_stop_another_seats_clock_by_sending_its_clock_command_id(api):
    game_id, players = api.table("tally", 2, {"target": 50, "turn_seconds": 60})
    seat = int(next(iter(api.get(game_id)["pending"])))
    other = 1 - seat
    version = api.get(game_id)["version"]
    clock_id = machine_command_id("clock", game_id, other, version + 1)
    response = api.send(game_id, players[seat], {"type": "add", "amount": 1}, version,
                        command_id=clock_id)
    assert response.status_code == 200, response.json
    prompt = api.get(game_id)["pending"][str(other)]
    outcome = api.service.expire_clock(game_id, other, prompt["since"],
                                       now=api.service.projection(game_id).deadline(other) + 1)
    assert outcome is not None and not outcome.duplicate
    assert [e.type for e in outcome.events] == ["clock_expired", "added"]
    assert outcome.events[-1].seat == str(other)


def test_two_seats_sending_the_same_command_id_each_get_their_own_move(api):
    game_id, players = api.table("tally", 2, {"target": 50})
    for turn in range(2):
        public = api.get(game_id)
        seat = int(next(iter(public["pending"])))
        response = api.send(game_id, players[seat], {"type": "add", "amount": 1},
                            public["version"], command_id="my-move")
        assert response.status_code == 200, response.json
        assert response.headers["Idempotent-Replayed"] == "false", f"turn {turn}"
        assert response.json["version"] == public["version"] + 1
        assert response.json["events"][0]["data"] == {"seat": seat, "amount": 1}
    assert api.get(game_id)["view"]["total"] == 2


def test_a_command_id_reused_for_another_command_is_422_and_appends_nothing(api):
    game_id, players = api.table("tally", 1, {"target": 50})
    before = api.get(game_id)["version"]
    first = api.send(game_id, players[0], {"type": "add", "amount": 1}, before, command_id="k")
    assert first.status_code == 200, first.json
    after = first.json["version"]
    # At the current version (where the move would be legal) and at the stale one.
    for version in (after, before):
        response = api.send(game_id, players[0], {"type": "add", "amount": 2}, version,
                            command_id="k")
        _assert_problem(response, 422, "idempotency_key_reused")
    assert api.log_length(game_id) == after
    assert api.get(game_id)["view"]["total"] == 1


def test_a_retry_with_the_same_command_still_replays_the_first_answer(api):
    game_id, players = api.table("tally", 1, {"target": 50})
    before = api.get(game_id)["version"]
    first = api.send(game_id, players[0], {"type": "add", "amount": 2}, before, command_id="r")
    again = api.send(game_id, players[0], {"type": "add", "amount": 2}, before, command_id="r")
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
    assert again.json == first.json
    assert api.log_length(game_id) == first.json["version"]


def test_a_clients_command_id_is_stored_under_its_players_name(api):
    game_id, players = api.table("tally", 1, {"target": 50})
    version = api.get(game_id)["version"]
    api.send(game_id, players[0], {"type": "add", "amount": 1}, version, command_id="bot:x")
    player_id = api.get(game_id)["seats"][0]["player"]
    assert api.service.store.read(game_id)[-1].cmd == f"p:{player_id}:bot:x"
