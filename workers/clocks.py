"""The clock loop (issue 9, item 11): moves turn clocks and takeback lapses from RQ's scheduled
registry onto the queue within a few tens of milliseconds of their deadlines.

RQ's own scheduler cannot: its registry is scored in whole seconds, it polls once a second, and it
runs in a forked process that outlives a SIGKILLed worker, holding the queue's scheduler lock for
another minute. This loop is a thread of the worker process instead (it dies with it), reads the
exact deadlines ``JobScheduler.issue`` stores, and claims each due job with one atomic script, so
every worker may run it and no lock is needed. A due clock goes to the front of the queue: it is
already late, bot turns are not. Other scheduled jobs on the queue (webhook retries) are moved
on time too, to the back.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable

import redis
from rq import Queue
from rq.job import Job

log = logging.getLogger(__name__)

POLL_SECONDS = 0.05  # the longest a due clock waits for this loop (p99 lateness is measured
# by bench/clock_lateness.py)
BATCH = 100
# Turn clocks, their warnings and takeback lapses are late once due; other scheduled jobs (a
# webhook's next attempt) wait their turn behind bot moves.
URGENT_PREFIXES = ("clock-", "undo-", "warn-")
OUTAGE_PAUSE = 1.0  # after a Redis error, before trying again

# Claim up to ARGV[2] jobs due by ARGV[1]: whoever removes an id from the registry moves it, so
# two loops (or a loop and the sweeper's ZREM) never both enqueue it. Returns the claimed ids and
# the next deadline still waiting (or false).
POP_DUE = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[2])
for _, id in ipairs(due) do redis.call('ZREM', KEYS[1], id) end
local following = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {due, following[2] or false}
"""


def own_connection(connection: redis.Redis) -> redis.Redis:
    """A client on the same server with a pool of its own: the loop's thread never shares a
    pool lock with the worker (RQ's forking worker forks while this thread runs)."""
    pool = connection.connection_pool
    return redis.Redis(connection_pool=redis.ConnectionPool(
        connection_class=pool.connection_class, **pool.connection_kwargs))


class ClockLoop:
    """Enqueues the scheduled jobs of ``queues`` as soon as they are due."""

    def __init__(self, connection: redis.Redis, queue_names: Iterable[str],
                 poll: float = POLL_SECONDS, clock: Callable[[], float] = time.time):
        self.connection = connection
        self.queues = [Queue(name, connection=connection) for name in queue_names]
        self.poll = poll
        self.clock = clock
        self._pop = connection.register_script(POP_DUE)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def tick(self, now: float | None = None) -> tuple[int, float | None]:
        """Enqueue every job due by ``now``; how many, and the next deadline after them."""
        now = self.clock() if now is None else now
        moved, following = 0, None
        for queue in self.queues:
            registry = queue.scheduled_job_registry
            while True:
                ids, next_at = self._pop(keys=[registry.key], args=[repr(now), BATCH])
                for raw in ids:
                    moved += self._enqueue(queue, raw.decode() if isinstance(raw, bytes) else raw)
                if len(ids) < BATCH:
                    break
            if next_at is not None:
                at = float(next_at)
                following = at if following is None else min(following, at)
        return moved, following

    def _enqueue(self, queue: Queue, job_id: str) -> int:
        job = Job.fetch_many([job_id], connection=self.connection)[0]
        if job is None:
            return 0  # expired or deleted meanwhile: nothing to run
        queue.enqueue_job(job, at_front=job_id.startswith(URGENT_PREFIXES))
        return 1

    def run(self) -> None:
        """Tick until stopped, sleeping until the next deadline but never longer than ``poll``
        (a clock issued meanwhile may be due sooner than the one waiting)."""
        while not self._stop.is_set():
            try:
                _, following = self.tick()
            except redis.RedisError as exc:
                # The store is down or restarting: the worker notices too; keep trying.
                log.warning("clock loop: Redis unavailable (%s)", exc)
                self._stop.wait(OUTAGE_PAUSE)
                continue
            except Exception:
                # A broken job must not stop every clock of this worker.
                log.exception("clock loop: tick failed")
                self._stop.wait(OUTAGE_PAUSE)
                continue
            wait = self.poll if following is None else min(self.poll, following - self.clock())
            if wait > 0:
                self._stop.wait(wait)

    def start(self) -> ClockLoop:
        """Run in a daemon thread of this process: it ends when the process does, however."""
        self._thread = threading.Thread(target=self.run, name="clock-loop", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)

    @property
    def alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()
