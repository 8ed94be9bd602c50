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

Both servers run side by side. On a shared 2-core machine one window's rate swings by up to 2x
from one run to the next, so each concurrency is measured in BENCH_ROUNDS rounds, each a window
on the bare app and one on Tablestream, seconds apart (the same load generator, worker class and
counts for both), in alternating order: bare then tablestream, then tablestream then bare, and so
on (ABBA). Whatever drifts during a level (the load average, the data set and with it Redis's
append-only file rewrites) then weighs on both servers alike instead of always on the second.
Each round's ratio is its Tablestream window over its bare window. Per level the bench prints every
round as it ends, then the median over the rounds of each server's moves/s, p50, p99 and CPU per
move (server and client), the errors summed over all rounds, the median of the round ratios and
their min-max. The verdict lines use those medians (CPU: the worst level's median; errors: the
sum over the last level's rounds). Loopback only; waits on readiness (a real answer, generous
timeout), never a fixed sleep. Settings: BENCH_LEVELS (1,16,128,1024), BENCH_ROUNDS (5),
BENCH_WARMUP (s, 1.5), BENCH_SECONDS (s, 4: the length of each measured window), BENCH_APPENDS
(3000), BENCH_WORKER_CLASS (the gunicorn worker class of both servers; default serve's),
BENCH_WEB_WORKERS (2, serve's default), REDIS_URL (a Redis to use instead of the embedded one).
"""

from __future__ import annotations

import contextlib
import json
import os
import statistics
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
from service.clients.cli import WORKER_CLASS  # noqa: E402
from tests.e2e.conftest import free_port, stop  # noqa: E402
from tests.unlimited import ENV as UNLIMITED  # noqa: E402

LEVELS = [int(n) for n in os.environ.get("BENCH_LEVELS", "1,16,128,1024").split(",")]
WARMUP = float(os.environ.get("BENCH_WARMUP", "1.5"))
SECONDS = float(os.environ.get("BENCH_SECONDS", "4"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "5"))
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
def _server(argv: list[str], env: dict[str, str], log: Any, ready_path: str,
            what: str) -> Iterator[tuple[subprocess.Popen, str]]:
    """Start ``argv`` on a free port (``{port}`` in an argument is replaced by it), wait until
    ``ready_path`` answers, yield the process and its /v1 base, and stop it."""
    port = free_port()
    process = subprocess.Popen([arg.format(port=port) for arg in argv], env=env, cwd=ROOT,
                               stdout=subprocess.DEVNULL, stderr=log, start_new_session=True)
    try:
        wait_ready(f"http://127.0.0.1:{port}{ready_path}", process, what)
        yield process, f"http://127.0.0.1:{port}/v1"
    finally:
        stop(process)


def tablestream(redis_url: str, data_dir: str, job_workers: int = 0
                ) -> contextlib.AbstractContextManager[tuple[subprocess.Popen, str]]:
    env = {**os.environ, **UNLIMITED, "REDIS_URL": redis_url, "TABLESTREAM_DATA": data_dir,
           "TABLESTREAM_WORKER_CLASS": WORKER}
    return _server([sys.executable, "-m", "service.clients.cli", "serve", "--port", "{port}",
                    "--job-workers", str(job_workers), "--web-workers", WEB_WORKERS],
                   env, _log(data_dir, "tablestream.log"), "/healthz", "tablestream serve")


def bare(redis_url: str, log_dir: str) -> contextlib.AbstractContextManager[
        tuple[subprocess.Popen, str]]:
    env = {**os.environ, "REDIS_URL": redis_url}
    return _server([sys.executable, "-m", "gunicorn", "--worker-class", WORKER,
                    "--workers", WEB_WORKERS, "--worker-connections", "2000",
                    "--bind", "127.0.0.1:{port}", "--log-level", "warning",
                    "--config", "python:service.runtime.gunicorn_conf", "bench.bare_app:app"],
                   env, _log(log_dir, "bare.log"), "/", "the bare Flask app")


class LoadGen:
    """bench/loadgen.py in a process of its own, one JSON answer per command (``argv``: another
    generator speaking the same protocol, e.g. bench/game_client.py)."""

    def __init__(self, base: str, kind: str, server: subprocess.Popen,
                 argv: list[str] | None = None):
        argv = argv or [sys.executable, str(ROOT / "bench" / "loadgen.py"), "--base", base,
                        "--kind", kind, "--server-pid", str(server.pid)]
        self.process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
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


def cpu_ms(r: dict[str, Any], which: str) -> float:
    return r[f"{which}_cpu_s"] / max(r["moves"], 1) * 1000


def summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """One server's rounds at one level: medians over the rounds, errors summed."""
    kinds: dict[str, int] = {}
    for r in runs:
        for kind, n in r["error_kinds"].items():
            kinds[kind] = kinds.get(kind, 0) + n
    median = statistics.median
    return {"games": runs[0]["games"],
            "moves_per_s": median(r["moves_per_s"] for r in runs),
            "p50_ms": median(r["p50_ms"] for r in runs),
            "p99_ms": median(r["p99_ms"] for r in runs),
            "errors": sum(r["errors"] for r in runs), "error_kinds": kinds,
            "server_ms": median(cpu_ms(r, "server") for r in runs),
            "client_ms": median(cpu_ms(r, "client") for r in runs)}


def ratio(bare_run: dict[str, Any], ts_run: dict[str, Any]) -> float:
    return ts_run["moves_per_s"] / max(bare_run["moves_per_s"], 1e-9)


def row(name: str, r: dict[str, Any]) -> str:
    return (f"  {name:<12}{r['games']:>6}{r['moves_per_s']:>10.0f}{r['p50_ms']:>9.2f}"
            f"{r['p99_ms']:>9.2f}{r['errors']:>7}{r['server_ms']:>11.2f}{r['client_ms']:>11.2f}")


def main() -> None:
    redis_url = os.environ.get("REDIS_URL")
    temp = tempfile.mkdtemp(prefix="bench-throughput-")
    server = None
    if not redis_url:
        server = embedded_redis.start(os.path.join(temp, "redis"))
        redis_url = server.url
    print(f"load average before: {load()}  (2 cores shared; ratios matter more than rates)",
          flush=True)
    print(f"gunicorn worker class {WORKER}, {WEB_WORKERS} processes, both servers; {ROUNDS} "
          f"rounds a level, in turn bare then tablestream and tablestream then bare", flush=True)
    # Per level: the rounds, each a (bare, tablestream) pair of windows (measured in either order).
    results: list[list[tuple[dict[str, Any], dict[str, Any]]]] = []
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
                    rounds: list[tuple[dict[str, Any], dict[str, Any]]] = []
                    for n in range(1, ROUNDS + 1):
                        order = generators if n % 2 else generators[::-1]
                        runs = {g: g.ask("run", games, WARMUP, SECONDS) for g in order}
                        bare_run, ts_run = (runs[g] for g in generators)
                        rounds.append((bare_run, ts_run))
                        print(f"    {games} games round {n}/{ROUNDS}: bare "
                              f"{bare_run['moves_per_s']:.0f}, tablestream "
                              f"{ts_run['moves_per_s']:.0f} moves/s, ratio "
                              f"{ratio(bare_run, ts_run):.2f} (load {load()})", flush=True)
                    results.append(rounds)
            finally:
                for generator in generators:
                    generator.close()
    finally:
        if server:
            server.stop()
    levels = [(summary([b for b, _ in rounds]), summary([t for _, t in rounds]),
               [ratio(b, t) for b, t in rounds]) for rounds in results]
    print()
    print(f"(b)-(d) moves/s, latency, errors and CPU per move: medians of {ROUNDS} rounds "
          f"({SECONDS:.0f} s windows after {WARMUP:.1f} s of warm-up and a move by every game), "
          "errors summed over the rounds")
    print(f"  {'server':<12}{'games':>6}{'moves/s':>10}{'p50 ms':>9}{'p99 ms':>9}{'errors':>7}"
          f"{'server ms':>11}{'client ms':>11}   (ms: CPU per move)")
    for bare_sum, ts_sum, _ in levels:
        print(row("bare", bare_sum))
        print(row("tablestream", ts_sum))
        for name, run in (("bare", bare_sum), ("tablestream", ts_sum)):
            if run["error_kinds"]:
                print(f"    {name} errors: {run['error_kinds']}")
    print()
    print("(e) Tablestream / bare moves/s: median of the round ratios (each round's tablestream "
          "window over its bare window), their min-max; target >= 0.60 at 16 and 128 games")
    for _, ts_sum, ratios in levels:
        print(f"  {ts_sum['games']:>5} games   {statistics.median(ratios):5.2f}   "
              f"({min(ratios):.2f}-{max(ratios):.2f})   raw-append share "
              f"{ts_sum['moves_per_s'] / raw:5.2f}")
    for _, ts_sum, ratios in levels:
        if ts_sum["games"] in (16, 128):
            median = statistics.median(ratios)
            print(f"Tablestream/bare at {ts_sum['games']} games, median of {ROUNDS} rounds: "
                  f"{median:.2f} (target >= 0.60: {'met' if median >= 0.6 else 'NOT met'})")
    worst = max((ts_sum["server_ms"] for _, ts_sum, _ in levels), default=0.0)
    errors = levels[-1][1]["errors"] if levels else 0
    print(f"Tablestream server CPU per move, worst level's median: {worst:.2f} ms (target <= 2.5:"
          f" {'met' if worst <= 2.5 else 'NOT met'}); errors at {LEVELS[-1]} games, all rounds: "
          f"{errors} (target 0: {'met' if errors == 0 else 'NOT met'})")
    print(f"load average after: {load()}; servers' logs in {temp}")


if __name__ == "__main__":
    main()
