"""Turn clocks fire at their deadline, not up to a second later, and a killed worker's clock
loop dies with it (issue 9, item 11). Timings are measured by bench/clock_lateness.py."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from rq.job import Job, JobStatus

from service.app.application import NoFollowUps
from tests.workers.conftest import wait_for
from workers import queue_names
from workers.clocks import ClockLoop
from workers.scheduling import Due, job_id
from workers.sweeper import Sweeper


def _clocked_game(service, seconds: int = 15) -> tuple[str, Due]:
    # 15 s: short enough that no clock warning is scheduled before the clock itself.
    game_id = service.create_game("ann", "tally", {"target": 100, "turn_seconds": seconds,
                                                   "max_timeouts": 100}, [{"kind": "human"}])
    service.start(game_id, "ann")
    projection = service.projection(game_id)
    since = projection.opened["0"]["since"]
    return game_id, Due("clock", 0, since, projection.deadline(0))


def _score(scheduler, jid: str) -> float | None:
    return scheduler.connection.zscore(scheduler.queue.scheduled_job_registry.key, jid)


def test_the_clock_loop_enqueues_a_clock_once_its_deadline_passes(service, scheduler):
    game_id, due = _clocked_game(service)
    jid = job_id("clock", game_id, 0, due.since)
    loop = ClockLoop(scheduler.connection, [scheduler.queue.name])
    assert loop.tick(now=due.at - 0.01)[0] == 0
    assert jid in scheduler.queue.scheduled_job_registry.get_job_ids()
    assert loop.tick(now=due.at + 0.001)[0] == 1
    assert scheduler.queue.job_ids == [jid]
    # Claimed once: a second loop (another worker) finds nothing left to move.
    other = ClockLoop(scheduler.connection, [scheduler.queue.name])
    assert other.tick(now=due.at + 1)[0] == 0
    assert scheduler.queue.job_ids == [jid]


def test_a_due_clock_goes_ahead_of_waiting_bot_turns(service, scheduler):
    followups, service.followups = service.followups, NoFollowUps()
    bots = service.create_game("host", "tally", {"target": 20},
                               [{"kind": "bot", "level": "random"}] * 2)
    service.followups = followups
    opened = service.projection(bots).opened
    seat, prompt = next(iter(opened.items()))
    scheduler.issue(bots, Due("bot", int(seat), prompt["since"], prompt["at"] / 1000))
    game_id, due = _clocked_game(service)
    ClockLoop(scheduler.connection, [scheduler.queue.name]).tick(now=due.at + 0.001)
    assert scheduler.queue.job_ids[0] == job_id("clock", game_id, 0, due.since)


def test_a_due_webhook_retry_goes_to_the_webhook_queue_never_before_bot_turns(service,
                                                                            scheduler):
    followups, service.followups = service.followups, NoFollowUps()
    bots = service.create_game("host", "tally", {"target": 20},
                               [{"kind": "bot", "level": "random"}] * 2)
    service.followups = followups
    seat, prompt = next(iter(service.projection(bots).opened.items()))
    scheduler.issue(bots, Due("bot", int(seat), prompt["since"], prompt["at"] / 1000))
    scheduler.enqueue_webhook("p1", "w1", "d1", delay=5)
    ClockLoop(scheduler.connection, queue_names("all", scheduler.queue.name)).tick(
        now=time.time() + 10)
    assert [jid[:4] for jid in scheduler.queue.job_ids] == ["bot-"]
    assert [jid[:3] for jid in scheduler.webhook_queue.job_ids] == ["wh-"]


def test_the_next_deadline_tells_the_loop_how_long_it_may_sleep(service, scheduler):
    _, due = _clocked_game(service)
    loop = ClockLoop(scheduler.connection, [scheduler.queue.name])
    assert loop.tick(now=due.at - 5) == (0, pytest.approx(due.at, abs=0.001))


def test_a_clock_claimed_by_a_loop_that_died_before_enqueueing_it_is_reissued(service,
                                                                              scheduler, drain):
    game_id, due = _clocked_game(service, seconds=1)
    jid = job_id("clock", game_id, 0, due.since)
    # What a worker killed between the claim and the enqueue leaves: scheduled, in no registry.
    scheduler.connection.zrem(scheduler.queue.scheduled_job_registry.key, jid)
    assert Job.fetch(jid, connection=scheduler.connection).get_status() == JobStatus.SCHEDULED
    sweeper = Sweeper(service, scheduler, clock=lambda: due.at + 10)
    assert sweeper.sweep_game(game_id) == 1
    time.sleep(max(0.0, due.at - time.time()))  # the job checks the deadline on its own clock
    drain()
    types = [e.type for e in service.store.read(game_id)]
    assert "clock_expired" in types


def _events(service, game_id: str) -> list[Any]:
    return service.store.read(game_id)


def _group(pgid: int) -> list[int]:
    """Live (not zombie) processes in process group ``pgid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid and fields[0] != "Z":
                found.append(int(entry.name))
    return found


@pytest.mark.e2e
def test_a_killed_workers_clock_loop_dies_with_it_and_the_next_worker_runs_the_clocks(
        service, worker_process):
    first = worker_process()
    game_id, _ = _clocked_game(service, seconds=1)
    wait_for(lambda: any(e.type == "clock_expired" for e in _events(service, game_id)),
             timeout=10, message="a clock run by the first worker")
    # SIGKILL the worker process alone (its session is its own: everything it started is in
    # the process group it leads).
    pid = first.process.pid
    os.kill(pid, signal.SIGKILL)
    first.process.wait(timeout=10)
    first.process = None
    wait_for(lambda: _group(pid) == [], timeout=10,
             message="nothing the killed worker started to be left running")
    killed_at = len(_events(service, game_id))
    worker_process()

    def expiry_and_default_move() -> bool:
        later = _events(service, game_id)[killed_at:]
        expired = [e for e in later if e.type == "clock_expired"]
        return bool(expired) and any(e.type == "added" and e.version > expired[0].version
                                     and e.data["seat"] == 0 for e in later)

    wait_for(expiry_and_default_move, timeout=20,
             message="a clock expiry and the default move under the new worker")
