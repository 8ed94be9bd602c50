"""The sweeper (DESIGN.md, Workers): a worker or scheduler that dies must not leave a game stuck.

It looks at the running games with a job overdue (the due index, service/app/lobby.py: each game's
soonest bot turn, clock, warning or takeback lapse) and re-issues the jobs their pending seats
need and no longer have:
a bot seat waiting with no live job, a clock past its deadline whose job was lost or never left
the scheduled registry (no worker runs a clock loop), a job "started" by a worker that died (at
once when that worker ran on this host, else once the start is stale). Everything it issues is
safe to run twice, so it errs on the side of issuing. A game with nothing overdue is not read at
all: a sweep costs O(games with an overdue job), not O(games ever created).

It also hands idle games to bots (issue 23 item 17, service/app/due.py): a running game with human
seats where nothing happened for a day and no seated player follows it live would otherwise
stay "running" for ever once its players left.

Two more passes ride on the sweep. Every ``RECONCILE_SECONDS`` (one worker at a time) it re-indexes
every open and running game from its log, repairing an index write lost to a process killed
between an append and the index update that follows it (they cannot be one script on Redis
Cluster); and it archives the finished games whose archiving is due (events/archive.py).
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterable
from datetime import UTC, datetime

from rq.job import JobStatus

from service.app.application import GameService
from service.app.due import idle_after, idle_at
from service.app.errors import NotFound
from service.app.lobby import Lobby
from workers.scheduling import Due, JobScheduler, due_jobs

log = logging.getLogger(__name__)

GRACE = 2.0  # seconds a job may take to show up before the sweeper steps in
STALE_ENV = "TABLESTREAM_STALE_STARTED_SECONDS"
STALE_STARTED = 10.0  # a job "started" this long ago died with its worker (moves take ms)
RECONCILE_ENV = "TABLESTREAM_RECONCILE_SECONDS"
RECONCILE_SECONDS = 15.0  # bounds how stale a lost index write leaves a game (faults.py: 45 s)
RECONCILE_LOCK = "tablestream:reconcile-lock"
DUE_BATCH = 1000  # overdue games swept per run (the rest next run, soonest first)
ARCHIVE_BATCH = 100  # finished games looked at per run, oldest due first
# Archiving runs in the worker between jobs (a 2-player Loot game takes ~15 ms unloaded: pack,
# write, read back, re-hash, compare): a sweep stops after this long, so bot turns never wait
# much behind it; the rest is next sweep's (at most ~1/5 of one worker's time).
ARCHIVE_BUDGET_SECONDS = 1.0


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

    @property
    def lobby(self) -> Lobby:
        lobby = self.service.lobby
        if lobby is None:
            raise RuntimeError("the sweeper reads the game indexes: the service needs a lobby")
        return lobby

    def run(self, reconcile: bool | None = None) -> int:
        """Sweep the games with an overdue job once (after a reconcile pass when one is due,
        or when ``reconcile`` says so), then archive what is due; returns how many jobs it
        (re-)issued."""
        if reconcile is None:
            reconcile = self.reconcile_due()
        if reconcile:
            self.reconcile()
        issued = 0
        for game_id in self.overdue_games():
            try:
                issued += self.sweep_game(game_id)
            except NotFound:
                self.lobby.forget(game_id)
            except Exception:
                # One broken game must not stop the sweep of the others.
                log.exception("sweeping game %s failed", game_id)
        self.archive_finished()
        return issued

    def overdue_games(self) -> Iterable[str]:
        """Running games whose soonest job was due more than ``grace`` ago (the due index)."""
        return self.lobby.due(self.clock() - self.grace, DUE_BATCH)

    def reconcile_due(self) -> bool:
        """Whether this run should reconcile: once per RECONCILE_SECONDS across all workers."""
        seconds = float(os.environ.get(RECONCILE_ENV) or RECONCILE_SECONDS)
        client = self.lobby.redis
        return bool(client.set(RECONCILE_LOCK, "1", nx=True, px=max(1, int(seconds * 1000))))

    def reconcile(self) -> int:
        """Re-index every open and running game from its log (and, once, the games of the
        pre-issue-13 index); how many games it looked at."""
        return self.lobby.migrate(self.service) + self.lobby.reconcile(self.service)

    def archive_finished(self) -> int:
        """Archive the finished games whose archiving is due; how many."""
        done = 0
        stop = time.monotonic() + ARCHIVE_BUDGET_SECONDS
        for game_id in self.lobby.archive_due(self.clock(), ARCHIVE_BATCH):
            if time.monotonic() > stop:
                break
            try:
                if self.service.archive(game_id):
                    done += 1
                elif self.service.projection(game_id).status != "finished":
                    self.lobby.archived(game_id)  # not finished after all: reindexed elsewhere
            except NotFound:
                self.lobby.forget(game_id)
            except Exception:
                # It stays due: the next sweep tries again (archive is idempotent).
                log.exception("archiving game %s failed", game_id)
        return done

    def sweep_game(self, game_id: str) -> int:
        """Re-issue the lost jobs of one game; how many. An idle game's human seats go to
        bots (service.app.due.idle_at), unless a seated player follows the game live."""
        now = self.clock()
        issued = 0
        projection = self.service.projection(game_id)
        for due in due_jobs(projection):
            if due.at + self.grace > now:
                continue  # not overdue yet: the normal path has time to act
            if self._repair(game_id, due, now):
                issued += 1
        idle = idle_at(projection)
        if idle is not None and idle + self.grace <= now:
            if self.lobby.watched(game_id):
                # A player is connected: the game waits for them. Looked at again next hour
                # (or sooner, should the reconcile pass put the index back).
                self.lobby.postpone(game_id, now + idle_after() / 24)
            else:
                self.service.hand_idle_game_to_bots(game_id, now)
        return issued

    def _repair(self, game_id: str, due: Due, now: float) -> bool:
        state = self.scheduler.status(game_id, due)
        status, started_at = state.status, state.started_at
        if state.waiting or status == JobStatus.DEFERRED:
            return False  # workers are busy; it will run
        if due.kind == "warn" and status == JobStatus.FINISHED:
            # A warning that ran is done, though its decision still waits until the clock
            # runs out: re-issuing it sent the same warning every sweep (issue 26).
            return False
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
