"""Worker fixtures: a queue per test, the service wired to it, in-process draining, and a real
``python -m workers`` subprocess.

Worker tests use their own Redis database on the shared test server: a real worker sweeps every
running game it can see, and the service tests elsewhere leave bot seats waiting on purpose.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlparse, urlunparse

import pytest
import redis
from rq import SimpleWorker

import games
from events.redis_store import RedisEventStore, connect
from service.app.application import GameService
from service.app.lobby import Lobby
from service.http import create_app
from service.runtime.config import Config
from tests import unlimited
from workers import jobs
from workers.scheduling import JobScheduler, queue_connection

WORKERS_DB = 9

# Games the end-to-end tests play: tally, and every hosted game that is registered.
GAMES = ["tally"] + [name for name in ("loot", "maskmen", "faker_blue", "magblast")
                     if name in games.REGISTRY]


def wait_for(predicate: Callable[[], Any], timeout: float = 10.0, interval: float = 0.02,
             message: str = "condition") -> Any:
    """Poll ``predicate`` until it returns something truthy; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {message}")
        time.sleep(interval)


@pytest.fixture(scope="session")
def workers_url(redis_url: str) -> str:
    """The test server's URL, on the database kept for worker tests."""
    parts = urlparse(redis_url)
    return urlunparse(parts._replace(path=f"/{WORKERS_DB}"))


@pytest.fixture(scope="session")
def workers_client(workers_url: str) -> Iterator[redis.Redis]:
    client = connect(workers_url)
    yield client
    client.close()


@pytest.fixture
def queue_name() -> str:
    """A queue of this test's own, so parallel tests never run each other's jobs."""
    return f"test-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def scheduler(workers_url: str, queue_name: str) -> Iterator[JobScheduler]:
    connection = queue_connection(workers_url)
    yield JobScheduler(connection, queue_name)
    connection.close()


@pytest.fixture
def service(workers_client: redis.Redis, scheduler: JobScheduler) -> Iterator[GameService]:
    """The service wired to this test's queue; job functions in this process use it too."""
    game_service = GameService(RedisEventStore(workers_client), followups=scheduler,
                               lobby=Lobby(workers_client))
    jobs.use_service(game_service)
    yield game_service
    jobs.use_service(None)


@pytest.fixture
def drain(scheduler: JobScheduler) -> Callable[[int], int]:
    """Run queued jobs in this process until the queue is empty (or ``limit`` jobs ran)."""

    def run(limit: int = 10_000) -> int:
        worker = SimpleWorker([scheduler.queue, scheduler.search_queue,
                               scheduler.webhook_queue], connection=scheduler.connection)
        # Burst mode also picks up the jobs the jobs themselves issue (the next bot turn).
        worker.work(burst=True, max_jobs=limit, logging_level="WARNING")
        return worker.successful_job_count + worker.failed_job_count

    return run


@pytest.fixture
def api(workers_url: str, workers_client: redis.Redis, scheduler: JobScheduler):
    """Flask's test client over the real Redis, issuing jobs on this test's queue."""
    config = Config(redis_url=workers_url, **unlimited.CONFIG)
    app = create_app(config, followups=scheduler, redis_client=workers_client)
    return app.test_client()


class WorkerProcess:
    """A real ``python -m workers --with-scheduler`` in its own process group."""

    def __init__(self, url: str, queue: str, tmp: str, module: str = "workers",
                 env: dict[str, str] | None = None, role: str = "all"):
        self.env = {**os.environ, "REDIS_URL": url, "TABLESTREAM_QUEUE": queue,
                    "TABLESTREAM_SWEEP_SECONDS": "1", "TABLESTREAM_STALE_STARTED_SECONDS": "2",
                    "TABLESTREAM_DATA": tmp, **(env or {})}
        self.env.pop("QUEUE_REDIS_URL", None)
        self.module = module  # ``workers``, or a wrapper that runs it (tests/workers/seen_recorder)
        self.role = role  # which queues (workers/__init__.py)
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> WorkerProcess:
        # A session of its own: the RQ scheduler is a child process, and a kill must reach it.
        self.process = subprocess.Popen([sys.executable, "-m", self.module, "--with-scheduler",
                                         "--role", self.role],
                                        env=self.env, start_new_session=True)
        return self

    def signal(self, signum: int) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signum)

    def kill(self) -> None:
        """SIGKILL the worker and its scheduler, as a crashed machine would."""
        if self.process is None:
            return
        self.signal(signal.SIGCONT)
        self.signal(signal.SIGKILL)
        self.process.wait(timeout=10)
        self.process = None


@pytest.fixture
def worker_process(workers_url: str, queue_name: str, tmp_path) -> Iterator[Callable[[], Any]]:
    """Start real worker processes on this test's queue; all are killed at the end."""
    started: list[WorkerProcess] = []

    def start(module: str = "workers", role: str = "all", **env: str) -> WorkerProcess:
        process = WorkerProcess(workers_url, queue_name, str(tmp_path), module, env,
                                role).start()
        started.append(process)
        return process

    yield start
    for process in started:
        process.kill()
