"""The sweeper (DESIGN.md, Workers): a worker or scheduler that dies must not leave a game stuck.

It looks at every running game and re-issues the jobs its pending seats need and no longer have:
a bot seat waiting with no live job, a clock past its deadline whose job was lost or never left
the scheduled registry (no worker runs a clock loop), a job "started" by a worker that died (at
once when that worker ran on this host, else once the start is stale). Everything it issues is
safe to run twice, so it errs on the side of issuing.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable, Iterable
from datetime import UTC, datetime

from rq.job import JobStatus

from service.application import GameService
from service.errors import NotFound
from service.lobby import INDEX
from workers.scheduling import Due, JobScheduler, due_jobs

log = logging.getLogger(__name__)

GRACE = 2.0  # seconds a job may take to show up before the sweeper steps in
STALE_ENV = "TABLESTREAM_STALE_STARTED_SECONDS"
STALE_STARTED = 10.0  # a job "started" this long ago died with its worker (moves take ms)


class Sweeper:
    """Finds running games whose pending seats have no live job and issues them again."""

    def __init__(self, service: GameService, scheduler: JobScheduler, grace: float = GRACE,
                 stale_started: float | None = None,
                 clock: Callable[[], float] = time.time):
        self.service = service
        self.scheduler = scheduler
        self.grace = grace
        if stale_started is None:
            stale_started = float(os.environ.get(STALE_ENV) or STALE_STARTED)
        self.stale_started = stale_started
        self.clock = clock

    def run(self) -> int:
        """Sweep every running game once; returns how many jobs it (re-)issued."""
        issued = 0
        for game_id in self.running_games():
            try:
                issued += self.sweep_game(game_id)
            except NotFound:
                continue
            except Exception:
                # One broken game must not stop the sweep of the others.
                log.exception("sweeping game %s failed", game_id)
        return issued

    def running_games(self) -> Iterable[str]:
        """Running games from the lobby index; every stored game when there is no index yet."""
        client = self.service.store.client  # type: ignore[attr-defined]
        rows = client.hgetall(INDEX)
        if not rows:
            yield from self.service.store.game_ids()  # type: ignore[attr-defined]
            return
        for game_id, raw in rows.items():
            if json.loads(raw).get("status") == "running":
                yield game_id.decode() if isinstance(game_id, bytes) else game_id

    def sweep_game(self, game_id: str) -> int:
        """Re-issue the lost jobs of one game; how many."""
        now = self.clock()
        issued = 0
        for due in due_jobs(self.service.projection(game_id)):
            if due.at + self.grace > now:
                continue  # not overdue yet: the normal path has time to act
            if self._repair(game_id, due, now):
                issued += 1
        return issued

    def _repair(self, game_id: str, due: Due, now: float) -> bool:
        state = self.scheduler.status(game_id, due)
        status, started_at = state.status, state.started_at
        if state.waiting or status == JobStatus.DEFERRED:
            return False  # workers are busy; it will run
        if status == JobStatus.SCHEDULED:
            # Past its time by more than the grace: no clock loop runs.
            if self.scheduler.enqueue_now(game_id, due):
                log.warning("enqueued overdue %s job of game %s seat %s", due.kind, game_id,
                            due.seat)
                return True
            # Claimed from the registry by a clock loop whose worker died before enqueueing it.
        if status == JobStatus.STARTED and started_at is not None and not state.worker_dead \
                and now - _epoch(started_at) < self.stale_started:
            return False  # running right now
        self.scheduler.reissue(game_id, due)
        log.warning("re-issued %s job of game %s seat %s since %s (was %s)", due.kind, game_id,
                    due.seat, due.since, status)
        return True


def _epoch(moment: datetime) -> float:
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()
