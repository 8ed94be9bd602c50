"""A job worker rides out a store outage instead of quitting (issue 23 item 2): RQ quits on any
error reply (the MISCONF a full disk gives, tests/e2e/test_serve_supervision.py) and on a
timeout outside its wait for a job; a frozen Redis here (SIGSTOP, then SIGCONT)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid

import pytest
import redis
from rq import Queue

from events import embedded_redis
from tests.workers.conftest import wait_for

pytestmark = pytest.mark.standalone_redis("it freezes a server of its own")

# s: longer than the socket timeout RQ gives its connection (its blocking dequeue's 5 s + 10),
# so the calls after the job the worker is running time out, where RQ quits.
FROZEN = 18.0


def test_a_job_worker_survives_a_frozen_redis_and_works_again_at_once(tmp_path):
    queue = f"outage-{uuid.uuid4().hex[:8]}"
    with embedded_redis.start(tmp_path) as server:
        env = {**os.environ, "REDIS_URL": server.url, "TABLESTREAM_QUEUE": queue,
               "TABLESTREAM_SWEEP_SECONDS": "1"}
        env.pop("QUEUE_REDIS_URL", None)
        worker = subprocess.Popen([sys.executable, "-m", "workers", "--with-scheduler"],
                                  env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            connection = redis.Redis.from_url(server.url, socket_timeout=5)
            jobs = Queue(queue, connection=connection)
            first = jobs.enqueue("time.sleep", 2)
            wait_for(lambda: first.get_status(refresh=True) == "started", timeout=30,
                     message="the worker to start a job")
            os.kill(server.process.pid, signal.SIGSTOP)
            try:
                time.sleep(FROZEN)
                assert worker.poll() is None, "the worker quit while Redis was frozen"
            finally:
                os.kill(server.process.pid, signal.SIGCONT)
            thawed = time.monotonic()
            second = jobs.enqueue("workers.jobs.noop")
            wait_for(lambda: second.get_status(refresh=True) == "finished", timeout=15,
                     message="the worker to run a job again")
            # Within its backoff's cap (2 s) and a blocking dequeue's wait (5 s), not RQ's 60 s.
            assert time.monotonic() - thawed < 10
            assert worker.poll() is None
        finally:
            worker.terminate()
            _, errors = worker.communicate(timeout=30)
    assert b"Redis unavailable" in errors
    assert b"quitting" not in errors
