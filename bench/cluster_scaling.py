"""Moves/s against a 3-master Redis Cluster as API processes are added (issue 13).

Starts a real 3-master Redis Cluster from the bundled redis-server (tests/cluster.py) and a plain
embedded Redis for the RQ queues, then for 1, 2 and 4 API processes runs `tablestream serve
--web-workers N` (gunicorn + gevent, as in production) with REDIS_CLUSTER=1 against it. A
separate client process plays many concurrent 2-player tally games on 127.0.0.1, one thread a
game, one POST a move: the body is the seat's legal command with the version taken from the
previous answer, which also says who moves next (tally's legal commands are the same for every
seat and turn, so a game reads them once, by a GET before the clock starts). No GET in the
measured loop unless a move fails.

With ``--game loot`` (or ``wotr``, on its ``south`` map) the client is bench/game_client.py
instead, as bench/real_games.py plays: 2-seat games whose seats each follow their SSE stream
(``?views=true``) and POST their first legal command when their picture says so, one request a
move, the other seat learning of it on its stream (issue 29: moves/s per added API process on a
real game, with its pushes); the rows then add the push latency (the mover's answer -> the other
seat's stream) and the slowest game's moves, and the CPU is per move.

Prints, per API-process count: moves/s, p50/p99 latency, errors, the CPU the API processes, the
three Redis nodes and the client spent per request (per move on a real game), the cores each
kept busy and how busy the whole machine was (every process on it, /proc/stat), with the core
count and load; then whether moves/s rose with each step and, where it stopped, whether the
machine's cores were all busy. On a machine with few cores the client, the API and Redis share
them (and with whatever else runs there: under the kernel's autogroup scheduling a ``nice``
process of another session takes its share all the same), which bounds the scaling: the figures
say so rather than hide it. Bounded: about two minutes with the defaults.

    python bench/cluster_scaling.py [--processes 1,2,4] [--games 64] [--seconds 15]
                                    [--game tally|loot|wotr]
"""

from __future__ import annotations

import argparse
import http.client
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.real_games import client_argv
from bench.throughput import LoadGen
from events import embedded_redis
from tests import unlimited
from tests.cluster import start_cluster
from tests.e2e.conftest import free_port, stop

WARMUP = 3.0  # s of moves before the measured window (gunicorn workers warm their caches)
TICKS = os.sysconf("SC_CLK_TCK")


# -- the client process ------------------------------------------------------------------------

class Client:
    """Keep-alive JSON over http.client: the client shares the cores with the server, so it
    spends as little CPU per request as it can."""

    def __init__(self, port: int):
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def call(self, method: str, path: str, body: Any = None,
             token: str | None = None) -> tuple[int, Any]:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        self.connection.request(method, f"/v1{path}",
                                None if body is None else json.dumps(body), headers)
        response = self.connection.getresponse()
        return response.status, json.loads(response.read() or b"null")


def _ok(answer: tuple[int, Any]) -> Any:
    status, body = answer
    if status not in (200, 201):
        raise RuntimeError(f"set-up request failed: {status} {body}")
    return body


def _new_game(client: Client) -> tuple[str, list[str], dict[str, Any]]:
    """A started 2-player tally game (target out of reach): id, the seats' tokens, the start."""
    tokens = [_ok(client.call("POST", "/players", {"name": f"bench{i}"}))["token"]
              for i in range(2)]
    game = _ok(client.call("POST", "/games", {"game": "tally", "seats": [{"kind": "human"}] * 2,
                                              "options": {"target": 10_000_000}}, tokens[0]))
    _ok(client.call("POST", f"/games/{game['id']}/join", None, tokens[1]))
    started = _ok(client.call("POST", f"/games/{game['id']}/start", None, tokens[0]))
    return game["id"], tokens, started


def drive(port: int, games: int, seconds: float) -> dict[str, Any]:
    """Play ``games`` games at once for WARMUP + ``seconds``; figures of the measured window."""
    latencies: list[float] = []
    errors: dict[str, int] = {}
    sent = [0]
    lock = threading.Lock()
    ready = threading.Barrier(games + 1)
    go = threading.Event()
    window: list[float] = []

    def play() -> None:
        client = Client(port)
        game_id, tokens, answer = _new_game(client)
        mover = int(next(iter(answer["pending"])))
        # The mover's legal command, read once (tally's are the same for every seat and turn).
        seen = _ok(client.call("GET", f"/games/{game_id}", None, tokens[mover]))
        command = {k: v for k, v in seen["legal_commands"][0].items() if k != "expected_version"}
        version, requests = seen["version"], 6  # 2 players, create, join, start, GET
        mine_latencies: list[float] = []
        mine_errors: dict[str, int] = {}
        ready.wait()
        go.wait()
        # A fresh connection: gunicorn closes one idle for its keep-alive (2 s) while the other
        # games were being set up, and a move must not fail on that.
        client = Client(port)
        start, end = window
        while (now := time.perf_counter()) < end:
            requests += 1
            try:
                status, body = client.call("POST", f"/games/{game_id}/commands",
                                           {**command, "expected_version": version},
                                           tokens[mover])
            except (OSError, http.client.HTTPException, ValueError) as exc:
                mine_errors[type(exc).__name__] = mine_errors.get(type(exc).__name__, 0) + 1
                client = Client(port)
                continue
            done = time.perf_counter()
            if status != 200:
                mine_errors[str(status)] = mine_errors.get(str(status), 0) + 1
                requests += 1
                game = _ok(client.call("GET", f"/games/{game_id}"))
            else:
                if now >= start:
                    mine_latencies.append(done - now)
                game = body["game"]  # the answer carries the next version and who moves
            version = game["version"]
            mover = int(next(iter(game["pending"])))
        with lock:
            latencies.extend(mine_latencies)
            sent[0] += requests
            for key, count in mine_errors.items():
                errors[key] = errors.get(key, 0) + count

    threads = [threading.Thread(target=play, daemon=True) for _ in range(games)]
    for thread in threads:
        thread.start()
    ready.wait()  # every game is set up
    window.extend([time.perf_counter() + WARMUP, time.perf_counter() + WARMUP + seconds])
    go.set()
    for thread in threads:
        thread.join()
    ordered = sorted(latencies)
    return {"moves": len(ordered), "seconds": seconds, "requests": sent[0],
            "p50_ms": 1000 * statistics.median(ordered) if ordered else float("nan"),
            "p99_ms": 1000 * ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
            if ordered else float("nan"),
            "errors": errors, "client_cpu_s": time.process_time()}


# -- the bench ---------------------------------------------------------------------------------

def _cpu_seconds(pids: list[int]) -> float:
    """User + system CPU of ``pids`` so far (Linux /proc)."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / TICKS


def _machine_ticks() -> tuple[int, int]:
    """The whole machine's busy and total CPU ticks so far (/proc/stat), every process's."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    idle = fields[3] + fields[4]  # idle, iowait
    return sum(fields) - idle, sum(fields)


def _session_pids(session: int) -> list[int]:
    """Every live process of one session (`serve` and the gunicorn processes it started)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[3]) == session:
                pids.append(int(entry.name))
    return pids


def _serve(processes: int, env: dict[str, str]) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "service.clients.cli", "serve", "--port", str(port), "--web-workers",
         str(processes), "--job-workers", "0"], env=env, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 120  # a loaded machine boots gunicorn slowly
    while time.monotonic() < deadline:
        try:
            status, _ = Client(port).call("GET", "/games/catalog")
            if status == 200:
                # Every worker boots on its own: give the others a moment after the first.
                time.sleep(1.0 + 0.5 * processes)
                return process, port
        except OSError:
            pass
        if process.poll() is not None:
            raise SystemExit(f"tablestream serve exited with {process.returncode}")
        time.sleep(0.2)
    stop(process)
    raise SystemExit("tablestream serve did not answer within 120 s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", default="1,2,4", help="API process counts to compare")
    parser.add_argument("--games", type=int, default=int(os.environ.get("BENCH_GAMES", "64")))
    parser.add_argument("--seconds", type=float,
                        default=float(os.environ.get("BENCH_SECONDS", "15")))
    parser.add_argument("--game", choices=("tally", "loot", "wotr"),
                        default=os.environ.get("BENCH_GAME", "tally"),
                        help="tally: POSTs only; loot, wotr: real games with their pushes")
    parser.add_argument("--drive", type=int, metavar="PORT", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.drive:  # the client process
        print(json.dumps(drive(options.drive, options.games, options.seconds)))
        return

    counts = [int(n) for n in options.processes.split(",")]
    root = Path(tempfile.mkdtemp(prefix="bench-cluster-"))
    print(f"cores: {os.cpu_count()}   load before: "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    shape = ("one POST a move" if options.game == "tally" else
             "one POST a move, each seat on its SSE stream (bench/game_client.py)")
    print(f"{options.games} concurrent 2-player {options.game} games, {options.seconds:.0f} s "
          f"measured after {WARMUP:.0f} s of warm-up, {shape}; store: 3-master Redis Cluster; "
          "queues: plain Redis\n", flush=True)
    cluster = start_cluster(root / "cluster")
    queues = embedded_redis.start(root / "queues", "everysec")
    redis_pids = [p.pid for p in cluster.processes]
    env = {**os.environ, **unlimited.ENV, "REDIS_URL": cluster.url, "REDIS_CLUSTER": "1",
           "QUEUE_REDIS_URL": queues.url, "TABLESTREAM_WORKERS": "0", "ACCESS_LOG": "0",
           "TABLESTREAM_DATA": str(root / "data")}
    rows = []
    try:
        for count in counts:
            server, port = _serve(count, env)
            try:
                if options.game != "tally":
                    result = _real_games(options.game, server, port, redis_pids, options)
                    rows.append((count, result))
                    _print_row(count, result, rows[0][1])
                    continue
                api_pids = _session_pids(server.pid)
                api_cpu, redis_cpu = _cpu_seconds(api_pids), _cpu_seconds(redis_pids)
                began, machine = time.monotonic(), _machine_ticks()
                ran = subprocess.run(
                    [sys.executable, __file__, "--drive", str(port), "--games",
                     str(options.games), "--seconds", str(options.seconds)],
                    capture_output=True, text=True, timeout=options.seconds + 300)
                if ran.returncode != 0:
                    raise SystemExit(f"the client failed:\n{ran.stderr[-2000:]}")
                wall = time.monotonic() - began
                result = json.loads(ran.stdout)
                # CPU over the whole client run (set-up, warm-up and window), per request sent,
                # and as cores kept busy on average over that run.
                requests = result["requests"]
                api_s = _cpu_seconds(api_pids) - api_cpu
                redis_s = _cpu_seconds(redis_pids) - redis_cpu
                result["api_cpu_ms"] = 1000 * api_s / requests
                result["redis_cpu_ms"] = 1000 * redis_s / requests
                result["client_cpu_ms"] = 1000 * result["client_cpu_s"] / requests
                result["cores"] = {"API": api_s / wall, "Redis": redis_s / wall,
                                   "client": result["client_cpu_s"] / wall}
                busy, total = (now - then for now, then
                               in zip(_machine_ticks(), machine, strict=True))
                result["machine_cores"] = (os.cpu_count() or 1) * busy / max(total, 1)
                result["load"] = os.getloadavg()[0]
            finally:
                stop(server)
            rows.append((count, result))
            _print_row(count, result, rows[0][1])
    finally:
        cluster.stop()
        queues.stop()
    print(f"\nload after: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} "
          "cores (the client, the API processes and the three Redis nodes share them)")
    print(_verdict(rows))


def _real_games(game: str, server: subprocess.Popen[bytes], port: int, redis_pids: list[int],
                options: argparse.Namespace) -> dict[str, Any]:
    """One window of real ``game`` games against ``server`` (bench/game_client.py, whose games
    are made and whose streams are opened in its warm-up): the row's figures, CPU per move."""
    groups = [("api", server.pid), *(("redis", pid) for pid in redis_pids)]
    client = LoadGen(f"http://127.0.0.1:{port}/v1", "real", server,
                     client_argv(f"http://127.0.0.1:{port}/v1", game, groups))
    try:
        client.ask("setup", options.games)
        machine = _machine_ticks()
        run = client.ask("run", options.games, WARMUP, options.seconds)
        busy, total = (now - then for now, then in zip(_machine_ticks(), machine, strict=True))
    finally:
        client.close()
    moves, seconds = max(run["moves"], 1), run["seconds"]
    # The machine's ticks span the warm-up too: its share of busy cores, not the window's.
    cpu = {name: run["cpu_s"].get(name, 0.0) for name in ("api", "redis")}
    return {"moves": run["moves"], "seconds": seconds, "p50_ms": run["p50_ms"],
            "p99_ms": run["p99_ms"], "push_p50_ms": run["push_p50_ms"],
            "push_p99_ms": run["push_p99_ms"], "slowest": run["slowest_game_moves"],
            "errors": run["error_kinds"] if run["errors"] else {},
            "api_cpu_ms": 1000 * cpu["api"] / moves, "redis_cpu_ms": 1000 * cpu["redis"] / moves,
            "client_cpu_ms": 1000 * run["client_cpu_s"] / moves,
            "cores": {"API": cpu["api"] / seconds, "Redis": cpu["redis"] / seconds,
                      "client": run["client_cpu_s"] / seconds},
            "machine_cores": (os.cpu_count() or 1) * busy / max(total, 1),
            "load": os.getloadavg()[0], "per": "move"}


def _verdict(rows: list[tuple[int, dict[str, Any]]]) -> str:
    """Whether moves/s rose with each step in API processes and, where it stopped, why."""
    if len(rows) < 2:
        return "one API process count only: nothing to compare"
    rate = {count: result["moves"] / result["seconds"] for count, result in rows}
    steps = list(itertools.pairwise(rows))
    text = "moves/s by API processes: " + ", ".join(
        f"{a} -> {b}: {rate[b] / rate[a]:.2f}x" for (a, _), (b, _) in steps)
    for (a, _), (b, result) in steps:
        if rate[b] < 1.05 * rate[a]:
            busy, cores = result["machine_cores"], os.cpu_count() or 1
            others = busy - sum(result["cores"].values())
            why = (f"the machine's cores were busy ({busy:.2f} of {cores}, {others:.2f} of them "
                   "by processes outside this bench), so more API processes only share them"
                   if busy >= 0.9 * cores else
                   f"yet the machine was not saturated ({busy:.2f} of {cores} cores busy): the "
                   "limit is elsewhere (the client? see its cores above)")
            rose = f"rose up to {a} API processes but did" if a != rows[0][0] else "did"
            return f"{text}\nmoves/s {rose} not rise from {a} to {b}: {why}"
    return f"{text}\nmoves/s rose with every step in API processes"


def _print_row(count: int, result: dict[str, Any], first: dict[str, Any]) -> None:
    rate = result["moves"] / result["seconds"]
    base = first["moves"] / first["seconds"]
    errors = sum(result["errors"].values())
    detail = f" {result['errors']}" if errors else ""
    print(f"API processes {count}: {rate:7.0f} moves/s ({rate / base:.2f}x of 1)  "
          f"p50 {result['p50_ms']:6.1f} ms  p99 {result['p99_ms']:6.1f} ms  "
          f"errors {errors}{detail}  CPU/{result.get('per', 'request')}: "
          f"API {result['api_cpu_ms']:.2f} ms, "
          f"Redis {result['redis_cpu_ms']:.2f} ms, client {result['client_cpu_ms']:.2f} ms  "
          f"(load {result['load']:.2f})", flush=True)
    if "push_p50_ms" in result:
        print(f"    push p50 {result['push_p50_ms']:.1f} ms  p99 {result['push_p99_ms']:.1f} ms  "
              f"slowest game {result['slowest']} moves in the window", flush=True)
    cores = result["cores"]
    print(f"    cores busy on average: API {cores['API']:.2f}, Redis {cores['Redis']:.2f}, "
          f"client {cores['client']:.2f}, together {sum(cores.values()):.2f} of "
          f"{os.cpu_count()}; the whole machine {result['machine_cores']:.2f}", flush=True)


if __name__ == "__main__":
    main()
