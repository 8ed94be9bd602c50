"""Platform figures (issue 2, item 8), printed in one run:

- raw Lua-append round trips/s (one client, one game, sequential);
- HTTP moves/s with several concurrent clients against `tablestream serve` (gunicorn + gevent);
- p50/p99 move latency;
- view-read time for a 10-event and a 10,000-event log (cold: snapshot + tail, and over HTTP).

Uses the embedded Redis unless REDIS_URL is set. Targets: HTTP moves/s >= 0.3x raw appends;
the long game reads within 2x the short one.
"""

from __future__ import annotations

import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from urllib.parse import urlparse

import requests

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from events import embedded_redis
from events.projector import SNAPSHOT_EVERY, Projector
from events.redis_store import RedisEventStore, connect
from events.store import NewEvent
from tests.e2e.conftest import free_port, stop

CLIENTS = int(os.environ.get("BENCH_CLIENTS", "8"))
MOVES_PER_CLIENT = int(os.environ.get("BENCH_MOVES", "150"))
APPENDS = int(os.environ.get("BENCH_APPENDS", "3000"))


def raw_appends(store: RedisEventStore) -> float:
    game_id = f"bench-{uuid.uuid4().hex}"
    store.create(game_id, {"game": "tally"}, "seed")
    started = time.perf_counter()
    for version in range(APPENDS):
        store.append(game_id, version, [NewEvent("added", {"seat": 0, "amount": 1}, "0")],
                     f"cmd-{version}")
    return APPENDS / (time.perf_counter() - started)


def start_server(redis_url: str) -> tuple[subprocess.Popen, str]:
    port = free_port()
    # No rate limits, and the unlisted tally game (a 10-million target) over HTTP: off by
    # default, since anyone could then make the server work that hard.
    env = {**os.environ, "REDIS_URL": redis_url, "RATE_LIMIT_PER_SECOND": "0",
           "RATE_LIMIT_PLAYERS_PER_MINUTE": "0", "RATE_LIMIT_GAMES_PER_MINUTE": "0",
           "UNLISTED_GAMES": "1", "TABLESTREAM_WORKERS": "0"}
    process = subprocess.Popen([sys.executable, "-m", "service.clients.cli", "serve",
                                "--port", str(port),
                                "--job-workers", "0"], env=env, stdout=subprocess.DEVNULL,
                               start_new_session=True)
    base = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 180  # a loaded, shared machine may take long to start it
    while time.monotonic() < deadline:
        try:
            requests.get(f"{base}/games/catalog", timeout=5)
            return process, base
        except requests.RequestException:  # not up yet, or too slow on a loaded machine
            time.sleep(0.2)
    stop(process)
    raise SystemExit("server did not start within 180 s")


def new_tally(session: requests.Session, base: str, target: int) -> tuple[str, int]:
    token = session.post(f"{base}/players", json={"name": "bench"}).json()["token"]
    session.headers["Authorization"] = f"Bearer {token}"
    game = session.post(f"{base}/games", json={"game": "tally", "seats": [{"kind": "human"}],
                                               "options": {"target": target}}).json()
    started = session.post(f"{base}/games/{game['id']}/start").json()
    return game["id"], started["version"]


def http_moves(base: str) -> tuple[float, list[float]]:
    latencies: list[float] = []
    lock = threading.Lock()
    ready = threading.Barrier(CLIENTS + 1)

    def client() -> None:
        session = requests.Session()
        game_id, version = new_tally(session, base, 10_000_000)
        # http.client on a kept-alive connection: the load generator shares the machine's
        # cores with the server, so it should spend as little CPU per request as it can.
        url = urlparse(base)
        connection = http.client.HTTPConnection(url.hostname, url.port)
        headers = {"Authorization": session.headers["Authorization"],
                   "Content-Type": "application/json"}
        path = f"{url.path}/games/{game_id}/commands"
        mine = []
        ready.wait()
        for _ in range(MOVES_PER_CLIENT):
            t0 = time.perf_counter()
            connection.request("POST", path, json.dumps(
                {"type": "add", "amount": 1, "expected_version": version}), headers)
            body = connection.getresponse().read()
            mine.append(time.perf_counter() - t0)
            version = json.loads(body)["version"]
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=client) for _ in range(CLIENTS)]
    for thread in threads:
        thread.start()
    ready.wait()
    started = time.perf_counter()
    for thread in threads:
        thread.join()
    return len(latencies) / (time.perf_counter() - started), latencies


def long_game(store: RedisEventStore, base: str, moves: int) -> str:
    """A tally game with ``moves`` moves, appended straight to the store (fast to build)."""
    session = requests.Session()
    game_id, version = new_tally(session, base, 10_000_000)
    batch = 500
    while moves > 0:
        n = min(batch, moves)
        store.append(game_id, version, [NewEvent("added", {"seat": 0, "amount": 1}, "0")] * n)
        version += n
        moves -= n
    return game_id


def view_read_ms(store: RedisEventStore, base: str, game_id: str) -> tuple[float, float]:
    """Median cold projection load (snapshot + tail) and median HTTP view read, in ms."""
    projector = Projector(store)
    projector.load(game_id)  # writes the due snapshot, as the service's first read would
    cold = []
    for _ in range(30):
        t0 = time.perf_counter()
        projector.load(game_id)
        cold.append((time.perf_counter() - t0) * 1000)
    session = requests.Session()
    warm = []
    for _ in range(30):
        t0 = time.perf_counter()
        session.get(f"{base}/games/{game_id}").raise_for_status()
        warm.append((time.perf_counter() - t0) * 1000)
    return statistics.median(cold), statistics.median(warm)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    redis_url = os.environ.get("REDIS_URL")
    server = None
    if not redis_url:
        server = embedded_redis.start(tempfile.mkdtemp(prefix="bench-redis-"))
        redis_url = server.url
    store = RedisEventStore(connect(redis_url))
    process, base = start_server(redis_url)
    try:
        raw = raw_appends(store)
        rate, latencies = http_moves(base)
        short_id = long_game(store, base, 10 - 4)  # created + joined + started + setup = 4
        long_id = long_game(store, base, 10_000 - 4)
        # The worst case: one event short of the next snapshot.
        worst_id = long_game(store, base, 10_000 - 4)
        Projector(store).load(worst_id)  # the snapshot at 10,000
        store.append(worst_id, 10_000, [NewEvent("added", {"seat": 0, "amount": 1}, "0")]
                     * (SNAPSHOT_EVERY - 1))
        short_cold, short_http = view_read_ms(store, base, short_id)
        long_cold, long_http = view_read_ms(store, base, long_id)
        worst_cold, _ = view_read_ms(store, base, worst_id)
    finally:
        stop(process)
        if server:
            server.stop()
    print(f"raw Lua append round trips/s   {raw:10.0f}")
    print(f"HTTP moves/s ({CLIENTS} clients)      {rate:10.0f}   ratio to raw {rate / raw:.2f}"
          f" (target >= 0.30)")
    print(f"move latency p50 / p99 (ms)    {pct(latencies, .5) * 1000:10.2f} / "
          f"{pct(latencies, .99) * 1000:.2f}")
    print(f"cold view load, 10 events      {short_cold:10.2f} ms")
    print(f"cold view load, 10,000 events  {long_cold:10.2f} ms   ratio "
          f"{long_cold / short_cold:.2f} (target <= 2)")
    print(f"cold view load, 10,{SNAPSHOT_EVERY - 1:03} events  {worst_cold:10.2f} ms   ratio "
          f"{worst_cold / short_cold:.2f} ({SNAPSHOT_EVERY - 1} events past the last snapshot)")
    print(f"HTTP view read, 10 / 10,000    {short_http:10.2f} / {long_http:.2f} ms   ratio "
          f"{long_http / short_http:.2f}")


if __name__ == "__main__":
    main()
