"""Prometheus metrics (issue 14): what an operator graphs and alerts on.

Under gunicorn and RQ every process counts for itself; with ``PROMETHEUS_MULTIPROC_DIR`` set
(``tablestream serve`` sets it for the API and its workers) prometheus-client writes each
process's values to files there and ``/metrics`` adds them up, so one scrape sees the API
processes and the bot and clock workers together.
"""

from __future__ import annotations

import functools
import gc
import os
import time
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
FAST = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
SLOW = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

REQUESTS = Counter("tablestream_http_requests_total", "HTTP requests by route and status",
                   ["method", "route", "status"])
REQUEST_SECONDS = Histogram("tablestream_http_request_seconds", "HTTP request latency by route",
                            ["method", "route"], buckets=FAST)
EARLY_REFUSALS = Counter("tablestream_early_refusals_total",
                         "Live streams and long polls without a token refused from the "
                         "connection's first bytes, before the request was parsed "
                         "(service.http.early_refusal)")
WORKER_REFUSALS = Counter("tablestream_worker_refusals_total",
                          "Connections and requests the web worker refused or cut itself, by "
                          "reason: too_many_connections (one address's share of a process's "
                          "connections), request_timeout (a body that came too late) or "
                          "answer_not_read (a client that did not read its answer in time)",
                          ["reason"])
MOVE_SECONDS = Histogram("tablestream_move_seconds",
                         "Deciding and appending one command, by sender", ["sender"],
                         buckets=FAST)
APPENDS = Counter("tablestream_appends_total", "Event batches appended to game logs")
CONFLICTS = Counter("tablestream_append_conflicts_total",
                    "Commands refused because the game had moved on (409)")
BOT_TURN_SECONDS = Histogram("tablestream_bot_turn_seconds",
                             "From a bot seat's prompt opening to its move appended",
                             buckets=SLOW)
CLOCK_LATENESS = Histogram("tablestream_clock_lateness_seconds",
                           "From a turn clock's deadline to its expiry appended", buckets=SLOW)
SSE_CONNECTIONS = Gauge("tablestream_sse_connections", "Open live event streams",
                        multiprocess_mode="livesum")
SSE_FEEDS = Gauge("tablestream_sse_feeds",
                  "Streams (a game's log, a player's notices) followed for live subscribers, "
                  "each with one blocking Redis read per process (service.runtime.fanout)",
                  multiprocess_mode="livesum")
GC_SECONDS = Counter("tablestream_gc_seconds_total",
                     "Time Python's cyclic garbage collector held an API process, by generation "
                     "(it walks every container alive since its last pass: at 1,024 games a "
                     "move's states and views outlive a pass)", ["generation"])


@functools.cache
def move_seconds(sender: str) -> Any:
    """MOVE_SECONDS's child for ``sender`` (made once: ``labels()`` locks and builds a key)."""
    return MOVE_SECONDS.labels(sender)


class CollectorTime:
    """Times each pass of the cyclic garbage collector (``gc.callbacks``) and adds them to
    GC_SECONDS when flushed. The callback itself only adds to floats: it runs wherever an
    allocation set the collector off, perhaps inside a metric's own lock."""

    def __init__(self) -> None:
        self.pending = [0.0, 0.0, 0.0]  # seconds by generation, not yet counted
        self._started = 0.0

    def install(self) -> None:
        if self._callback not in gc.callbacks:
            gc.callbacks.append(self._callback)

    def _callback(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.pending[info["generation"]] += time.perf_counter() - self._started

    def flush(self) -> None:
        """Counts the passes timed since the last flush (a request's end: no lock is held)."""
        pending = self.pending
        if pending[0] or pending[1] or pending[2]:
            self.pending = [0.0, 0.0, 0.0]
            for generation, seconds in enumerate(pending):
                if seconds:
                    gc_seconds(generation).inc(seconds)


@functools.cache
def gc_seconds(generation: int) -> Any:
    return GC_SECONDS.labels(str(generation))


COLLECTOR_TIME = CollectorTime()


class QueueDepth:
    """The RQ queue's waiting and scheduled jobs, read from Redis at scrape time."""

    def __init__(self, followups: Any):
        self.followups = followups

    def collect(self) -> Any:
        queue = getattr(self.followups, "queue", None)
        if queue is None:
            return
        family = GaugeMetricFamily("tablestream_queue_jobs", "Jobs on the bot and clock queue",
                                   labels=["state"])
        try:
            family.add_metric(["waiting"], queue.count)
            family.add_metric(["scheduled"], queue.scheduled_job_registry.count)
        except Exception:  # a scrape must not fail because Redis is down: /readyz says that
            return
        yield family


def exposition(followups: Any) -> tuple[bytes, str]:
    """The metrics page: every process's values (multiprocess mode) or this one's, plus the
    queue depth read now."""
    scrape = CollectorRegistry()
    scrape.register(QueueDepth(followups))
    if os.environ.get(MULTIPROC_ENV):
        from prometheus_client import multiprocess

        multiprocess.MultiProcessCollector(scrape)
        return generate_latest(scrape), CONTENT_TYPE_LATEST
    from prometheus_client import REGISTRY

    return generate_latest(REGISTRY) + generate_latest(scrape), CONTENT_TYPE_LATEST
