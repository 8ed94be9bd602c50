"""How fast the API says 503 ``store_unavailable`` when Redis is not there (issue 9 item 6), and
what the write check costs a move (issue 9 item 7). Printed in one run:

- time to a 503 with Redis on a closed port, on a port that accepts and never answers, and
  SIGSTOPped under live pooled connections (median and max of a few requests each);
- move latency (p50/p99, in-process, one player) with the persistence check on every move
  against the same moves with the check cached, as it is in production (once a second).

Loopback only; every Redis here is started by this script in a temporary directory.
"""

from __future__ import annotations

import os
import signal
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from events import embedded_redis, redis_store
from service.http import create_app
from service.runtime.config import Config
from tests import unlimited
from tests.e2e.conftest import free_port
from tests.service.conftest import Api

TRIES = int(os.environ.get("BENCH_OUTAGE_TRIES", "5"))
MOVES = int(os.environ.get("BENCH_OUTAGE_MOVES", "500"))


def app_on(url: str):
    return create_app(Config(redis_url=url, workers_enabled=False, access_log=False,
                             **unlimited.CONFIG))


def time_to_answer(client, path: str) -> tuple[float, int]:
    started = time.perf_counter()
    status = client.get(path).status_code
    return time.perf_counter() - started, status


def report(name: str, samples: list[tuple[float, int]]) -> None:
    seconds = [s for s, _ in samples]
    statuses = sorted({status for _, status in samples})
    print(f"{name:<34} median {statistics.median(seconds) * 1000:8.1f} ms   "
          f"max {max(seconds) * 1000:8.1f} ms   statuses {statuses}")


def main() -> None:
    print(f"socket timeout {redis_store.SOCKET_TIMEOUT} s, connect timeout "
          f"{redis_store.CONNECT_TIMEOUT} s, pool {redis_store.POOL_SIZE} "
          f"(wait {redis_store.POOL_WAIT} s), stream pool {redis_store.STREAM_POOL_SIZE}")
    closed = app_on(f"redis://127.0.0.1:{free_port()}/0").test_client()
    report("closed port", [time_to_answer(closed, "/v1/games/x") for _ in range(TRIES)])

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(512)
    hung = app_on(f"redis://127.0.0.1:{listener.getsockname()[1]}/0").test_client()
    report("accepts, never answers", [time_to_answer(hung, "/v1/games/x") for _ in range(TRIES)])
    listener.close()

    with tempfile.TemporaryDirectory() as directory, \
            embedded_redis.start(Path(directory) / "data") as server:
        api = Api(app_on(server.url))
        game_id, players = api.table("tally", 1, {"target": 10 ** 7})
        os.kill(server.process.pid, signal.SIGSTOP)
        try:
            samples = []
            for _ in range(TRIES):
                api.service._cache.clear()  # make the read reach Redis
                samples.append(time_to_answer(api.client, f"/v1/games/{game_id}"))
        finally:
            os.kill(server.process.pid, signal.SIGCONT)
        report("SIGSTOPped Redis", samples)

        for label, every in (("move, write check cached (1 s)", redis_store.WRITE_CHECK_SECONDS),
                             ("move, write check every move", 0.0)):
            redis_store.WRITE_CHECK_SECONDS = every
            version = api.get(game_id)["version"]
            latencies = []
            for _ in range(MOVES):
                started = time.perf_counter()
                response = api.send(game_id, players[0], {"type": "add", "amount": 1}, version)
                latencies.append(time.perf_counter() - started)
                version = response.json["version"]
            latencies.sort()
            print(f"{label:<34} p50 {latencies[len(latencies) // 2] * 1000:6.2f} ms   "
                  f"p99 {latencies[int(len(latencies) * 0.99)] * 1000:6.2f} ms")


if __name__ == "__main__":
    main()
