"""The load generator of bench/throughput.py, a process of its own (so its CPU is not the
server's, and is measured apart): one asyncio loop, one kept-alive HTTP/1.1 connection per game,
each game played by POSTing the next command the previous answer gave, one request per move.

It is driven over stdin, one command a line, and answers each with one JSON line on stdout:

    setup N                  create games until there are N (players, games, starts)
    run N WARMUP SECONDS     play the first N games; measure SECONDS after WARMUP and after
                             every game has made a move
    quit

``--kind tablestream`` plays the unlisted ``tally`` game against `tablestream serve` (the
answer's ``game.legal_commands[0]`` is the next move: it already carries expected_version);
``--kind bare`` plays bench/bare_app.py (the next move is the answer's version plus one).
``--server-pid`` (repeatable): the roots of the server's process trees, whose CPU time
(/proc, every descendant) is read at the start and end of each measured window.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import sys
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

try:  # the client should spend as little CPU per move as it can; stdlib json works too
    import orjson

    loads: Any = orjson.loads
    dumps: Any = orjson.dumps
except ModuleNotFoundError:  # pragma: no cover
    loads = json.loads

    def dumps(value: Any) -> bytes:
        return json.dumps(value, separators=(",", ":")).encode()

TICK = os.sysconf("SC_CLK_TCK")
REQUEST_TIMEOUT = 30.0
TARGET = 10_000_000  # tally's target: no game ends during a bench


class HttpError(Exception):
    pass


class Connection:
    """One kept-alive HTTP/1.1 connection: a request at a time, Content-Length bodies."""

    def __init__(self, host: str, port: int):
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(self, method: str, path: str, body: bytes | None = None,
                      headers: bytes = b"") -> tuple[int, bytes]:
        reused = self.writer is not None
        try:
            return await self._request(method, path, body, headers)
        except (asyncio.IncompleteReadError, ConnectionError) as exc:
            # A kept-alive connection the server closed while idle (its keep-alive timeout ran
            # out, e.g. while this process waited for a core): the request never got in. Send
            # it again on a new connection once, as HTTP clients do; not after a partial answer.
            partial = isinstance(exc, asyncio.IncompleteReadError) and exc.partial
            if not reused or partial:
                raise
            return await self._request(method, path, body, headers)

    async def _request(self, method: str, path: str, body: bytes | None,
                       headers: bytes) -> tuple[int, bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        assert self.reader is not None
        head = b"%s %s HTTP/1.1\r\nHost: %s:%d\r\n%s" % (
            method.encode(), path.encode(), self.host.encode(), self.port, headers)
        if body is None:
            self.writer.write(head + b"\r\n")
        else:
            self.writer.write(head + b"Content-Type: application/json\r\nContent-Length: %d"
                              b"\r\n\r\n%s" % (len(body), body))
        try:
            answer = await self.reader.readuntil(b"\r\n\r\n")
            lower = answer.lower()
            at = lower.find(b"\r\ncontent-length:")
            if at < 0:
                raise HttpError("answer without Content-Length")
            length = int(lower[at + 17:lower.index(b"\r\n", at + 2)])
            payload = await self.reader.readexactly(length)
        except (asyncio.IncompleteReadError, ConnectionError, HttpError):
            self.close()
            raise
        if b"\r\nconnection: close" in lower:
            self.close()
        return int(answer[9:12]), payload

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


@dataclass
class Game:
    """One game's client: its connection, token and the body of its next move."""

    path: str
    headers: bytes
    next_body: bytes
    conn: Connection


@dataclass
class Window:
    measuring: bool = False
    stopping: bool = False
    moves: int = 0
    warmed: int = 0  # games that have made a move since the run began
    errors: int = 0
    kinds: dict[str, int] = field(default_factory=dict)
    latencies: list[float] = field(default_factory=list)

    def error(self, what: str) -> None:
        if self.measuring:
            self.errors += 1
            self.kinds[what] = self.kinds.get(what, 0) + 1


class Client:
    def __init__(self, base: str, kind: str, server_pids: list[int]):
        url = urlparse(base)
        self.host, self.port, self.prefix = url.hostname or "127.0.0.1", url.port or 80, url.path
        self.kind = kind
        self.server_pids = server_pids
        self.games: list[Game] = []

    def connection(self) -> Connection:
        return Connection(self.host, self.port)

    async def new_game(self) -> Game:
        conn = self.connection()
        p = self.prefix
        if self.kind == "bare":
            status, body = await conn.request("POST", f"{p}/games", b"{}")
            created = _ok(status, body)
            return Game(f"{p}/games/{created['id']}/commands", b"",
                        dumps({"type": "add", "amount": 1, "expected_version": 0}), conn)
        status, body = await conn.request("POST", f"{p}/players", b'{"name":"bench"}')
        headers = b"Authorization: Bearer %s\r\n" % _ok(status, body)["token"].encode()
        status, body = await conn.request("POST", f"{p}/games", dumps(
            {"game": "tally", "seats": [{"kind": "human"}], "options": {"target": TARGET}}),
            headers)
        game_id = _ok(status, body)["id"]
        status, body = await conn.request("POST", f"{p}/games/{game_id}/start", b"", headers)
        started = _ok(status, body)
        return Game(f"{p}/games/{game_id}/commands", headers,
                    dumps(started["legal_commands"][0]), conn)

    async def setup(self, count: int) -> dict[str, Any]:
        todo = count - len(self.games)
        lanes = 16

        async def lane(n: int) -> list[Game]:
            return [await self.new_game() for _ in range(n)]

        if todo > 0:
            shares = [todo // lanes + (1 if i < todo % lanes else 0) for i in range(lanes)]
            for made in await asyncio.gather(*(lane(n) for n in shares if n)):
                self.games.extend(made)
        for game in self.games:
            game.conn.close()  # idle ones would be closed by the server's keep-alive timeout
        return {"games": len(self.games)}

    async def resync(self, game: Game) -> None:
        """After an error: the game's current next move, read afresh."""
        game.conn.close()
        if self.kind == "bare":
            raise HttpError("bare games cannot resync")
        status, body = await game.conn.request("GET", game.path.removesuffix("/commands"),
                                               None, game.headers)
        game.next_body = dumps(_ok(status, body)["legal_commands"][0])

    async def play(self, game: Game, window: Window) -> None:
        warm = False
        while not window.stopping:
            started = time.perf_counter()
            try:
                async with asyncio.timeout(REQUEST_TIMEOUT):
                    status, body = await game.conn.request("POST", game.path, game.next_body,
                                                           game.headers)
            except (OSError, asyncio.IncompleteReadError, HttpError, TimeoutError) as exc:
                window.error(type(exc).__name__)
                game.conn.close()
                await asyncio.sleep(0.05)
                continue
            took = time.perf_counter() - started
            if status != 200:
                window.error(f"HTTP {status}")
                if self.kind == "bare" and status == 409:
                    version = loads(body)["version"]
                    game.next_body = dumps({"type": "add", "amount": 1,
                                            "expected_version": version})
                else:
                    try:
                        await self.resync(game)
                    except Exception as exc:  # counted; the loop tries again
                        window.error(f"resync {type(exc).__name__}")
                        await asyncio.sleep(0.05)
                continue
            if not warm:
                warm = True
                window.warmed += 1
            if window.measuring:
                window.moves += 1
                window.latencies.append(took)
            answer = loads(body)
            if self.kind == "bare":
                game.next_body = dumps({"type": "add", "amount": 1,
                                        "expected_version": answer["version"]})
            else:
                game.next_body = dumps(answer["game"]["legal_commands"][0])

    async def run(self, count: int, warmup: float, seconds: float) -> dict[str, Any]:
        window = Window()
        tasks = [asyncio.create_task(self.play(game, window)) for game in self.games[:count]]
        await asyncio.sleep(warmup)
        # Steady state: every game has made a move on its new connection (the first one may
        # meet a cold cache in the process it landed on), unless that takes over a minute.
        deadline = time.monotonic() + 60
        while window.warmed < count and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        server_before, client_before = cpu_seconds(self.server_pids), own_cpu()
        started = time.perf_counter()
        window.measuring = True
        await asyncio.sleep(seconds)
        window.measuring = False
        elapsed = time.perf_counter() - started
        server_after, client_after = cpu_seconds(self.server_pids), own_cpu()
        window.stopping = True
        await asyncio.gather(*tasks)
        for game in self.games[:count]:
            game.conn.close()
        latencies = sorted(window.latencies)
        return {"games": count, "moves": window.moves, "seconds": elapsed,
                "moves_per_s": window.moves / elapsed, "errors": window.errors,
                "error_kinds": window.kinds,
                "p50_ms": _pct(latencies, 0.50) * 1000, "p99_ms": _pct(latencies, 0.99) * 1000,
                "server_cpu_s": server_after - server_before,
                "client_cpu_s": client_after - client_before}


def _ok(status: int, body: bytes) -> Any:
    if not 200 <= status < 300:
        raise HttpError(f"HTTP {status}: {body[:200]!r}")
    return loads(body)


def _pct(ordered: list[float], q: float) -> float:
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def cpu_seconds(roots: list[int]) -> float:
    """User + system CPU time of ``roots`` and all their descendants, from /proc."""
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
        # fields[1] is ppid; [11], [12] utime, stime (man 5 proc, counted from state = [0]).
        stats[int(name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / TICK)
    wanted = set(roots)
    grew = True
    while grew:
        grew = False
        for pid, (ppid, _) in stats.items():
            if ppid in wanted and pid not in wanted:
                wanted.add(pid)
                grew = True
    return sum(stats[pid][1] for pid in wanted if pid in stats)


async def serve_commands(client: Any) -> None:
    """Answer the driving bench's lines on stdin (``setup N``, ``run N SECONDS WARMUP``,
    ``quit``) with one JSON line each, until ``quit`` or the end of input."""
    loop = asyncio.get_running_loop()
    while True:
        line = (await loop.run_in_executor(None, sys.stdin.readline)).split()
        if not line or line[0] == "quit":
            if hasattr(client, "close"):
                await client.close()
            return
        try:
            if line[0] == "setup":
                answer = await client.setup(int(line[1]))
            elif line[0] == "run":
                answer = await client.run(int(line[1]), float(line[2]), float(line[3]))
            else:
                answer = {"failed": f"unknown command {line[0]}"}
        except Exception as exc:
            answer = {"failed": f"{type(exc).__name__}: {exc}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True)
    parser.add_argument("--kind", choices=["tablestream", "bare"], required=True)
    parser.add_argument("--server-pid", type=int, action="append", default=[])
    args = parser.parse_args()
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # 1,024 games need more sockets
    client = Client(args.base, args.kind, args.server_pid)
    await serve_commands(client)


if __name__ == "__main__":
    asyncio.run(main())
