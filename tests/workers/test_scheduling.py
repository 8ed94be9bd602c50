"""Which jobs a projection calls for, and under which ids."""

from __future__ import annotations

import pytest

from events.projector import Projection
from service.app.application import GameService
from workers.scheduling import Due, due_jobs, job_id


def _projection(opened: dict, seats: list[dict], options: dict | None = None,
                status: str = "running") -> Projection:
    return Projection({"status": status, "opened": opened, "seats": seats,
                       "options": {"turn_seconds": 0, "reaction_seconds": 0, **(options or {})}})


def _prompt(since: int, at_ms: int, clock: str = "turn") -> dict:
    return {"since": since, "at": at_ms, "kinds": ["x"], "clock": clock, "label": ""}


HUMAN = {"kind": "human", "player": "p", "bot": None, "timeouts": 0}
BOT = {"kind": "bot", "level": "basic", "bot": "basic", "timeouts": 0}
HANDED = {"kind": "human", "player": "p", "bot": "basic", "timeouts": 3}


def test_job_ids_are_deterministic_and_valid_for_rq():
    assert job_id("bot", "a1b2c3", 2, 17) == "bot-a1b2c3-2-17"
    assert job_id("clock", "test-9f", 0, 3) == "clock-test-9f-0-3"
    odd = job_id("bot", "weird:id", 0, 1)
    assert odd == job_id("bot", "weird:id", 0, 1) and ":" not in odd


def test_every_pending_bot_seat_gets_a_bot_job_and_humans_none_without_clocks():
    projection = _projection({"0": _prompt(5, 1000), "1": _prompt(5, 1000)}, [HUMAN, BOT])
    assert due_jobs(projection) == [Due("bot", 1, 5, 1.0)]


def test_a_seat_answering_in_a_reaction_window_keeps_the_others_jobs():
    before = _projection({"1": _prompt(8, 2000, "reaction"), "2": _prompt(8, 2000, "reaction")},
                         [HUMAN, BOT, BOT])
    after = _projection({"2": _prompt(8, 2000, "reaction")}, [HUMAN, BOT, BOT])
    ids_before = {job_id(d.kind, "g", d.seat, d.since) for d in due_jobs(before)}
    ids_after = {job_id(d.kind, "g", d.seat, d.since) for d in due_jobs(after)}
    assert ids_after == {"bot-g-2-8"} and ids_after < ids_before


@pytest.mark.parametrize(("clock", "seconds"), [("turn", 30), ("reaction", 10)])
def test_a_clocked_human_gets_a_clock_job_at_the_deadline(clock, seconds):
    projection = _projection({"0": _prompt(4, 5000, clock)}, [HUMAN],
                             {"turn_seconds": 30, "reaction_seconds": 10})
    warnings = [Due("warn", 0, 4, 5.0 + seconds - 7.5)] if seconds >= 20 else []
    assert due_jobs(projection) == [Due("clock", 0, 4, 5.0 + seconds), *warnings]


def test_a_seat_held_by_a_bot_has_no_clock_but_a_bot_job():
    projection = _projection({"0": _prompt(4, 5000)}, [HANDED], {"turn_seconds": 30})
    assert due_jobs(projection) == [Due("bot", 0, 4, 5.0)]


def test_a_game_that_is_not_running_calls_for_nothing():
    projection = _projection({"0": _prompt(4, 5000)}, [BOT], status="finished")
    assert due_jobs(projection) == []


@pytest.mark.parametrize("seats", [[HUMAN, BOT], [HANDED, HUMAN], [HUMAN, HUMAN]])
def test_the_deadline_is_the_one_every_view_shows(seats):
    projection = _projection({"0": _prompt(4, 5000), "1": _prompt(4, 5000, "reaction")}, seats,
                             {"turn_seconds": 30, "reaction_seconds": 7})
    shown = GameService.__new__(GameService).pending_public(projection)
    for seat in ("0", "1"):
        assert projection.deadline(int(seat)) == shown[seat]["deadline"]
