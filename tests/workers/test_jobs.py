"""Bot and clock jobs run in-process against the real Redis: effects, idempotence, staleness."""

from __future__ import annotations

import threading
import time

import pytest
from rq.job import Job

from events.redis_store import RedisEventStore
from service.app.application import GameService
from service.app.lobby import Lobby
from workers import jobs
from workers.scheduling import job_id


def _moves(events: list) -> list:
    """The events that change the game (the logged command copy is left out)."""
    return [e for e in events if e.type != "command_received"]


def _human_vs_bot(service: GameService, options: dict | None = None) -> str:
    """A running tally game: seat 0 a human (player "ann"), seat 1 a random bot."""
    game_id = service.create_game("ann", "tally", {"target": 1000, **(options or {})},
                                  [{"kind": "human"}, {"kind": "bot", "level": "random"}])
    service.start(game_id, "ann")
    return game_id


def _bot_turn_open(service: GameService, game_id: str) -> int:
    """Make it the bot's turn (the human adds 1 if needed); the version its prompt opened at."""
    projection = service.projection(game_id)
    if "0" in projection.opened:
        service.submit(game_id, "ann", {"type": "add", "amount": 1}, projection.version)
        projection = service.projection(game_id)
    return projection.opened["1"]["since"]


def test_after_an_append_the_bot_seat_gets_one_job_with_a_deterministic_id(service, scheduler):
    game_id = _human_vs_bot(service)
    since = _bot_turn_open(service, game_id)
    expected = job_id("bot", game_id, 1, since)
    assert expected in scheduler.queue.job_ids
    # Issuing it again (another append, another API process) does not queue a second copy.
    scheduler._issued.clear()
    scheduler.after_append(game_id, service.projection(game_id))
    assert scheduler.queue.job_ids.count(expected) == 1
    job = Job.fetch(expected, connection=scheduler.connection)
    assert job.func_name == "workers.jobs.bot_turn"
    assert job.args == (game_id, 1, since)


def test_a_queued_bot_job_plays_the_bot_through_the_rules(service, drain):
    game_id = _human_vs_bot(service)
    since = _bot_turn_open(service, game_id)
    drain()
    events = _moves(service.store.read(game_id, since + 1))
    assert [e.type for e in events] == ["added"]
    assert events[0].seat == "1" and events[0].cmd == f"bot:{game_id}:1:{since}"
    assert "0" in service.projection(game_id).opened


def test_a_bot_job_run_twice_appends_once(service):
    game_id = _human_vs_bot(service)
    since = _bot_turn_open(service, game_id)
    first = jobs.bot_turn(game_id, 1, since)
    second = jobs.bot_turn(game_id, 1, since)
    assert first == second
    assert service.store.last_version(game_id) == first
    assert len(_moves(service.store.read(game_id, since + 1))) == 1


def test_a_bot_job_run_twice_at_once_appends_once(service, workers_client):
    game_id = _human_vs_bot(service)
    since = _bot_turn_open(service, game_id)
    # Two workers with their own services (own caches) race on the same job.
    other = GameService(RedisEventStore(workers_client), lobby=Lobby(workers_client))
    results = []
    threads = [threading.Thread(target=lambda s=s: results.append(s.bot_move(game_id, 1, since)))
               for s in (service, other)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(_moves(service.store.read(game_id, since + 1))) == 1
    assert {r.version for r in results if r is not None} == {service.store.last_version(game_id)}


def test_a_bot_job_for_a_prompt_already_answered_does_nothing(service):
    game_id = _human_vs_bot(service)
    since = _bot_turn_open(service, game_id)
    jobs.bot_turn(game_id, 1, since)
    version = service.store.last_version(game_id)
    assert jobs.bot_turn(game_id, 1, since - 1) is None
    assert service.store.last_version(game_id) == version


def test_a_clocked_human_gets_a_timeout_job_scheduled_at_the_deadline(service, scheduler):
    game_id = _human_vs_bot(service, {"turn_seconds": 30})
    projection = service.projection(game_id)
    if "1" in projection.opened:
        jobs.bot_turn(game_id, 1, projection.opened["1"]["since"])
        projection = service.projection(game_id)
    since = projection.opened["0"]["since"]
    deadline = service.pending_public(projection)["0"]["deadline"]
    jid = job_id("clock", game_id, 0, since)
    # The exact deadline, not the next whole second: the clock loop fires on it (issue 9, 11).
    score = scheduler.connection.zscore(scheduler.queue.scheduled_job_registry.key, jid)
    assert score == pytest.approx(deadline, abs=0.001)


def _clocked_turn(service: GameService) -> tuple[str, int]:
    game_id = _human_vs_bot(service, {"turn_seconds": 1})
    projection = service.projection(game_id)
    if "1" in projection.opened:
        jobs.bot_turn(game_id, 1, projection.opened["1"]["since"])
        projection = service.projection(game_id)
    return game_id, projection.opened["0"]["since"]


def test_a_timeout_after_the_deadline_records_the_expiry_and_the_default_command(service):
    game_id, since = _clocked_turn(service)
    service.clock = lambda: time.time() + 5
    version = jobs.turn_timeout(game_id, 0, since)
    events = _moves(service.store.read(game_id, since + 1, version))
    assert [e.type for e in events] == ["clock_expired", "added"]
    assert events[1].data == {"seat": 0, "amount": 1}
    assert events[1].cmd == f"clock:{game_id}:0:{since}"


def test_a_timeout_job_run_twice_appends_once(service):
    game_id, since = _clocked_turn(service)
    service.clock = lambda: time.time() + 5
    first = jobs.turn_timeout(game_id, 0, since)
    assert jobs.turn_timeout(game_id, 0, since) == first
    assert service.store.last_version(game_id) == first


def test_a_timeout_after_the_human_acted_is_a_no_op(service):
    game_id, since = _clocked_turn(service)
    version = service.projection(game_id).version
    service.submit(game_id, "ann", {"type": "add", "amount": 2}, version)
    version = service.store.last_version(game_id)
    service.clock = lambda: time.time() + 5
    assert jobs.turn_timeout(game_id, 0, since) is None
    assert service.store.last_version(game_id) == version
