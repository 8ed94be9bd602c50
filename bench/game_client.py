"""The real-game load generator of bench/real_games.py (issue 29 item 1), a process of its own
like bench/loadgen.py, whose connection, window and /proc CPU reading it reuses: N concurrent
2-seat games, each seat played as the web page plays it (service/web/static/app.js `follow()`):

- each seat follows ``GET /v1/games/{id}/events/stream?views=true`` (its token in the URL), whose
  ``game`` events carry that seat's picture after every batch of events;
- a seat whose picture says it is to move POSTs one of its ``legal_commands`` (the first, or a
  random one with ``--pick random``) as it is, one request per move, on a kept-alive connection;
  the POST's answer is the mover's next picture, the other seat learns of the move on its stream.

Measured per window: moves (accepted POSTs), their latency (POST sent -> answer read), the push
latency (the mover's answer read -> the other seat's stream delivers that version), the slowest
game's moves (of the games in play when the window began; and the slowest table's, whose game
may have ended and been replaced in it), and the CPU time of each group of server processes
(``--group NAME=PID``, repeatable: each PID's whole process tree, read from /proc; a pid also in
an earlier group's tree is counted there only). A game that ends is replaced by a new one at
once (its creation is counted apart, as ``games_started``).

Driven over stdin like loadgen.py, one JSON line per command:

    setup N                  create players (2 per game) until there are N games' worth
    run N WARMUP SECONDS     play N games; measure SECONDS after WARMUP and a move by every game
                             (games and streams stay open between runs, paused, as a player's
                             page stays open between moves; new ones start in the warm-up)
    quit
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import random
import resource
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.loadgen import (
    TICK,
    Connection,
    HttpError,
    Window,
    _ok,
    _pct,
    dumps,
    loads,
    own_cpu,
    serve_commands,
)

REQUEST_TIMEOUT = 30.0
WARM_TIMEOUT = 180.0  # s: a level's first run creates its games and opens 2 streams each
GAMES = {"loot": {"game": "loot", "options": {}},
         "wotr": {"game": "wotr", "options": {"scenario": "south"}}}


def process_table() -> dict[int, tuple[int, float]]:
    """Every process's parent and user + system CPU seconds, from /proc."""
    stats: dict[int, tuple[int, float]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                raw = f.read()
        except OSError:
            continue
        fields = raw[raw.rindex(b")") + 2:].split()
        stats[int(name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / TICK)
    return stats


def group_cpu(groups: list[tuple[str, int]]) -> dict[str, float]:
    """CPU seconds of each named process tree; a process counts in the first group holding it.
    In a tree, a process below the root that is not gunicorn's (serve's RQ workers) counts as
    ``workers``: the root and its gunicorn processes are the API."""
    stats = process_table()
    children: dict[int, list[int]] = {}
    for pid, (ppid, _) in stats.items():
        children.setdefault(ppid, []).append(pid)
    seen: set[int] = set()
    totals: dict[str, float] = {"workers": 0.0}
    for name, root in groups:
        todo, total = [root], 0.0
        while todo:
            pid = todo.pop()
            if pid in seen or pid not in stats:
                continue
            seen.add(pid)
            if pid != root and not _is_gunicorn(pid):
                totals["workers"] = totals.get("workers", 0.0) + stats[pid][1]
            else:
                total += stats[pid][1]
            todo.extend(children.get(pid, []))
        totals[name] = totals.get(name, 0.0) + total
    return totals


def _is_gunicorn(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return b"gunicorn" in f.read()
    except OSError:
        return True


class Stream:
    """One seat's SSE stream: yields the JSON of each ``game`` event (chunked or not)."""

    def __init__(self, host: str, port: int, path: str):
        self.host, self.port, self.path = host, port, path
        self.writer: asyncio.StreamWriter | None = None

    async def events(self):
        reader, self.writer = await asyncio.open_connection(self.host, self.port)
        self.writer.write(b"GET %s HTTP/1.1\r\nHost: %s:%d\r\nAccept: text/event-stream\r\n\r\n"
                          % (self.path.encode(), self.host.encode(), self.port))
        head = await reader.readuntil(b"\r\n\r\n")
        if head[9:12] != b"200":
            raise HttpError(f"stream HTTP {head[9:12].decode()}")
        chunked = b"transfer-encoding: chunked" in head.lower()
        buffer = b""
        while True:
            if chunked:
                size = int((await reader.readuntil(b"\r\n")).strip().split(b";")[0], 16)
                if size == 0:
                    return
                data = await reader.readexactly(size + 2)
                buffer += data[:-2]
            else:
                data = await reader.read(65536)
                if not data:
                    return
                buffer += data
            while b"\n\n" in buffer:
                message, buffer = buffer.split(b"\n\n", 1)
                if message.startswith(b"event: game\n"):
                    for line in message.split(b"\n"):
                        if line.startswith(b"data: "):
                            yield loads(line[6:])

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None


@dataclass
class Seat:
    token: str
    headers: bytes
    conn: Connection
    picture: dict[str, Any] | None = None
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    stream: Stream | None = None


@dataclass
class Table:
    """One game slot: two seats (players kept from game to game), the game now played there."""

    seats: list[Seat]
    game_id: str = ""
    acked: dict[int, tuple[int, float]] = field(default_factory=dict)  # version -> (seat, t)
    moves: int = 0  # in the measured window
    # The moves in the window of the game in play when it began, once that game has ended in it
    # (None: it has not): a game started in the window is not the one measured.
    first_game_moves: int | None = None
    # Between games: the last one is over and the next not yet started (POST /games, join,
    # start). A table between games when a window begins has no game in play to measure.
    between_games: bool = True
    in_play: bool = False  # it had a game in play when the measured window began
    made: int = 0  # ever
    pushed: bool = False  # a stream has delivered a move (of any of its games): ever
    busy: bool = False  # a seat's move may be in flight
    task: asyncio.Task | None = None  # its play(), once a run included it


@dataclass
class RealWindow(Window):
    pushes: list[float] = field(default_factory=list)
    games_started: int = 0
    games_finished: int = 0


class Client:
    def __init__(self, base: str, game: str, pick: str, groups: list[tuple[str, int]]):
        url = urlparse(base)
        self.host, self.port, self.prefix = url.hostname or "127.0.0.1", url.port or 80, url.path
        self.spec = GAMES[game]
        self.pick = pick
        self.groups = groups
        self.tables: list[Table] = []
        self.random = random.Random(29)
        self.window = RealWindow()  # the run's; between runs, one that counts nothing
        self.gate = asyncio.Event()  # set while a run plays
        self.metrics = Connection(self.host, self.port)  # its scrapes, /metrics
        self.closing = False

    async def player(self, conn: Connection, n: int) -> Seat:
        """A player of their own per seat; the table's seats share ``conn`` for their POSTs
        (they move in turn, as two tabs of one browser would share its connection)."""
        status, body = await conn.request("POST", f"{self.prefix}/players",
                                          dumps({"name": f"bench{n}"}))
        token = _ok(status, body)["token"]
        return Seat(token, b"Authorization: Bearer %s\r\n" % token.encode(), conn)

    async def setup(self, count: int) -> dict[str, Any]:
        while len(self.tables) < count:
            n, conn = len(self.tables), Connection(self.host, self.port)
            self.tables.append(Table([await self.player(conn, 2 * n),
                                      await self.player(conn, 2 * n + 1)]))
            conn.close()  # idle until the run: the server's keep-alive timeout would close it
        return {"games": len(self.tables)}

    async def new_game(self, table: Table) -> None:
        """Seat 0 creates the game, seat 1 joins, seat 0 starts it; both follow it."""
        if self.window.measuring and table.first_game_moves is None:
            table.first_game_moves = table.moves
        a, b = table.seats
        p = self.prefix
        status, body = await a.conn.request("POST", f"{p}/games", dumps(
            {**self.spec, "seats": [{"kind": "human"}, {"kind": "human"}]}), a.headers)
        game_id = _ok(status, body)["id"]
        _ok(*await b.conn.request("POST", f"{p}/games/{game_id}/join", b"", b.headers))
        for seat in table.seats:
            seat.picture = None
            if seat.stream:
                seat.stream.close()
        table.game_id, table.acked = game_id, {}
        status, body = await a.conn.request("POST", f"{p}/games/{game_id}/start", b"", a.headers)
        a.picture = _ok(status, body)
        status, body = await b.conn.request("GET", f"{p}/games/{game_id}", None, b.headers)
        b.picture = _ok(status, body)
        table.between_games = False

    async def follow(self, table: Table, index: int) -> None:
        """Seat ``index``'s stream for the table's current game, from the version it holds."""
        seat = table.seats[index]
        game_id = table.game_id
        version = seat.picture["version"] if seat.picture else 0
        stream = Stream(self.host, self.port,
                        f"{self.prefix}/games/{game_id}/events/stream?views=true&access_token="
                        f"{seat.token}&last_event_id={version}")
        seat.stream = stream
        try:
            async for picture in stream.events():
                now = time.perf_counter()
                if table.game_id != game_id:
                    return
                for v in [v for v in table.acked if v <= picture["version"]]:
                    mover, acked_at = table.acked[v]
                    if mover != index:
                        del table.acked[v]
                        if self.window.measuring:
                            self.window.pushes.append(now - acked_at)
                table.pushed = True
                if seat.picture is None or picture["version"] >= seat.picture["version"]:
                    seat.picture = picture
                    seat.changed.set()
        except (OSError, asyncio.IncompleteReadError, HttpError, ValueError) as exc:
            if not self.closing:
                self.window.error(f"stream {type(exc).__name__}")
        finally:
            stream.close()

    async def play_seat(self, table: Table, index: int) -> bool:
        """Moves while the seat is to move (and the run goes on); False once the game is over."""
        seat = table.seats[index]
        while self.gate.is_set() and not self.closing:
            window = self.window
            picture = seat.picture
            if picture is None:
                return True
            if picture["status"] == "finished":
                return False
            legal = picture.get("legal_commands") or []
            if not legal:
                return True
            command = legal[0] if self.pick == "first" else self.random.choice(legal)
            started = time.perf_counter()
            try:
                async with asyncio.timeout(REQUEST_TIMEOUT):
                    status, body = await seat.conn.request(
                        "POST", f"{self.prefix}/games/{table.game_id}/commands", dumps(command),
                        seat.headers)
            except (OSError, asyncio.IncompleteReadError, HttpError, TimeoutError) as exc:
                window.error(type(exc).__name__)
                seat.conn.close()
                await asyncio.sleep(0.05)
                continue
            now = time.perf_counter()
            if status == 409:  # the other seat moved first (simultaneous turns): wait for it
                seat.picture = None if seat.picture is picture else seat.picture
                return True
            if status != 200:
                window.error(f"HTTP {status}")
                return True
            answer = loads(body)["game"]
            table.acked[answer["version"]] = (index, now)
            table.made += 1
            if window.measuring:
                window.moves += 1
                table.moves += 1
                window.latencies.append(now - started)
            if seat.picture is None or answer["version"] >= seat.picture["version"]:
                seat.picture = answer
        return True

    async def play(self, table: Table) -> None:
        """The table's games one after another, for as long as the client lives: between runs
        it waits (its streams stay open, as a player's page does between moves)."""
        while not self.closing:
            try:
                await self.new_game(table)
            except (OSError, asyncio.IncompleteReadError, HttpError) as exc:
                self.window.error(f"new game {type(exc).__name__}")
                await asyncio.sleep(0.2)
                continue
            self.window.games_started += self.window.measuring
            followers = [asyncio.create_task(self.follow(table, i)) for i in (0, 1)]
            over = False
            while not over and not self.closing:
                await self.gate.wait()
                table.busy = True
                for index, seat in enumerate(table.seats):
                    seat.changed.clear()
                    if not await self.play_seat(table, index):
                        over = table.between_games = True
                table.busy = False
                if over or self.closing or not self.gate.is_set():
                    continue
                # Neither seat can move on what it holds: wait for a stream to bring news.
                waits = [asyncio.create_task(s.changed.wait()) for s in table.seats]
                done, pending = await asyncio.wait(waits, timeout=REQUEST_TIMEOUT,
                                                   return_when=asyncio.FIRST_COMPLETED)
                for task in pending:
                    task.cancel()
                if not done and self.gate.is_set():
                    self.window.error("no push within 30 s")
                    for seat in table.seats:  # read the game afresh
                        status, body = await seat.conn.request(
                            "GET", f"{self.prefix}/games/{table.game_id}", None, seat.headers)
                        if status == 200:
                            seat.picture = loads(body)
            self.window.games_finished += over and self.window.measuring
            for seat in table.seats:
                if seat.stream:
                    seat.stream.close()
            for task in followers:
                task.cancel()
            await asyncio.gather(*followers, return_exceptions=True)

    async def collector_seconds(self) -> tuple[float, float]:
        """The API processes' time in Python's cyclic garbage collector so far (their
        ``tablestream_gc_seconds_total`` on /metrics; NaN if unreadable) and when it was read."""
        sent = time.perf_counter()
        try:
            status, body = await self.metrics.request("GET", "/metrics")
        except (OSError, asyncio.IncompleteReadError, HttpError):
            status, body = 0, b""
        at = (sent + time.perf_counter()) / 2
        if status != 200:
            return float("nan"), at
        return sum(float(line.rsplit(b" ", 1)[1]) for line in body.splitlines()
                   if line.startswith(b"tablestream_gc_seconds_total{")), at

    async def run(self, count: int, warmup: float, seconds: float) -> dict[str, Any]:
        """Play the first ``count`` tables (starting those not yet playing) and measure.

        The client's own cyclic garbage collector is off while it plays (it collects between
        runs, the games paused): at 1,024 games every pass walked the seats' pictures, which
        live seconds there, and took 0.5-0.8 ms of the cores the server shares a move (0.04 at
        16 games). What the server does is measured, not its load generator."""
        gc.collect()
        gc.disable()
        try:
            return await self._run(count, warmup, seconds)
        finally:
            gc.enable()

    async def _run(self, count: int, warmup: float, seconds: float) -> dict[str, Any]:
        window = self.window = RealWindow()
        tables = self.tables[:count]
        for table in tables:
            if table.task is None:
                table.task = asyncio.create_task(self.play(table))
        self.gate.set()
        warm_started = time.perf_counter()
        await asyncio.sleep(warmup)
        # Steady state: every table has a game, has made a move and has heard one on a stream
        # (the first run of a level creates its games and opens their streams here, unmeasured:
        # warm_s says how long that took), unless that takes long.
        deadline = time.monotonic() + WARM_TIMEOUT
        while any(not (t.made and t.pushed) for t in tables) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        warm_s = time.perf_counter() - warm_started
        unwarmed = sum(not (t.made and t.pushed) for t in tables)
        for table in tables:
            table.moves, table.first_game_moves = 0, None
            table.in_play = not table.between_games
        gc_before = await self.collector_seconds()
        cpu_before, client_before = group_cpu(self.groups), own_cpu()
        started = time.perf_counter()
        window.measuring = True
        await asyncio.sleep(seconds)
        window.measuring = False
        elapsed = time.perf_counter() - started
        cpu_after, client_after = group_cpu(self.groups), own_cpu()
        gc_after = await self.collector_seconds()
        self.gate.clear()
        deadline = time.monotonic() + REQUEST_TIMEOUT
        while any(t.busy for t in tables) and time.monotonic() < deadline:
            await asyncio.sleep(0.02)  # the moves in flight end; no new one starts
        latencies, pushes = sorted(window.latencies), sorted(window.pushes)
        return {"games": count, "moves": window.moves, "seconds": elapsed,
                "moves_per_s": window.moves / elapsed, "errors": window.errors,
                "error_kinds": window.kinds, "warm_s": warm_s,
                "unwarmed": unwarmed,
                "p50_ms": _pct(latencies, 0.50) * 1000, "p99_ms": _pct(latencies, 0.99) * 1000,
                "push_p50_ms": _pct(pushes, 0.50) * 1000, "push_p99_ms": _pct(pushes, 0.99) * 1000,
                "pushes": len(pushes),
                # Every game in play when the window began and still in play when it ended, by
                # its moves in the window (one that ended in it moved to its end; a table
                # between games when it began had none in play), and every table, whose game
                # may have ended and been replaced by one still starting when the window closed.
                # (None: every game ended in the window, as Loot's do at 16 games)
                "slowest_game_moves": min((t.moves for t in tables
                                           if t.in_play and t.first_game_moves is None),
                                          default=None),
                "slowest_table_moves": min(t.moves for t in tables),
                "games_started": window.games_started,
                "games_finished": window.games_finished,
                "cpu_s": {name: cpu_after.get(name, 0.0) - cpu_before.get(name, 0.0)
                          for name in cpu_after},
                "server_cpu_s": sum(cpu_after.values()) - sum(cpu_before.values()),
                # The API processes' collector time over the window (the scrapes' own waits
                # taken out: at 1,024 games a scrape waits its turn behind the moves).
                "api_gc_s": (gc_after[0] - gc_before[0]) * elapsed
                / max(gc_after[1] - gc_before[1], elapsed),
                "client_cpu_s": client_after - client_before}

    async def close(self) -> None:
        self.closing = True
        self.gate.set()
        tasks = [t.task for t in self.tables if t.task]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self.metrics.close()
        for table in self.tables:
            for seat in table.seats:
                seat.conn.close()
                if seat.stream:
                    seat.stream.close()


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True)
    parser.add_argument("--game", choices=sorted(GAMES), default="loot")
    parser.add_argument("--pick", choices=["first", "random"], default="first")
    parser.add_argument("--group", action="append", default=[],
                        help="NAME=PID: a process tree whose CPU is reported as NAME")
    args = parser.parse_args()
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    groups = [(g.split("=")[0], int(g.split("=")[1])) for g in args.group]
    client = Client(args.base, args.game, args.pick, groups)
    await serve_commands(client)


if __name__ == "__main__":
    asyncio.run(main())
