"""Running RQ workers for Tablestream: the worker classes, the periodic sweep, the pool.

The default is ``SimpleWorker`` (jobs run in the worker process): a bot move or clock expiry takes
a few milliseconds, and RQ's forking ``Worker`` adds a fork per job and throws away the
process-wide GameService (connections, projection cache) with each child; bench/bots_and_clocks.py
measures the three choices. Jobs are idempotent, so losing the fork's isolation costs nothing
a crashed job could not already cause: the sweeper re-issues whatever a dead worker held.
"""

from __future__ import annotations

import logging
import os
import time
from typing import Any

from rq import Queue, SimpleWorker, Worker
from rq.worker_pool import WorkerPool

from workers import queue_name
from workers.clocks import ClockLoop, own_connection

log = logging.getLogger(__name__)

SWEEP_ENV = "TABLESTREAM_SWEEP_SECONDS"
DEFAULT_SWEEP_SECONDS = 5.0
SWEEP_LOCK = "tablestream:sweep-lock:{queue}"  # one sweeper per queue at a time
# The idle worker wakes every worker_ttl - 15 seconds (RQ's dequeue timeout); 20 makes that 5,
# so the periodic sweep is not held up by a blocking dequeue.
WORKER_TTL = 20


class SweepingMixin:
    """Adds the sweep (at start-up, then every few seconds) to RQ's maintenance hook."""

    sweep_seconds: float = DEFAULT_SWEEP_SECONDS
    _next_sweep: float = 0.0
    _swept_once: bool = False

    def __init__(self, *args: Any, **kwargs: Any):
        kwargs.setdefault("worker_ttl", WORKER_TTL)
        super().__init__(*args, **kwargs)
        self.sweep_seconds = float(os.environ.get(SWEEP_ENV) or DEFAULT_SWEEP_SECONDS)

    @property
    def should_run_maintenance_tasks(self) -> bool:
        return super().should_run_maintenance_tasks or time.monotonic() >= self._next_sweep

    def run_maintenance_tasks(self) -> None:
        if super().should_run_maintenance_tasks:
            super().run_maintenance_tasks()
        if time.monotonic() < self._next_sweep:
            return
        self._next_sweep = time.monotonic() + self.sweep_seconds
        self.sweep_now()

    def work(self, *args: Any, with_scheduler: bool = False, **kwargs: Any) -> bool:
        """RQ's work loop; ``with_scheduler`` runs our clock loop in this process instead of
        RQ's forked scheduler (workers/clocks.py says why)."""
        clocks = None
        if with_scheduler:
            clocks = ClockLoop(own_connection(self.connection), self.queue_names())
            if kwargs.get("burst") or (args and args[0]):
                clocks.tick()  # burst: what is due now, as RQ's scheduler does in burst mode
                clocks = None
            else:
                clocks.start()
        try:
            return super().work(*args, with_scheduler=False, **kwargs)  # type: ignore[misc]
        finally:
            if clocks is not None:
                clocks.stop()

    def sweep_now(self) -> int:
        """Run the sweep here unless another worker swept within the interval."""
        # The first sweep of a worker ignores the lock: a replacement for a dead worker must
        # look at once, not after the dead one's lock lapses.
        first = not self._swept_once
        self._swept_once = True
        lock_ms = max(1, int(self.sweep_seconds * 1000))
        lock = SWEEP_LOCK.format(queue=self.queue_names()[0])
        if not first and not self.connection.set(lock, self.name, nx=True, px=lock_ms):
            return 0
        from workers.jobs import fold_ratings, sweep

        try:
            fold_ratings()  # the ratings projection rides on the sweep's interval and lock
        except Exception:
            log.exception("folding ratings failed")
        try:
            issued = sweep()
        except Exception:
            log.exception("sweep failed")
            return 0
        if issued:
            log.warning("sweep re-issued %d job(s)", issued)
        return issued


class TablestreamWorker(SweepingMixin, SimpleWorker):
    """The default: jobs run in the worker process, which keeps its GameService warm."""


class ForkingTablestreamWorker(SweepingMixin, Worker):
    """RQ's classic fork-per-job worker, kept for comparison (bench/bots_and_clocks.py)."""


WORKER_CLASSES = {"simple": TablestreamWorker, "fork": ForkingTablestreamWorker}


def run(*, with_scheduler: bool = True, burst: bool = False, workers: int = 1,
        worker_class: str = "simple", queue: str | None = None,
        log_level: str = "WARNING") -> bool:
    """Run worker(s) on the configured queue Redis until stopped (or drained, with ``burst``)."""
    from events.embedded_redis import redis_url
    from workers.scheduling import queue_connection, queue_redis_url

    logging.basicConfig(level=log_level, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    connection = queue_connection(queue_redis_url(redis_url(), os.environ.get("QUEUE_REDIS_URL")))
    # The job functions read the store URL from the environment; pin the embedded one.
    os.environ.setdefault("REDIS_URL", redis_url())
    name = queue or queue_name()
    cls = WORKER_CLASSES[worker_class]
    if workers > 1:
        pool = WorkerPool([name], connection=connection, num_workers=workers, worker_class=cls)
        pool.start(burst=burst, logging_level=log_level)
        return True
    worker = cls([Queue(name, connection=connection)], connection=connection)
    return worker.work(burst=burst, with_scheduler=with_scheduler, logging_level=log_level)
