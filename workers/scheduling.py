"""Issuing jobs after an append (STYLE.md rule 11): one ``bot_turn`` per pending bot seat, one
``turn_timeout`` per clocked human seat at its deadline, each under a deterministic job id.

Notes on RQ 3.0 (checked in its source):
- job ids may hold only ``[A-Za-z0-9_-]``, so ``bot:<game>:<seat>:<since>`` is spelled
  ``bot-<game>-<seat>-<since>``; seat and since are ints, so the id still parses from the right;
- ``enqueue_at`` in 3.0 does pass ``unique`` on, but older releases dropped it, so jobs are
  created and then enqueued or scheduled explicitly with ``unique=True``;
- the scheduled registry scores jobs in whole seconds (``calendar.timegm`` truncates), so a clock
  job is scheduled at the deadline rounded *up* (RQ's own scheduler, if one runs, must not fire
  it early), then its score is set to the exact deadline, which our clock loop
  (workers/clocks.py) reads: RQ's scheduler alone made clocks about a second late;
- RQ stores pickles, so its client must not decode responses, unlike the event store's client.
"""

from __future__ import annotations

import hashlib
import logging
import math
import os
import re
import socket
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import redis
from redis.cluster import RedisCluster
from rq import Queue
from rq.exceptions import DuplicateJobError, NoSuchJobError
from rq.job import Job, JobStatus
from rq.registry import ScheduledJobRegistry

from events.fair_queue import FairPool
from events.projector import Projection
from events.redis_store import client_options
from service.app.due import Due, due_jobs, warning_lead  # noqa: F401 (re-exported: tests, jobs)
from workers import queue_name, queue_names

log = logging.getLogger(__name__)

JOB_TIMEOUT = 30  # seconds; a bot move or a clock expiry takes milliseconds
# An attempt's own deadline (workers.jobs.deliver_webhook) ends it first; this is RQ's backstop.
WEBHOOK_JOB_TIMEOUT = 30
RESULT_TTL = 600  # finished jobs stay this long, so a repeat in a reaction window is a no-op
FAILURE_TTL = 7 * 24 * 3600
REMEMBERED = 10_000  # job ids this process issued recently: skip the Redis round trip for them

_SAFE_ID = re.compile(r"[A-Za-z0-9_-]+")

BOT_TURN = "workers.jobs.bot_turn"
TURN_TIMEOUT = "workers.jobs.turn_timeout"
UNDO_LAPSE = "workers.jobs.undo_lapse"
WEBHOOK = "workers.jobs.deliver_webhook"
PUSH = "workers.jobs.deliver_push"
CLOCK_WARNING = "workers.jobs.clock_warning"
FUNCTIONS = {"bot": BOT_TURN, "clock": TURN_TIMEOUT, "undo": UNDO_LAPSE, "warn": CLOCK_WARNING}


def job_id(kind: str, game_id: str, seat: int, since: int) -> str:
    """The deterministic RQ job id of (kind, game, seat, since)."""
    # A game id may hold dashes, but seat and since are ints, so the id parses from the right.
    game = game_id
    if not _SAFE_ID.fullmatch(game):
        game = "h" + hashlib.sha256(game_id.encode()).hexdigest()[:24]
    return f"{kind}-{game}-{seat}-{since}"


def _queue_options() -> dict[str, Any]:
    """The event store's timeouts and pool (issue 9 item 1), with bytes responses: RQ stores
    pickles. An RQ worker raises the socket timeout above its own blocking dequeue."""
    return {**client_options(), "decode_responses": False}


QUEUES_NOT_ON_CLUSTER = ("RQ does not run on Redis Cluster: set QUEUE_REDIS_URL to a plain Redis "
                         "for the queues (docs/DEPLOY.md)")


def queue_redis_url(store_url: str, configured: str | None = None) -> str:
    """Where the queues live: ``configured`` ($QUEUE_REDIS_URL), else the event store's server,
    refused when that is a Cluster (REDIS_CLUSTER=1): a plain client on one of its nodes would
    enqueue until a key of RQ's hashed to another node's slots (MOVED)."""
    if configured:
        return configured
    if os.environ.get("REDIS_CLUSTER") == "1":
        raise ValueError(QUEUES_NOT_ON_CLUSTER)
    return store_url


def queue_connection(url: str) -> redis.Redis:
    """A client for RQ: bytes responses (RQ stores pickles), separate from the store's client."""
    return redis.Redis(connection_pool=FairPool.from_url(url, **_queue_options()))


def connection_like(client: Any) -> redis.Redis:
    """A bytes client on the same server as ``client`` (a decoding event-store client)."""
    if isinstance(client, RedisCluster):
        raise ValueError(QUEUES_NOT_ON_CLUSTER)
    kwargs = {**client.connection_pool.connection_kwargs, **_queue_options()}
    return redis.Redis(connection_pool=FairPool(
        connection_class=client.connection_pool.connection_class, **kwargs))


@dataclass(frozen=True)
class JobState:
    """A job's RQ status, when it started, and whether it is really waiting on our queue."""

    status: JobStatus | None
    started_at: datetime | None
    waiting: bool
    worker_dead: bool = False  # the worker that started it is known to be gone (same host)


class JobScheduler:
    """FollowUps for GameService: issues bot and clock jobs on RQ queues: clocks and quick bots
    on ``queue``, searching bots on ``search_queue``, webhook deliveries on ``webhook_queue``
    (workers/__init__.py says why)."""

    def __init__(self, connection: redis.Redis, queue: str | None = None):
        self.connection = connection
        main, search, webhooks = queue_names("all", queue)
        self.queue = Queue(main, connection=connection)
        self.search_queue = Queue(search, connection=connection)
        self.webhook_queue = Queue(webhooks, connection=connection)
        self._issued: OrderedDict[str, None] = OrderedDict()
        self._lock = threading.Lock()

    @classmethod
    def from_config(cls, config: Any, redis_client: Any) -> JobScheduler:
        """The API's scheduler: QUEUE_REDIS_URL, else the event store's server."""
        if config.queue_redis_url:
            return cls(queue_connection(config.queue_redis_url))
        return cls(connection_like(redis_client))

    @classmethod
    def from_url(cls, store_url: str, queue_url: str | None = None,
                 queue: str | None = None) -> JobScheduler:
        """A scheduler on ``queue_url`` (default: the event store's ``store_url``)."""
        return cls(queue_connection(queue_redis_url(store_url, queue_url)), queue)

    # --- FollowUps ----------------------------------------------------------------------------

    def after_append(self, game_id: str, projection: Projection,
                     jobs: list[Due] | None = None) -> None:
        """Issue the jobs the new projection calls for (``jobs``: its ``due_jobs``, when the
        caller has them already); never fail the append that happened."""
        for due in due_jobs(projection) if jobs is None else jobs:
            try:
                self.issue(game_id, due)
            except redis.RedisError:
                # The events are stored; the sweeper re-issues what a queue outage lost.
                log.warning("could not issue %s job for game %s seat %s", due.kind, game_id,
                            due.seat, exc_info=True)

    # --- issuing ------------------------------------------------------------------------------

    def queue_for(self, due: Due) -> Queue:
        """The queue ``due``'s job goes to: a searching bot's turn to the search queue."""
        return self.search_queue if due.search else self.queue

    def issue(self, game_id: str, due: Due) -> bool:
        """Enqueue (bot) or schedule (clock) ``due`` once; False when it was already issued."""
        jid = job_id(due.kind, game_id, due.seat, due.since)
        with self._lock:
            if jid in self._issued:
                return False
        job = self._job(game_id, due, jid)
        queue = self.queue_for(due)
        try:
            if due.kind in ("clock", "undo", "warn") and due.at > time.time():
                queue.schedule_job(job, _whole_second_after(due.at), unique=True)
                # RQ scores in whole seconds, rounded up here so that its own scheduler (if one
                # runs) never fires early; the clock loop reads the exact deadline (item 11).
                self.connection.zadd(queue.scheduled_job_registry.key, {jid: due.at},
                                     xx=True)
            else:
                queue.enqueue_job(job, unique=True)
            issued = True
        except DuplicateJobError:
            issued = False  # another process (or an earlier append) issued it
        self._remember(jid)
        return issued

    def reissue(self, game_id: str, due: Due) -> None:
        """Replace a job that finished, failed or was lost, and enqueue it now."""
        jid = job_id(due.kind, game_id, due.seat, due.since)
        try:
            Job.fetch(jid, connection=self.connection).delete(remove_from_queue=True)
        except NoSuchJobError:
            pass
        try:
            self.queue_for(due).enqueue_job(self._job(game_id, due, jid), unique=True)
        except DuplicateJobError:
            pass  # issued again meanwhile by an append: that one will do
        self._remember(jid)

    def enqueue_now(self, game_id: str, due: Due) -> bool:
        """Move a scheduled job whose time has passed onto the queue (the scheduler is down);
        False when it was no longer in the scheduled registry."""
        jid = job_id(due.kind, game_id, due.seat, due.since)
        queue = self.queue_for(due)
        registry = ScheduledJobRegistry(queue=queue)
        # ZREM decides who moves it: the live scheduler or this call, never both.
        if self.connection.zrem(registry.key, jid):
            queue.enqueue_job(Job.fetch(jid, connection=self.connection))
            return True
        return False

    def status(self, game_id: str, due: Due) -> JobState:
        """What became of ``due``'s job (status None when there is no such job)."""
        jid = job_id(due.kind, game_id, due.seat, due.since)
        try:
            job = Job.fetch(jid, connection=self.connection)
        except NoSuchJobError:
            return JobState(None, None, False)
        status = job.get_status(refresh=False)
        # "Queued" counts only on our own queue's list: a worker killed between taking a job
        # (BLMOVE to RQ's intermediate list) and starting it leaves it "queued" on no list, and
        # a job on another queue may have no workers at all.
        queue = self.queue_for(due)
        waiting = status == JobStatus.QUEUED and job.origin == queue.name and \
            queue.get_job_position(jid) is not None
        dead = status == JobStatus.STARTED and self.worker_dead(job.worker_name)
        return JobState(status, job.started_at, waiting, dead)

    def worker_dead(self, worker_name: str | None) -> bool:
        """True when the RQ worker ``worker_name`` ran on this host and its process is gone (a
        SIGKILL leaves its key for a while, and its job "started" for good). Unsure (another
        host, no record): False, and the sweeper waits for the job to go stale instead."""
        if not worker_name:
            return False
        raw = self.connection.hmget(f"rq:worker:{worker_name}", "hostname", "pid")
        hostname, pid = (value.decode() if isinstance(value, bytes) else value for value in raw)
        if hostname != socket.gethostname() or not pid:
            return False
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            return True
        except (OSError, ValueError):
            return False
        return False

    def enqueue_webhook(self, player_id: str, webhook_id: str, delivery_id: str,
                        delay: float = 0.0) -> None:
        """Queue one attempt of a webhook delivery (now, or after ``delay`` seconds) on the
        webhook queue: a receiver that never answers holds its worker, never a bot's or a
        clock's (issue 23 item 6)."""
        self._deliver(WEBHOOK, "wh-", (player_id, webhook_id, delivery_id), delay,
                      WEBHOOK_JOB_TIMEOUT)

    def enqueue_webhooks(self, deliveries: list[tuple[str, str, str]]) -> None:
        """Queue the first attempt of each of these webhook deliveries (player, webhook,
        delivery) in one round trip (RQ's ``enqueue_many``). A notice to a player with five
        webhooks queued its five jobs one by one, 15 round trips made inline by whatever
        caused the notice: a bot's move, in the clocks' worker (issue 23 item 6)."""
        self._deliver_many(WEBHOOK, "wh-", deliveries)

    def enqueue_push(self, player_id: str, subscription_id: str, delivery_id: str,
                     delay: float = 0.0) -> None:
        """Queue one attempt of a Web Push delivery on the webhook queue, for the same reason:
        a silent push service must not hold the clocks' worker."""
        self._deliver(PUSH, "push-", (player_id, subscription_id, delivery_id), delay,
                      WEBHOOK_JOB_TIMEOUT)

    def enqueue_pushes(self, deliveries: list[tuple[str, str, str]]) -> None:
        """Queue the first attempt of each of these Web Push deliveries (player, subscription,
        delivery) in one round trip, as ``enqueue_webhooks`` does."""
        self._deliver_many(PUSH, "push-", deliveries)

    def _deliver_many(self, function: Any, prefix: str,
                      deliveries: list[tuple[str, str, str]]) -> None:
        self.webhook_queue.enqueue_many([
            Queue.prepare_data(function, args=args, job_id=_delivery_job_id(prefix, args[2]),
                               timeout=WEBHOOK_JOB_TIMEOUT, result_ttl=RESULT_TTL,
                               failure_ttl=FAILURE_TTL)
            for args in deliveries])

    def _deliver(self, function: Any, prefix: str, args: tuple[str, str, str], delay: float,
                 timeout: int) -> None:
        jid = _delivery_job_id(prefix, args[2])
        queue = self.webhook_queue
        job = queue.create_job(function, args=args, job_id=jid, timeout=timeout,
                               result_ttl=RESULT_TTL, failure_ttl=FAILURE_TTL)
        if delay > 0:
            queue.schedule_job(job, _whole_second_after(time.time() + delay))
        else:
            queue.enqueue_job(job)

    def _job(self, game_id: str, due: Due, jid: str) -> Job:
        function = FUNCTIONS[due.kind]
        return self.queue_for(due).create_job(function, args=(game_id, due.seat, due.since),
                                     job_id=jid, timeout=JOB_TIMEOUT, result_ttl=RESULT_TTL,
                                     failure_ttl=FAILURE_TTL,
                                     description=f"{function}({game_id!r}, {due.seat}, "
                                                 f"{due.since})")

    def _remember(self, jid: str) -> None:
        with self._lock:
            self._issued[jid] = None
            self._issued.move_to_end(jid)
            while len(self._issued) > REMEMBERED:
                self._issued.popitem(last=False)


def _delivery_job_id(prefix: str, delivery_id: str) -> str:
    """A job id of its own for each attempt of a delivery."""
    return prefix + hashlib.sha256(f"{delivery_id}:{time.time()}".encode()).hexdigest()[:32]


def _whole_second_after(moment: float) -> datetime:
    return datetime.fromtimestamp(math.ceil(moment), UTC)


def worker_heartbeat_age(connection: redis.Redis, queue: str | None = None) -> float | None:
    """Seconds since the freshest heartbeat of a worker on ``queue`` (None: no worker seen)."""
    from rq import Worker

    beats = [w.last_heartbeat for w in Worker.all(queue=Queue(queue or queue_name(),
                                                               connection=connection))]
    beats = [beat for beat in beats if beat is not None]
    if not beats:
        return None
    newest = max(beat if beat.tzinfo else beat.replace(tzinfo=UTC) for beat in beats)
    return max(0.0, (datetime.now(UTC) - newest).total_seconds())
