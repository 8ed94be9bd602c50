"""Tablestream's real-game bench next to boardgame.io 0.50 (issue 29 item 4), in the same rounds.

Per level and round, four windows in turn (reversed every other round): the bare Flask + Lua app
(bench/bare_app.py, bench/loadgen.py), Tablestream's 2-seat Loot played by bench/game_client.py
(one POST a move, both seats on SSE, `serve` with an RQ worker), and boardgame.io 0.50.2's server
(bench/bgio/server.js) in memory and with FlatFile storage, played by bench/bgio/client.js: the
same closed loop, each seat a boardgame.io client on its own socket.io connection, the seat to
move sending one move (the POST's equivalent) and the other seat learning of it on its own
connection. boardgame.io's game is a minimal 2-player one (bench/bgio/game.js: one `add` a turn,
run on the server only, 200 moves a game), so its figure is the framework's floor, not Loot's.

Prints moves/s, p50/p99 move latency, push latency, the slowest game's moves, server CPU per move
(boardgame.io: its node process; Tablestream: API + Redis + workers; bare: its app + Redis) and
the ratios: each to bare, and Tablestream to each boardgame.io storage (medians of the round
ratios). Settings: BENCH_LEVELS (16,128,1024), BENCH_ROUNDS (3), BENCH_WARMUP, BENCH_SECONDS,
as bench/real_games.py. Needs node and `npm ci` in bench/bgio (`make bench-bgio` does it).
Loopback only, bounded.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.loadgen import cpu_seconds  # noqa: E402
from bench.real_games import LEVELS, ROUNDS, bare_argv, client_argv  # noqa: E402
from bench.throughput import (  # noqa: E402
    SECONDS,
    WARMUP,
    LoadGen,
    _log,
    _server,
    bare,
    load,
    tablestream,
)
from events import embedded_redis  # noqa: E402

BGIO = ROOT / "bench" / "bgio"
NAMES = ("bare", "tablestream", "bgio-memory", "bgio-flatfile")


@contextlib.contextmanager
def bgio_server(storage: str, temp: str) -> Iterator[tuple[subprocess.Popen, str]]:
    files = os.path.join(temp, f"bgio-{storage}")
    with _server(["node", str(BGIO / "server.js"), "{port}", storage, files],
                 {**os.environ}, _log(temp, f"bgio-{storage}.log"), "/games",
                 f"boardgame.io ({storage})") as (process, base):
        yield process, base.removesuffix("/v1")


class BgioServer:
    """A boardgame.io server for the windows, started again when it died: FlatFile
    (node-persist) can read a match file while it is being written and then exits with "does
    not look like a valid storage file" (seen at 128 games). A window it died in counts as a
    crash, with the moves its client saw; the next window gets a new server."""

    def __init__(self, storage: str, temp: str):
        self.storage, self.temp = storage, temp
        self.stack = contextlib.ExitStack()
        self.process, self.base = self._start()

    def _start(self) -> tuple[subprocess.Popen, str]:
        return self.stack.enter_context(bgio_server(self.storage, self.temp))

    def window(self, games: int) -> dict[str, Any]:
        if self.process.poll() is not None:
            self.stack.close()
            self.stack = contextlib.ExitStack()
            self.process, self.base = self._start()
        result = bgio_window(self.process, self.base, games)
        if self.process.poll() is not None:
            result["crashed"] = True
        return result

    def close(self) -> None:
        self.stack.close()


def bgio_window(process: subprocess.Popen, base: str, games: int) -> dict[str, Any]:
    """One window of bench/bgio/client.js, the server's CPU read when it opens and closes (a
    window whose client failed, its server gone: no move)."""
    client = subprocess.Popen(["node", str(BGIO / "client.js"), base, str(games), str(WARMUP),
                               str(SECONDS)], stdout=subprocess.PIPE, text=True, cwd=BGIO)
    assert client.stdout
    try:
        if client.stdout.readline().strip() != "measuring":
            if process.poll() is None:
                raise SystemExit(f"bench/bgio/client.js failed ({client.wait()})")
            return _no_window(games)
        before = cpu_seconds([process.pid])
        line = client.stdout.readline()
        after = cpu_seconds([process.pid])
        client.wait(timeout=60)
    finally:
        if client.poll() is None:
            client.kill()
    if not line:
        if process.poll() is None:
            raise SystemExit(f"bench/bgio/client.js failed ({client.wait()})")
        return _no_window(games)
    result = json.loads(line)
    result["server_cpu_s"] = after - before
    return result


def _no_window(games: int) -> dict[str, Any]:
    return {"games": games, "moves": 0, "seconds": SECONDS, "moves_per_s": 0.0, "errors": 1,
            "p50_ms": None, "p99_ms": None, "push_p50_ms": None, "push_p99_ms": None,
            "slowest_game_moves": 0, "server_cpu_s": 0.0, "client_cpu_s": 0.0,
            "crashed": True}


def cpu_ms(run: dict[str, Any], key: str) -> float:
    return run[key] / max(run["moves"], 1) * 1000


def med(runs: list[dict[str, Any]], key: str) -> float:
    values = [r[key] for r in runs if r.get(key) is not None and r[key] == r[key]]
    return statistics.median(values) if values else float("nan")


def main() -> None:
    if not (BGIO / "node_modules" / "boardgame.io").exists():
        raise SystemExit("run `cd bench/bgio && npm ci` first (or `make bench-bgio`)")
    temp = tempfile.mkdtemp(prefix="bench-bgio-")
    redis_server = embedded_redis.start(os.path.join(temp, "redis"))
    redis_pids = [redis_server.process.pid] if redis_server.process else []
    print(f"load average before: {load()}  (2 cores shared; ratios matter more than rates)",
          flush=True)
    table: list[tuple[int, dict[str, list[dict[str, Any]]]]] = []
    try:
        with bare(redis_server.url, temp) as (bare_process, bare_base), \
                tablestream(redis_server.url, os.path.join(temp, "data"), 1) as (
                    ts_process, ts_base), \
                contextlib.closing(BgioServer("memory", temp)) as memory, \
                contextlib.closing(BgioServer("flatfile", temp)) as flatfile:
            bare_gen = LoadGen(bare_base, "bare", bare_process,
                               bare_argv(bare_base, [bare_process.pid, *redis_pids]))
            groups = [("api", ts_process.pid), *(("redis", p) for p in redis_pids)]
            real = LoadGen(ts_base, "loot", ts_process, client_argv(ts_base, "loot", groups))
            windows = {"bare": lambda n: bare_gen.ask("run", n, WARMUP, SECONDS),
                       "tablestream": lambda n: real.ask("run", n, WARMUP, SECONDS),
                       "bgio-memory": memory.window, "bgio-flatfile": flatfile.window}
            try:
                bare_gen.ask("setup", max(LEVELS))
                real.ask("setup", max(LEVELS))
                for name in ("bgio-memory", "bgio-flatfile"):  # a first window, not counted:
                    windows[name](LEVELS[0])  # FlatFile's first one ran at a tenth of its rate
                for games in LEVELS:
                    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in NAMES}
                    for n in range(1, ROUNDS + 1):
                        for name in NAMES if n % 2 else NAMES[::-1]:
                            runs[name].append(windows[name](games))
                        print(f"    {games} games round {n}/{ROUNDS}: " + ", ".join(
                            f"{name} {runs[name][-1]['moves_per_s']:.0f}" for name in NAMES)
                            + f" moves/s (load {load()})", flush=True)
                    table.append((games, runs))
            finally:
                bare_gen.close()
                real.close()
    finally:
        redis_server.stop()
        shutil.rmtree(os.path.join(temp, "bgio-flatfile"), ignore_errors=True)
    print()
    print(f"Medians of {ROUNDS} rounds of {SECONDS:.0f} s (Tablestream: Loot; boardgame.io: "
          "bench/bgio/game.js); CPU per move in ms")
    print(f"  {'server':<14}{'games':>6}{'moves/s':>9}{'x bare':>8}{'p50':>8}{'p99':>8}"
          f"{'push50':>8}{'push99':>8}{'slowest':>8}{'err':>5}{'server':>8}{'client':>8}")
    for games, runs in table:
        for name in NAMES:
            rs = runs[name]
            ratios = [r["moves_per_s"] / max(b["moves_per_s"], 1e-9)
                      for r, b in zip(rs, runs["bare"], strict=True)]
            push = (f"{med(rs, 'push_p50_ms'):>8.1f}{med(rs, 'push_p99_ms'):>8.1f}"
                    if name != "bare" else f"{'':>16}")
            slowest = min((r["slowest_game_moves"] for r in rs
                           if r.get("slowest_game_moves") is not None), default="-") \
                if name != "bare" else ""
            print(f"  {name:<14}{games:>6}{med(rs, 'moves_per_s'):>9.0f}"
                  f"{statistics.median(ratios):>8.2f}{med(rs, 'p50_ms'):>8.1f}"
                  f"{med(rs, 'p99_ms'):>8.1f}{push}{slowest:>8}"
                  f"{sum(r['errors'] for r in rs):>5}"
                  f"{statistics.median(cpu_ms(r, 'server_cpu_s') for r in rs):>8.2f}"
                  f"{statistics.median(cpu_ms(r, 'client_cpu_s') for r in rs):>8.2f}")
    crashed = {name: [games for games, runs in table for r in runs[name] if r.get("crashed")]
               for name in NAMES}
    for name, levels in crashed.items():
        if levels:
            print(f"  {name}: its server died in {len(levels)} window(s) (at "
                  f"{', '.join(map(str, levels))} games): counted with the moves seen, and "
                  "started again for the next window")
    print()
    print("Tablestream Loot / boardgame.io, moves/s (median of the round ratios, min-max):")
    for games, runs in table:
        parts = []
        for name in ("bgio-memory", "bgio-flatfile"):
            ratios = [t["moves_per_s"] / max(b["moves_per_s"], 1e-9)
                      for t, b in zip(runs["tablestream"], runs[name], strict=True)]
            parts.append(f"/ {name} {statistics.median(ratios):.2f} "
                         f"({min(ratios):.2f}-{max(ratios):.2f})")
        print(f"  {games:>5} games   " + "   ".join(parts))
    print(f"load average after: {load()}; logs in {temp}")


if __name__ == "__main__":
    main()
