"""The sweeper re-issues the jobs a dead worker or scheduler lost, and only those."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta

from rq.job import Job, JobStatus

from service.app.application import NoFollowUps
from workers.scheduling import Due, job_id
from workers.sweeper import Sweeper


def _bots_only_without_jobs(service) -> str:
    """A running bot game whose jobs were never issued (as if the queue was down)."""
    followups, service.followups = service.followups, NoFollowUps()
    game_id = service.create_game("host", "tally", {"target": 20},
                                  [{"kind": "bot", "level": "random"}] * 2)
    service.followups = followups
    return game_id


def _sweeper(service, scheduler, later: float = 10.0) -> Sweeper:
    return Sweeper(service, scheduler, clock=lambda: time.time() + later)


def _bot_due(service, game_id) -> Due:
    opened = service.projection(game_id).opened
    seat, prompt = next(iter(opened.items()))
    return Due("bot", int(seat), prompt["since"], prompt["at"] / 1000)


def test_a_bot_seat_with_no_job_gets_one_and_the_game_finishes(service, scheduler, drain):
    game_id = _bots_only_without_jobs(service)
    assert scheduler.queue.count == 0
    assert _sweeper(service, scheduler).sweep_game(game_id) == 1
    drain()
    assert service.projection(game_id).status == "finished"


def test_a_bot_seat_that_just_opened_is_left_to_the_normal_path(service, scheduler):
    game_id = _bots_only_without_jobs(service)
    assert Sweeper(service, scheduler).sweep_game(game_id) == 0


def test_a_queued_job_is_not_issued_twice(service, scheduler):
    game_id = _bots_only_without_jobs(service)
    sweeper = _sweeper(service, scheduler)
    sweeper.sweep_game(game_id)
    assert sweeper.sweep_game(game_id) == 0
    assert scheduler.queue.count == 1


def test_a_job_left_started_by_a_killed_worker_is_issued_again(service, scheduler, drain):
    game_id = _bots_only_without_jobs(service)
    due = _bot_due(service, game_id)
    scheduler.issue(game_id, due)
    # What SIGKILL leaves behind: the job taken off the queue and marked started long ago.
    job = Job.fetch(job_id("bot", game_id, due.seat, due.since), connection=scheduler.connection)
    scheduler.connection.lrem(scheduler.queue.key, 0, job.id)
    job.started_at = datetime.now(UTC) - timedelta(minutes=5)
    job.set_status(JobStatus.STARTED)
    job.save()
    assert _sweeper(service, scheduler).sweep_game(game_id) == 1
    drain()
    assert service.projection(game_id).status == "finished"


def test_an_overdue_clock_still_in_the_scheduled_registry_is_enqueued(service, scheduler,
                                                                       drain):
    game_id = service.create_game("ann", "tally", {"target": 100, "turn_seconds": 1},
                                  [{"kind": "human"}])
    service.start(game_id, "ann")
    since = service.projection(game_id).opened["0"]["since"]
    jid = job_id("clock", game_id, 0, since)
    assert jid in scheduler.queue.scheduled_job_registry.get_job_ids()
    # No scheduler runs in this test: the job would stay scheduled for ever.
    assert _sweeper(service, scheduler).sweep_game(game_id) == 1
    assert jid in scheduler.queue.job_ids
    assert jid not in scheduler.queue.scheduled_job_registry.get_job_ids()
    drain(limit=1)
    types = [e.type for e in service.store.read(game_id, since + 1)]
    assert types[0] == "clock_expired"


def test_a_sweep_covers_the_running_games_in_the_lobby(service, scheduler):
    game_id = _bots_only_without_jobs(service)
    assert _sweeper(service, scheduler).run() >= 1
    due = _bot_due(service, game_id)
    assert job_id("bot", game_id, due.seat, due.since) in scheduler.queue.job_ids


def test_a_job_taken_off_the_queue_by_a_worker_killed_before_starting_it_is_issued_again(
        service, scheduler, drain):
    game_id = _bots_only_without_jobs(service)
    due = _bot_due(service, game_id)
    scheduler.issue(game_id, due)
    # RQ moves a job to an intermediate list before starting it; a kill there leaves it
    # "queued" on no queue.
    scheduler.connection.lmove(scheduler.queue.key, scheduler.queue.intermediate_queue_key)
    assert _sweeper(service, scheduler).sweep_game(game_id) == 1
    drain()
    assert service.projection(game_id).status == "finished"


def _started_just_now_by(service, scheduler, worker_pid: int) -> str:
    """A bot job taken and started a moment ago by a worker on this host with ``worker_pid``."""
    game_id = _bots_only_without_jobs(service)
    due = _bot_due(service, game_id)
    scheduler.issue(game_id, due)
    job = Job.fetch(job_id("bot", game_id, due.seat, due.since), connection=scheduler.connection)
    scheduler.connection.lrem(scheduler.queue.key, 0, job.id)
    name = f"test-worker-{job.id}"
    scheduler.connection.hset(f"rq:worker:{name}",
                              mapping={"hostname": socket.gethostname(), "pid": worker_pid})
    scheduler.connection.expire(f"rq:worker:{name}", 60)
    job.worker_name = name
    job.started_at = datetime.now(UTC)
    job.set_status(JobStatus.STARTED)
    job.save()
    return game_id


def test_a_job_started_by_a_worker_killed_a_moment_ago_is_issued_again_at_once(service,
                                                                              scheduler, drain):
    # The process is gone, as after SIGKILL: its job would otherwise wait to go stale.
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    game_id = _started_just_now_by(service, scheduler, gone.pid)
    assert _sweeper(service, scheduler, later=3.0).sweep_game(game_id) == 1
    drain()
    assert service.projection(game_id).status == "finished"


def test_a_job_started_by_a_live_worker_a_moment_ago_is_left_to_it(service, scheduler):
    game_id = _started_just_now_by(service, scheduler, os.getpid())
    assert _sweeper(service, scheduler, later=3.0).sweep_game(game_id) == 0


# -- the due index, the reconcile pass and archiving (issue 13) -------------------------------

def _visited(sweeper: Sweeper, monkeypatch, **run) -> list[str]:
    seen: list[str] = []
    sweep_game = sweeper.sweep_game
    monkeypatch.setattr(sweeper, "sweep_game", lambda g: seen.append(g) or sweep_game(g))
    sweeper.run(**run)
    return seen


def test_a_sweep_reads_only_games_with_an_overdue_job(service, scheduler, monkeypatch):
    waiting_bot = _bots_only_without_jobs(service)
    human = service.create_game("ann", "tally", {"target": 100}, [{"kind": "human"}])
    service.start(human, "ann")  # no clock: nothing can fall due
    clocked = service.create_game("bob", "tally", {"target": 100, "turn_seconds": 600},
                                  [{"kind": "human"}])
    service.start(clocked, "bob")  # due in ten minutes, not now
    seen = _visited(_sweeper(service, scheduler), monkeypatch, reconcile=False)
    assert waiting_bot in seen
    assert human not in seen and clocked not in seen


def test_a_game_whose_index_write_was_lost_is_found_by_the_reconcile_pass(service, scheduler,
                                                                         monkeypatch):
    from service.app.lobby import DUE

    game_id = _bots_only_without_jobs(service)
    # As if the process died between the append and the index write that follows it.
    service.lobby.redis.zrem(DUE, game_id)
    assert game_id not in _visited(_sweeper(service, scheduler), monkeypatch, reconcile=False)
    assert game_id in _visited(_sweeper(service, scheduler), monkeypatch, reconcile=True)
    due = _bot_due(service, game_id)
    assert job_id("bot", game_id, due.seat, due.since) in scheduler.queue.job_ids


def test_a_finished_game_is_archived_by_the_sweep_once_its_grace_is_over(service, scheduler,
                                                                         drain):
    from service.app.lobby import ARCHIVE_DUE

    service.lobby.archive_delay = 60.0
    game_id = service.create_game("host", "tally", {"target": 20},
                                  [{"kind": "bot", "level": "random"}] * 2)
    drain()
    assert service.projection(game_id).status == "finished"
    log = service.store.read(game_id)
    Sweeper(service, scheduler).run(reconcile=False)
    assert service.store.archived(game_id) is None  # disputes are still taken
    _sweeper(service, scheduler, later=61.0).run(reconcile=False)
    assert service.store.archived(game_id) is not None
    assert not service.store.client.exists(f"{{g:{game_id}}}:log")
    assert service.lobby.redis.zscore(ARCHIVE_DUE, game_id) is None
    assert service.store.read(game_id) == log


# --- idle games (issue 23 item 17) ------------------------------------------------------------

DAY = 24 * 3600.0


def _left_by_its_players(service) -> str:
    """A running two-player game without a clock whose players stopped playing."""
    game_id = service.create_game("p_ann", "tally", {"target": 20},
                                  [{"kind": "human"}, {"kind": "human"}])
    service.join(game_id, "p_bob")
    service.start(game_id, "p_ann")
    return game_id


def test_a_game_idle_for_a_day_is_handed_to_bots_as_events_and_finishes(service, scheduler,
                                                                         drain):
    game_id = _left_by_its_players(service)
    assert game_id in service.lobby.due(time.time() + DAY + DAY / 24 + 1)
    version = service.projection(game_id).version
    _sweeper(service, scheduler, later=DAY + DAY / 24 + 1).sweep_game(game_id)
    handed = service.store.read(game_id, version + 1)
    assert [(e.type, e.data) for e in handed][:2] == [
        ("seat_replaced_by_bot", {"seat": 0, "level": "random", "idle": True}),
        ("seat_replaced_by_bot", {"seat": 1, "level": "random", "idle": True})]
    drain()
    assert service.projection(game_id).status == "finished"


def test_a_game_is_not_idle_before_a_day_without_events(service, scheduler):
    game_id = _left_by_its_players(service)
    version = service.projection(game_id).version
    _sweeper(service, scheduler, later=DAY - 3600).sweep_game(game_id)
    assert service.projection(game_id).version == version
    assert service.hand_idle_game_to_bots(game_id, time.time() + 60) is None


def test_an_idle_game_a_seated_player_follows_live_waits_for_them(service, scheduler):
    game_id = _left_by_its_players(service)
    service.lobby.watching(game_id)
    version = service.projection(game_id).version
    later = DAY + DAY / 24 + 1
    _sweeper(service, scheduler, later=later).sweep_game(game_id)
    assert service.projection(game_id).version == version
    assert game_id not in service.lobby.due(time.time() + later)  # looked at in an hour


def test_moves_within_the_hour_leave_the_idle_due_score_alone(service, monkeypatch):
    from service.app.due import earliest_due, idle_at

    game_id = _left_by_its_players(service)
    first = idle_at(service.projection(game_id))
    projection = service.projection(game_id)
    seat = int(next(iter(projection.opened)))
    service.act(game_id, seat, {"type": "add", "amount": 1}, projection.version, None)
    later = service.projection(game_id)
    assert idle_at(later) in (first, first + DAY / 24)  # the hour it falls in
    assert earliest_due(later) == idle_at(later)
    monkeypatch.setenv("TABLESTREAM_IDLE_AFTER_SECONDS", "0")
    assert idle_at(later) is None and earliest_due(later) is None
