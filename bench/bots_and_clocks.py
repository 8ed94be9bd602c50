"""Worker figures (issue 3): bot turn latency against a no-op RQ job on the same worker, for each
worker class, and self-play games/s for 4-player Loot.

Both latencies are measured the same way, by one clock in this process: from the moment the job
is handed to RQ (for a bot, the moment its turn opened: right after the append, before the
enqueue) to the moment this process sees the outcome through a blocking XREAD (the job's result
stream for the no-op, the game's log for the bot's event).

    python bench/bots_and_clocks.py [--turns 300] [--selfplay 300]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import uuid
from typing import Any

from rq import Queue

from events.projector import Projection
from events.redis_store import RedisEventStore, connect
from service.app.application import GameService
from workers.scheduling import JobScheduler, queue_connection
from workers.selfplay import selfplay

CHOICES = [("fork", 1, "RQ Worker: a fork per job"),
           ("simple", 1, "SimpleWorker: jobs in-process"),
           ("simple", 2, "pool of 2 SimpleWorkers")]


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class TimedFollowUps:
    """Records when each bot turn opened (after the append, before the enqueue)."""

    def __init__(self, scheduler: JobScheduler):
        self.scheduler = scheduler
        self.opened: dict[int, float] = {}

    def after_append(self, game_id: str, projection: Projection,
                     jobs: list[Any] | None = None) -> None:
        opened = projection.opened.get("1")
        if opened is not None and opened["since"] not in self.opened:
            self.opened[opened["since"]] = time.time()
        self.scheduler.after_append(game_id, projection, jobs)


def noop_latencies(connection: Any, queue_name: str, count: int) -> list[float]:
    """Milliseconds from enqueue to the result being visible, one job at a time."""
    queue = Queue(queue_name, connection=connection)
    out = []
    for _ in range(count):
        started = time.time()
        job = queue.enqueue("workers.jobs.noop", result_ttl=60)
        if job.latest_result(timeout=10) is None:
            raise RuntimeError("the no-op job did not finish within 10s")
        out.append((time.time() - started) * 1000)
    return out


def bot_latencies(store_client: Any, connection: Any, queue_name: str,
                  count: int) -> list[float]:
    """Milliseconds from a bot's turn opening to its event in the log (human vs bot, Tally)."""
    followups = TimedFollowUps(JobScheduler(connection, queue_name))
    service = GameService(RedisEventStore(store_client), followups=followups)
    game_id = service.create_game("bench", "tally", {"target": 10_000_000},
                                  [{"kind": "human"}, {"kind": "bot", "level": "random"}])
    service.start(game_id, "bench")
    out: list[float] = []
    version = service.projection(game_id).version
    if "1" in service.projection(game_id).opened:
        version = _wait_for_bot(service, game_id, version)[0]  # the bot moves first
    while len(out) < count:
        # The bot's prompt opens at the human's move: the last version it appends.
        since = service.submit(game_id, "bench", {"type": "add", "amount": 1}, version).version
        version, seen = _wait_for_bot(service, game_id, since)
        if since in followups.opened:
            out.append((seen - followups.opened[since]) * 1000)
    return out


def _wait_for_bot(service: GameService, game_id: str, version: int) -> tuple[int, float]:
    """Block until the bot's event after ``version``: the new version and when it was seen."""
    while True:
        events = service.store.wait(game_id, version, 10_000)
        if not events:
            raise RuntimeError("the bot did not answer within 10s")
        seen = time.time()
        version = events[-1].version
        if any(e.seat == "1" and e.type != "command_received" for e in events):
            return service.projection(game_id).version, seen


def start_worker(url: str, queue_name: str, worker_class: str, workers: int,
                 ) -> subprocess.Popen[bytes]:
    env = {**os.environ, "REDIS_URL": url, "TABLESTREAM_QUEUE": queue_name}
    return subprocess.Popen([sys.executable, "-m", "workers", "--worker-class", worker_class,
                             "--workers", str(workers), "--queue", queue_name],
                            env=env, start_new_session=True)


def measure_workers(url: str, turns: int) -> None:
    store_client = connect(url)
    connection = queue_connection(url)
    print(f"Bot turn latency vs a no-op job on the same worker ({turns} each; ms)")
    print(f"{'worker':32} {'no-op p50':>9} {'p99':>7} {'bot p50':>9} {'p99':>7} "
          f"{'p50 ratio':>9}")
    for worker_class, workers, label in CHOICES:
        queue_name = f"bench-{uuid.uuid4().hex[:8]}"
        process = start_worker(url, queue_name, worker_class, workers)
        try:
            noop_latencies(connection, queue_name, 20)  # warm up: worker start, imports
            bot_latencies(store_client, connection, queue_name, 20)
            noop = noop_latencies(connection, queue_name, turns)
            bot = bot_latencies(store_client, connection, queue_name, turns)
        finally:
            os.killpg(process.pid, 15)
            process.wait(timeout=30)
        ratio = pct(bot, .5) / pct(noop, .5)
        print(f"{label:32} {pct(noop, .5):9.2f} {pct(noop, .99):7.2f} {pct(bot, .5):9.2f} "
              f"{pct(bot, .99):7.2f} {ratio:8.2f}x")
    print("target: bot p50 <= 3x the no-op p50 on the chosen worker (SimpleWorker)")


def measure_selfplay(games: int) -> None:
    from games import REGISTRY

    if "loot" in REGISTRY:
        for levels in (["basic"] * 4, ["basic", "random", "basic", "random"]):
            report = selfplay("loot", games, levels)
            print(f"self-play loot {','.join(levels):28} {report.games_per_second:8.1f} games/s "
                  f"({report.steps / report.games:.0f} moves/game; target >= 100)")
    else:
        report = selfplay("tally", games, ["random"] * 4)
        print(f"self-play tally (loot is not registered yet) {report.games_per_second:.1f} "
              "games/s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--selfplay", type=int, default=300)
    options = parser.parse_args()
    url = os.environ.get("REDIS_URL")
    server = None
    if not url:
        from events import embedded_redis

        server = embedded_redis.start(tempfile.mkdtemp(prefix="bench-workers-"), "everysec")
        url = server.url
    try:
        measure_workers(url, options.turns)
        measure_selfplay(options.selfplay)
    finally:
        if server is not None:
            server.stop()


if __name__ == "__main__":
    main()
