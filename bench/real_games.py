"""Real games, played as the web page plays them, beside the bare yardstick (issue 29 item 1).

`make bench`'s bench/throughput.py measures the one-seat ``tally`` with POSTs only. This bench
plays 2-seat Loot and 2-seat War of the Ring (``{"scenario": "south"}``) with bench/game_client.py:
N concurrent games, each seat following its SSE stream (``?views=true``) and POSTing its first
legal command when its picture says it is to move, one request per move (see that file). Against
`tablestream serve` with one RQ worker (as `make run`), on the embedded Redis, and, in the same
rounds, the bare Flask + Lua app of bench/bare_app.py played by bench/loadgen.py, this prints per
game and level:

- moves/s and the ratio to bare (the median of the round ratios, each round's real-game window
  over its bare window, measured in ABBA order as bench/throughput.py does);
- p50/p99 move latency (POST -> answer) and push latency (the mover's answer read -> the other
  seat's stream delivers that version);
- the slowest game's moves in a window (0: a game starved; of the games in play all through
  it: not one that ended in it, nor a table between games when it began, its last game over
  and the next being created; - when every game ended in it) and the slowest table's (whose
  game may have ended in it, the next one still starting), games finished and replaced;
- CPU per move split by process: API (serve and its gunicorn processes), Redis, workers (RQ),
  from /proc before and after each window; bare's is its gunicorn processes + the same Redis;
  and of the API's, the part its cyclic garbage collector took (``(gc)``, from /metrics).

Settings: BENCH_LEVELS (16,128,1024), BENCH_GAMES (loot,wotr), BENCH_ROUNDS (3), BENCH_WARMUP
(s, 1.5; at least WARMUP_PER_GAME a game: 8 s at 1,024), BENCH_SECONDS (s, 4), BENCH_PICK
(first | random), BENCH_JOB_WORKERS (1), and bench/throughput.py's BENCH_WORKER_CLASS,
BENCH_WEB_WORKERS, REDIS_URL (then Redis's CPU is not measured). Loopback only, bounded:
each level is ROUNDS x 2 windows.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.throughput import (  # noqa: E402
    SECONDS,
    WARMUP,
    WORKER,
    LoadGen,
    bare,
    load,
    ratio,
    tablestream,
)
from events import embedded_redis  # noqa: E402

LEVELS = [int(n) for n in os.environ.get("BENCH_LEVELS", "16,128,1024").split(",")]
GAMES = os.environ.get("BENCH_GAMES", "loot,wotr").split(",")
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
PICK = os.environ.get("BENCH_PICK", "first")
JOB_WORKERS = int(os.environ.get("BENCH_JOB_WORKERS", "1"))
GROUPS = ("api", "redis", "workers")
# s of warm-up a game, beyond BENCH_WARMUP: the games pause between windows, and when a window's
# warm-up begins every one of them moves at once; at 1,024 games that burst takes a few of a
# game's cycles (a move and its push, ~1.2 s there) to spread out. Measured from 1.5 s, it made
# the move p99 4.5-5.3x the p50; from 8 s, 2.3-2.5x (the same code, the same hour).
WARMUP_PER_GAME = 0.008


def warmup(games: int) -> float:
    return max(WARMUP, games * WARMUP_PER_GAME)


def client_argv(base: str, game: str, groups: list[tuple[str, int]]) -> list[str]:
    return [sys.executable, str(ROOT / "bench" / "game_client.py"), "--base", base,
            "--game", game, "--pick", PICK,
            *(f"--group={name}={pid}" for name, pid in groups)]


def bare_argv(base: str, pids: list[int]) -> list[str]:
    return [sys.executable, str(ROOT / "bench" / "loadgen.py"), "--base", base, "--kind",
            "bare", *(f"--server-pid={pid}" for pid in pids)]


def median(runs: list[dict[str, Any]], key: str) -> float:
    values = [r[key] for r in runs if r[key] == r[key]]  # NaN: no sample in that window
    return statistics.median(values) if values else float("nan")


def per_move(runs: list[dict[str, Any]], seconds: Any) -> float:
    return statistics.median(seconds(r) / max(r["moves"], 1) * 1000 for r in runs)


def measure(game: str, bare_gen: LoadGen, real: LoadGen) -> list[dict[str, Any]]:
    """Every level's rounds for ``game``: a summary per level."""
    levels = []
    for games in LEVELS:
        rounds: list[tuple[dict[str, Any], dict[str, Any]]] = []
        for n in range(1, ROUNDS + 1):
            order = [bare_gen, real] if n % 2 else [real, bare_gen]
            runs = {id(g): g.ask("run", games, warmup(games), SECONDS) for g in order}
            bare_run, real_run = runs[id(bare_gen)], runs[id(real)]
            rounds.append((bare_run, real_run))
            print(f"    {game} {games} games round {n}/{ROUNDS}: bare "
                  f"{bare_run['moves_per_s']:.0f}, {game} {real_run['moves_per_s']:.0f} moves/s,"
                  f" ratio {ratio(bare_run, real_run):.2f}, push p50 "
                  f"{real_run['push_p50_ms']:.1f} ms (load {load()})", flush=True)
        bares, reals = [b for b, _ in rounds], [r for _, r in rounds]
        kinds: dict[str, int] = {}
        for r in reals:
            for kind, count in r["error_kinds"].items():
                kinds[kind] = kinds.get(kind, 0) + count
        levels.append({
            "game": game, "games": games, "bare_moves_per_s": median(bares, "moves_per_s"),
            "moves_per_s": median(reals, "moves_per_s"),
            "ratio": statistics.median(ratio(b, r) for b, r in rounds),
            "ratios": [ratio(b, r) for b, r in rounds],
            **{key: median(reals, key) for key in
               ("p50_ms", "p99_ms", "push_p50_ms", "push_p99_ms")},
            "slowest_game_moves": min((r["slowest_game_moves"] for r in reals
                                       if r["slowest_game_moves"] is not None), default=None),
            "slowest_table_moves": min(r["slowest_table_moves"] for r in reals),
            "games_finished": sum(r["games_finished"] for r in reals),
            "errors": sum(r["errors"] for r in reals), "error_kinds": kinds,
            "unwarmed": max(r["unwarmed"] for r in reals),
            "warm_s": max(r["warm_s"] for r in reals),
            **{f"{g}_ms": per_move(reals, lambda r, g=g: r["cpu_s"].get(g, 0.0)) for g in GROUPS},
            "server_ms": per_move(reals, lambda r: r["server_cpu_s"]),
            "bare_server_ms": per_move(bares, lambda r: r["server_cpu_s"]),
            "client_ms": per_move(reals, lambda r: r["client_cpu_s"]),
            "api_gc_ms": per_move(reals, lambda r: r["api_gc_s"])})
    return levels


def _or_dash(value: Any) -> Any:
    return "-" if value is None else value


def report(levels: list[dict[str, Any]]) -> None:
    print()
    print(f"Real games ({PICK} legal command, one POST per move, both seats on SSE), medians of "
          f"{ROUNDS} rounds of {SECONDS:.0f} s after a warm-up of {WARMUP:.1f} s or "
          f"{WARMUP_PER_GAME * 1000:.0f} ms a game, the longer; errors and finished "
          "games summed; CPU per move in ms (server = API + Redis + workers; bare = its app + "
          "Redis)")
    print(f"  {'game':<6}{'games':>6}{'moves/s':>9}{'x bare':>7}{'(min-max)':>12}{'p50':>8}"
          f"{'p99':>8}{'push50':>8}{'push99':>8}{'slowest':>8}{'table':>6}{'done':>6}{'err':>5}"
          f"{'api':>7}{'(gc)':>7}"
          f"{'redis':>7}{'wrk':>7}{'server':>8}{'bare':>7}{'client':>8}")
    for r in levels:
        print(f"  {r['game']:<6}{r['games']:>6}{r['moves_per_s']:>9.0f}{r['ratio']:>7.2f}"
              f"{min(r['ratios']):>6.2f}-{max(r['ratios']):<5.2f}{r['p50_ms']:>8.1f}"
              f"{r['p99_ms']:>8.1f}{r['push_p50_ms']:>8.1f}{r['push_p99_ms']:>8.1f}"
              f"{_or_dash(r['slowest_game_moves']):>8}{r['slowest_table_moves']:>6}"
              f"{r['games_finished']:>6}{r['errors']:>5}"
              f"{r['api_ms']:>7.2f}{r['api_gc_ms']:>7.2f}{r['redis_ms']:>7.2f}{r['workers_ms']:>7.2f}"
              f"{r['server_ms']:>8.2f}{r['bare_server_ms']:>7.2f}{r['client_ms']:>8.2f}")
        if r["error_kinds"]:
            print(f"    errors: {r['error_kinds']}")
        if r["unwarmed"]:
            print(f"    {r['unwarmed']} games had not both moved and heard a move on a stream "
                  f"after {r['warm_s']:.0f} s of warm-up: this level's figures are not a "
                  "steady state")
    print("  (latencies in ms; slowest: the fewest moves any one game in play all through a "
          "window made in it, - when every game ended in its window; table: the same of a "
          "table, whose game may have ended in the window and the next one still be starting; "
          "done: games finished and replaced by new ones)")
    starts = ", ".join(f"{r['game']} {r['games']}: {r['warm_s']:.1f} s" for r in levels)
    print("  (each level's first round starts its new games and opens their streams in its "
          "warm-up, which ends once every game has moved and heard a move on a stream; the "
          f"longest warm-up: {starts}; they stay open, paused, between windows)")


def main(print_json: bool = "--json" in sys.argv) -> list[dict[str, Any]]:
    redis_url = os.environ.get("REDIS_URL")
    temp = tempfile.mkdtemp(prefix="bench-real-games-")
    redis_server = None
    if not redis_url:
        redis_server = embedded_redis.start(os.path.join(temp, "redis"))
        redis_url = redis_server.url
    redis_pids = [redis_server.process.pid] if redis_server and redis_server.process else []
    print(f"load average before: {load()}  (2 cores shared; ratios matter more than rates)",
          flush=True)
    print(f"gunicorn worker class {WORKER}; tablestream serve with {JOB_WORKERS} RQ worker(s); "
          f"{ROUNDS} rounds a level, ABBA", flush=True)
    levels: list[dict[str, Any]] = []
    try:
        with bare(redis_url, temp) as (bare_process, bare_base), \
                tablestream(redis_url, os.path.join(temp, "data"), JOB_WORKERS) as (
                    ts_process, ts_base):
            bare_gen = LoadGen(bare_base, "bare", bare_process,
                               bare_argv(bare_base, [bare_process.pid, *redis_pids]))
            try:
                bare_gen.ask("setup", max(LEVELS))
                for game in GAMES:
                    groups = [("api", ts_process.pid), *(("redis", p) for p in redis_pids)]
                    real = LoadGen(ts_base, game, ts_process, client_argv(ts_base, game, groups))
                    try:
                        real.ask("setup", max(LEVELS))
                        levels.extend(measure(game, bare_gen, real))
                    finally:
                        real.close()
            finally:
                bare_gen.close()
    finally:
        if redis_server:
            redis_server.stop()
    report(levels)
    if print_json:
        print(json.dumps(levels))
    print(f"load average after: {load()}; servers' logs in {temp}")
    return levels


if __name__ == "__main__":
    main()
