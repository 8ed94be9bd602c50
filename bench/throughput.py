"""Moves per second and CPU per move (issue 13, done items 1 and 2), printed in one run:

(a) raw Lua-append round trips/s against the Redis the servers use (the store's own append, one
    client, sequential);
(b) a bare Flask app whose move is one such append (bench/bare_app.py), under the same gunicorn
    worker class, processes and connection limit as `tablestream serve`;
(c) Tablestream moves/s at 1, 16, 128 and 1,024 concurrent games, with p50/p99 latency and
    errors. The game is the unlisted ``tally`` (one seat, a 10-million target): the answer to a
    move carries the mover's legal commands, and in a one-seat game the mover is also the next
    to move, so a client plays one request per move by POSTing ``legal_commands[0]`` as it is,
    with no GET and no second client per game (a 2-player Loot client would need SSE or a GET
    for the other seat's commands, and its games end and must be replaced mid-run);
(d) server CPU per move: the user + system time of the server's whole process tree (/proc)
    over the measured window, divided by the moves made in it; the load generator's own CPU
    per move beside it (it runs in a process of its own: bench/loadgen.py);
(e) Tablestream / bare at each concurrency. Targets: >= 0.6 at 16 and 128 games, no error at
    1,024, server CPU <= 2.5 ms a move.

Both servers run side by side and each concurrency is measured on one then the other, so a
ratio compares two windows seconds apart. Loopback only; waits on readiness (a real answer,
generous timeout), never a fixed sleep. Settings: BENCH_LEVELS (1,16,128,1024), BENCH_WARMUP
(s, 1.5), BENCH_SECONDS (s, 6), BENCH_APPENDS (3000), BENCH_WORKER_CLASS (the gunicorn worker
class of both servers; default serve's), BENCH_WEB_WORKERS (2, serve's default), REDIS_URL (a
Redis to use instead of the embedded one).
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from events import embedded_redis  # noqa: E402
from events.redis_store import RedisEventStore, connect  # noqa: E402
from events.store import NewEvent  # noqa: E402
from service.cli import WORKER_CLASS  # noqa: E402
from tests.e2e.conftest import free_port, stop  # noqa: E402
from tests.unlimited import ENV as UNLIMITED  # noqa: E402

LEVELS = [int(n) for n in os.environ.get("BENCH_LEVELS", "1,16,128,1024").split(",")]
WARMUP = float(os.environ.get("BENCH_WARMUP", "1.5"))
SECONDS = float(os.environ.get("BENCH_SECONDS", "6"))
APPENDS = int(os.environ.get("BENCH_APPENDS", "3000"))
WORKER = os.environ.get("BENCH_WORKER_CLASS", WORKER_CLASS)
WEB_WORKERS = os.environ.get("BENCH_WEB_WORKERS", "2")
READY_TIMEOUT = 180.0  # s: a loaded, shared machine may take a long time to import and fork


def raw_appends(store: RedisEventStore) -> float:
    """Sequential appends of one event each (with a command id, as a move has), per second."""
    game_id = f"bench-{uuid.uuid4().hex}"
    store.create(game_id, {"game": "tally"}, "seed")
    started = time.perf_counter()
    for version in range(APPENDS):
        store.append(game_id, version, [NewEvent("added", {"seat": 0, "amount": 1}, "0",
                                                 {"type": "add", "amount": 1})],
                     f"auto:{version}")
    return APPENDS / (time.perf_counter() - started)


def wait_ready(url: str, process: subprocess.Popen, what: str) -> None:
    """Until ``url`` answers at all over HTTP (any status), or READY_TIMEOUT passes."""
    deadline = time.monotonic() + READY_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"{what} exited with status {process.returncode} while starting")
        try:
            with urllib.request.urlopen(url, timeout=5):
                return
        except urllib.error.HTTPError:
            return  # it answered: the server is up
        except OSError:
            time.sleep(0.2)
    raise SystemExit(f"{what} did not answer {url} within {READY_TIMEOUT:.0f} s")


def _log(directory: str, name: str) -> Any:
    """A server's stderr (access log, tracebacks): a file, named when the bench ends."""
    os.makedirs(directory, exist_ok=True)
    return open(os.path.join(directory, name), "ab")  # the child keeps it open


@contextlib.contextmanager
def tablestream(redis_url: str, data_dir: str) -> Iterator[tuple[subprocess.Popen, str]]:
    port = free_port()
    env = {**os.environ, **UNLIMITED, "REDIS_URL": redis_url, "TABLESTREAM_DATA": data_dir,
           "TABLESTREAM_WORKER_CLASS": WORKER}
    process = subprocess.Popen([sys.executable, "-m", "service.cli", "serve", "--port", str(port),
                                "--job-workers", "0", "--web-workers", WEB_WORKERS],
                               env=env, cwd=ROOT, stdout=subprocess.DEVNULL,
                               stderr=_log(data_dir, "tablestream.log"), start_new_session=True)
    try:
        wait_ready(f"http://127.0.0.1:{port}/healthz", process, "tablestream serve")
        yield process, f"http://127.0.0.1:{port}/v1"
    finally:
        stop(process)


@contextlib.contextmanager
def bare(redis_url: str, log_dir: str) -> Iterator[tuple[subprocess.Popen, str]]:
    port = free_port()
    env = {**os.environ, "REDIS_URL": redis_url}
    process = subprocess.Popen([sys.executable, "-m", "gunicorn", "--worker-class", WORKER,
                                "--workers", WEB_WORKERS, "--worker-connections", "2000",
                                "--bind", f"127.0.0.1:{port}", "--log-level", "warning",
                                "--config", "python:service.gunicorn_conf", "bench.bare_app:app"],
                               env=env, cwd=ROOT, stdout=subprocess.DEVNULL,
                               stderr=_log(log_dir, "bare.log"), start_new_session=True)
    try:
        wait_ready(f"http://127.0.0.1:{port}/", process, "the bare Flask app")
        yield process, f"http://127.0.0.1:{port}/v1"
    finally:
        stop(process)


class LoadGen:
    """bench/loadgen.py in a process of its own, one JSON answer per command."""

    def __init__(self, base: str, kind: str, server: subprocess.Popen):
        self.process = subprocess.Popen(
            [sys.executable, str(ROOT / "bench" / "loadgen.py"), "--base", base, "--kind", kind,
             "--server-pid", str(server.pid)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            text=True, cwd=ROOT)

    def ask(self, *command: object) -> dict[str, Any]:
        assert self.process.stdin and self.process.stdout
        self.process.stdin.write(" ".join(map(str, command)) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise SystemExit(f"the load generator exited ({self.process.wait()})")
        answer = json.loads(line)
        if "failed" in answer:
            raise SystemExit(f"the load generator failed: {answer['failed']}")
        return answer

    def close(self) -> None:
        assert self.process.stdin
        with contextlib.suppress(OSError):
            self.process.stdin.write("quit\n")
            self.process.stdin.close()
        self.process.wait(timeout=30)


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def row(name: str, r: dict[str, Any]) -> str:
    moves = max(r["moves"], 1)
    return (f"  {name:<12}{r['games']:>6}{r['moves_per_s']:>10.0f}{r['p50_ms']:>9.2f}"
            f"{r['p99_ms']:>9.2f}{r['errors']:>7}{r['server_cpu_s'] / moves * 1000:>11.2f}"
            f"{r['client_cpu_s'] / moves * 1000:>11.2f}")


def main() -> None:
    redis_url = os.environ.get("REDIS_URL")
    temp = tempfile.mkdtemp(prefix="bench-throughput-")
    server = None
    if not redis_url:
        server = embedded_redis.start(os.path.join(temp, "redis"))
        redis_url = server.url
    print(f"load average before: {load()}  (2 cores shared; ratios matter more than rates)",
          flush=True)
    print(f"gunicorn worker class {WORKER}, {WEB_WORKERS} processes, both servers", flush=True)
    results: list[tuple[dict[str, Any], dict[str, Any]]] = []
    try:
        raw = raw_appends(RedisEventStore(connect(redis_url)))
        print(f"(a) raw Lua append round trips/s (1 client, sequential): {raw:.0f}", flush=True)
        with bare(redis_url, temp) as (bare_process, bare_base), \
                tablestream(redis_url, os.path.join(temp, "data")) as (ts_process, ts_base):
            generators = [LoadGen(bare_base, "bare", bare_process),
                          LoadGen(ts_base, "tablestream", ts_process)]
            try:
                for generator in generators:
                    generator.ask("setup", max(LEVELS))
                for games in LEVELS:
                    bare_run, ts_run = (g.ask("run", games, WARMUP, SECONDS)
                                        for g in generators)
                    results.append((bare_run, ts_run))
                    print(f"    {games} games done (load {load()})", flush=True)
            finally:
                for generator in generators:
                    generator.close()
    finally:
        if server:
            server.stop()
    print()
    print(f"(b)-(d) moves/s, latency, errors and CPU per move ({SECONDS:.0f} s windows after "
          f"{WARMUP:.1f} s of warm-up and a move by every game)")
    print(f"  {'server':<12}{'games':>6}{'moves/s':>10}{'p50 ms':>9}{'p99 ms':>9}{'errors':>7}"
          f"{'server ms':>11}{'client ms':>11}   (ms: CPU per move)")
    for bare_run, ts_run in results:
        print(row("bare", bare_run))
        print(row("tablestream", ts_run))
        for name, run in (("bare", bare_run), ("tablestream", ts_run)):
            if run["error_kinds"]:
                print(f"    {name} errors: {run['error_kinds']}")
    print()
    print("(e) Tablestream / bare moves/s (target >= 0.60 at 16 and 128 games)")
    for bare_run, ts_run in results:
        ratio = ts_run["moves_per_s"] / max(bare_run["moves_per_s"], 1e-9)
        print(f"  {ts_run['games']:>5} games   {ratio:5.2f}   raw-append share "
              f"{ts_run['moves_per_s'] / raw:5.2f}")
    worst = max(ts["server_cpu_s"] / max(ts["moves"], 1) * 1000 for _, ts in results)
    errors = results[-1][1]["errors"] if results else 0
    print(f"Tablestream server CPU per move, worst level: {worst:.2f} ms (target <= 2.5); "
          f"errors at {LEVELS[-1]} games: {errors} (target 0)")
    print(f"load average after: {load()}; servers' logs in {temp}")


if __name__ == "__main__":
    main()
