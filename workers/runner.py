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

import redis
from rq import Queue, SimpleWorker, Worker
from rq.worker_pool import WorkerPool

from events.redis_store import is_outage
from workers import queue_names
from workers.clocks import ClockLoop, own_connection

log = logging.getLogger(__name__)

SWEEP_ENV = "TABLESTREAM_SWEEP_SECONDS"
DEFAULT_SWEEP_SECONDS = 5.0
SWEEP_LOCK = "tablestream:sweep-lock:{queue}"  # one sweeper per queue at a time
# The idle worker wakes every worker_ttl - 15 seconds (RQ's dequeue timeout); 20 makes that 5,
# so the periodic sweep is not held up by a blocking dequeue.
WORKER_TTL = 20
# Backoff while Redis is down, hung or refusing writes (a full disk: MISCONF), doubling from
# the first to the last: the worker notices within this long that the store is back.
OUTAGE_BACKOFF = (0.5, 2.0)


class RidesOutOutages:
    """Keeps the worker alive through a store outage instead of quitting (issue 23 item 2).

    RQ backs off on connection errors while it waits for a job, but quits on a timeout
    anywhere else and on any error reply: the MISCONF a full disk makes Redis answer to every
    write killed the worker, and `serve` gave up on it after 8 deaths. Here every outage
    (events.redis_store.is_outage) waits with a short backoff and tries again; a job cut short
    by one is left to the sweeper, which re-issues it (jobs are safe to run twice).
    """

    max_connection_wait_time = OUTAGE_BACKOFF[1]  # RQ's own backoff (60 s by default)
    _outage_wait: float = OUTAGE_BACKOFF[0]

    def _ride_out(self, what: str, exc: redis.RedisError) -> None:
        """Log the outage and wait (doubling, up to the cap) before the caller retries."""
        log.warning("%s: Redis unavailable (%s); retrying in %.1fs", what,
                    " ".join(str(exc).split())[:200], self._outage_wait)
        time.sleep(self._outage_wait)
        self._outage_wait = min(self._outage_wait * 2, OUTAGE_BACKOFF[1])

    def _until_done(self, what: str, step: Any, *args: Any) -> Any:
        while True:
            try:
                result = step(*args)
            except redis.RedisError as exc:
                if not is_outage(exc):
                    raise
                self._ride_out(what, exc)
                continue
            self._outage_wait = OUTAGE_BACKOFF[0]
            return result

    def register_birth(self) -> None:
        self._until_done("registering the worker", super().register_birth)  # type: ignore[misc]

    def dequeue_job_and_maintain_ttl(self, timeout: int | None,
                                     max_idle_time: int | None = None) -> Any:
        return self._until_done("waiting for a job",
                                super().dequeue_job_and_maintain_ttl,  # type: ignore[misc]
                                timeout, max_idle_time)

    def check_for_suspension(self, burst: bool) -> None:
        self._tolerate("checking for suspension", super().check_for_suspension,  # type: ignore[misc]
                       burst)

    def heartbeat(self, *args: Any, **kwargs: Any) -> None:
        # The next heartbeat renews it; the dequeue that follows meets the outage and waits.
        self._tolerate("heartbeat", super().heartbeat, *args, **kwargs)  # type: ignore[misc]

    def execute_job(self, job: Any, queue: Any) -> None:
        self._tolerate(f"job {job.id} (left to the sweeper)",
                       super().execute_job, job, queue)  # type: ignore[misc]

    def run_maintenance_tasks(self) -> None:
        # RQ's registry cleaning and the sweep: both run again at their next turn.
        self._tolerate("maintenance", super().run_maintenance_tasks)  # type: ignore[misc]

    def teardown(self) -> None:
        self._tolerate("unregistering the worker", super().teardown)  # type: ignore[misc]

    def _tolerate(self, what: str, step: Any, *args: Any, **kwargs: Any) -> None:
        """Run ``step``; an outage is logged and skipped (what it did is redone later)."""
        try:
            step(*args, **kwargs)
        except redis.RedisError as exc:
            if not is_outage(exc):
                raise
            log.warning("%s: Redis unavailable (%s)", what, " ".join(str(exc).split())[:200])


class SweepingMixin:
    """Adds the sweep (at start-up, then every few seconds) to RQ's maintenance hook."""

    sweep_seconds: float = DEFAULT_SWEEP_SECONDS
    sweeps: bool = True  # the search and webhook workers leave the sweep to the clock workers
    _next_sweep: float = 0.0
    _swept_once: bool = False

    def __init__(self, *args: Any, sweeps: bool = True, **kwargs: Any):
        kwargs.setdefault("worker_ttl", WORKER_TTL)
        super().__init__(*args, **kwargs)
        self.sweeps = sweeps
        self.sweep_seconds = float(os.environ.get(SWEEP_ENV) or DEFAULT_SWEEP_SECONDS)

    @property
    def should_run_maintenance_tasks(self) -> bool:
        return super().should_run_maintenance_tasks or \
            (self.sweeps and time.monotonic() >= self._next_sweep)

    def run_maintenance_tasks(self) -> None:
        if super().should_run_maintenance_tasks:
            super().run_maintenance_tasks()
        if not self.sweeps or time.monotonic() < self._next_sweep:
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


class TablestreamWorker(RidesOutOutages, SweepingMixin, SimpleWorker):
    """The default: jobs run in the worker process, which keeps its GameService warm."""


class ForkingTablestreamWorker(RidesOutOutages, SweepingMixin, Worker):
    """RQ's classic fork-per-job worker, kept for comparison (bench/bots_and_clocks.py)."""


WORKER_CLASSES = {"simple": TablestreamWorker, "fork": ForkingTablestreamWorker}


SEARCH_NICENESS = 10  # a search worker yields the CPU to the API and the clock worker


def yield_the_cpu() -> None:
    """Run this process only on CPU time nothing else wants (Linux's SCHED_IDLE: any other
    process that wakes takes the CPU at once), else at a lower priority. A nice value alone
    weighs only against the processes of its own session (the kernel's autogroups): a
    bystander's client, Redis or another session's server waited out the search's time slice."""
    os.nice(SEARCH_NICENESS)
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except (AttributeError, OSError):  # not Linux, or refused: the nice value stands
        pass


def run(*, with_scheduler: bool = True, burst: bool = False, workers: int = 1,
        worker_class: str = "simple", queue: str | None = None, role: str = "all",
        log_level: str = "WARNING") -> bool:
    """Run worker(s) of ``role`` (workers/__init__.py: which queues) on the configured queue
    Redis until stopped (or drained, with ``burst``)."""
    from events.embedded_redis import redis_url
    from workers.scheduling import queue_connection, queue_redis_url

    logging.basicConfig(level=log_level, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    connection = queue_connection(queue_redis_url(redis_url(), os.environ.get("QUEUE_REDIS_URL")))
    # The job functions read the store URL from the environment; pin the embedded one.
    os.environ.setdefault("REDIS_URL", redis_url())
    names = queue_names(role, queue)
    cls = WORKER_CLASSES[worker_class]
    if role == "search":
        # A search takes seconds of CPU: on a shared machine the moves, clocks and quick bots
        # of every other game go first (issue 23 item 7).
        yield_the_cpu()
    if workers > 1:
        pool = WorkerPool(names, connection=connection, num_workers=workers, worker_class=cls)
        pool.start(burst=burst, logging_level=log_level)
        return True
    worker = cls([Queue(name, connection=connection) for name in names], connection=connection,
                 sweeps=role in ("all", "clocks"))
    return worker.work(burst=burst, with_scheduler=with_scheduler, logging_level=log_level)
