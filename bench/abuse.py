"""One player cannot slow down another (issue 23 items 4-8): a bystander's move under each abuse,
beside a quiet run measured in the same run, on `tablestream serve` with its production limits.

The bystander plays tally against a random bot, one move at a time: ``move`` is its POST's
round trip, ``bot`` the time from that answer until the bot's reply is in the log (read with a
blocking XREAD on the store, from this process). Each phase measures it for BENCH_PHASE_SECONDS
while one abuser runs in a process of its own (this script, ``--abuser NAME``):

- quiet: nothing else;
- streams: 4,000 tokenless SSE streams of the bystander's game opened from one address in 3 s,
  the accepted ones held open, each refused one tried again after its Retry-After;
- slow: 4,000 connections from another address (127.0.0.2) opened in 3 s, each sending a
  move's headers and then its body a byte every 2 s (each refused one tried again after its
  Retry-After, each cut off opened again);
- reads: 16 clients without a token reading ``events?limit=1000`` and ``/audit`` of a finished
  game of 1,000+ events in a loop (after a 429 each waits its Retry-After);
- webhooks: a player with 5 webhooks pointed at a loopback socket that accepts and never
  answers, making 5 moves a second in its own game (each of its turns is a notice for every
  hook: 25 deliveries a second);
- experts: three Mag Blast games of 8 expert bots asked for at think_ms 5000 (the limits
  refuse that think time and a third bot-only game per player: the abuser takes what it is
  given, 2,000 ms and two players) run by themselves.

Before each abuse the bystander is measured quiet again (after the server has settled), and
the abuse's ratio is to that quiet run: a shared machine's load drifts over a minute. Each
abuse is measured in BENCH_ROUNDS (3) rounds of a quiet phase and an abused one, and the
percentiles are of the rounds' samples pooled: a phase's 160 moves make its p99 the second
slowest sample, and one run's ratio swung from 1.05x to 2.95x with nothing changed. (The
expert games, once made, play on: their abuse is one quiet phase and one abused phase, each as
long as the rounds.) Each round's own ratio is printed too, and each abuser's tally with the
CPU seconds it used itself (``cpu_s``): it runs on the cores the server and the bystander share.
Goal: the bystander's p50 and p99 within 2x of quiet under every abuse. Everything runs on
loopback, the server and its Redis started here in a temporary directory (WEBHOOK_ALLOW_HTTP=1
lets the webhooks name the loopback receiver; UNLISTED_GAMES=1 allows tally). Settings:
BENCH_PHASE_SECONDS (8), BENCH_ROUNDS (3), BENCH_WEB_WORKERS (2), BENCH_ABUSES
(streams,slow,reads,webhooks,experts).

    python bench/abuse.py            (make abuse)
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import http.client
import json
import os
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.loadgen import Connection, HttpError  # noqa: E402

PHASE_SECONDS = float(os.environ.get("BENCH_PHASE_SECONDS", "8"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
WEB_WORKERS = os.environ.get("BENCH_WEB_WORKERS", "2")
ABUSES = [a for a in os.environ.get("BENCH_ABUSES",
                                    "streams,slow,reads,webhooks,experts").split(",") if a]
REQUEST_TIMEOUT = 15.0
PACE = 0.05  # s between the bystander's moves at most (20 a second)
READY_TIMEOUT = 180.0
STREAMS = 4000
SLOW_CONNECTIONS = 4000
SLOW_BYTE_SECONDS = 2.0
SLOW_ADDRESS = "127.0.0.2"  # the slow abuser is another player: another (loopback) address
STREAM_BURST_SECONDS = 3.0
READERS = 16
HOOKS = 5
WEBHOOK_PACE = 0.2  # s between the hooked player's moves: 25 deliveries a second
EXPERT_GAMES = 3
EXPERT_SEATS = 8
ASKED_THINK_MS = 5000
READ_GAME_TARGET = 2400  # tally, amounts 1-3: about 1,200 events


# --- the bystander (this process) ----------------------------------------------------------------

class Client:
    """Blocking JSON over one kept-alive connection (the bystander, the setup)."""

    def __init__(self, port: int, token: str | None = None):
        self.port = port
        self.token = token
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=REQUEST_TIMEOUT)

    def call(self, method: str, path: str, body: Any = None,
             prefix: str = "/v1") -> tuple[int, Any, dict[str, str]]:
        headers = {"Content-Type": "application/json"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        data = None if body is None else json.dumps(body)
        for retry in (True, False):
            try:
                self.conn.request(method, prefix + path, data, headers)
                answer = self.conn.getresponse()
                raw = answer.read()
                break
            except (ConnectionError, http.client.RemoteDisconnected):
                # The server closed the kept-alive connection while it idled (its keep-alive
                # timeout): the request never got in; once more on a new one, as clients do.
                self.conn.close()
                if not retry:
                    raise
            except (OSError, http.client.HTTPException):
                self.conn.close()
                raise
        return answer.status, (json.loads(raw) if raw else None), dict(answer.getheaders())

    def ok(self, method: str, path: str, body: Any = None) -> Any:
        status, answer, _ = self.call(method, path, body)
        if not 200 <= status < 300:
            raise SystemExit(f"{method} {path}: HTTP {status} {answer}")
        return answer


def new_player(port: int, name: str) -> Client:
    client = Client(port)
    client.token = client.ok("POST", "/players", {"name": name})["token"]
    return client


class Bystander:
    """A tally game against a random bot, played one move at a time."""

    def __init__(self, port: int, store: Any):
        self.client = new_player(port, "bystander")
        self.store = store
        game = self.client.ok("POST", "/games", {
            "game": "tally", "options": {"target": 10_000_000},
            "seats": [{"kind": "human"}, {"kind": "bot", "level": "random"}]})
        self.game_id = game["id"]
        self.client.ok("POST", f"/games/{self.game_id}/start")
        self.version = self._my_turn()

    def _my_turn(self) -> int:
        """Wait until the bot has replied; the version the bystander moves at."""
        while True:
            game = self.client.ok("GET", f"/games/{self.game_id}")
            if game["legal_commands"]:
                return game["version"]
            self.store.wait(self.game_id, game["version"], 5000)

    def round(self) -> tuple[float, float]:
        """One move and the bot's reply: (move ms, bot ms)."""
        started = time.perf_counter()
        answer = self.client.ok("POST", f"/games/{self.game_id}/commands",
                                {"type": "add", "amount": 1,
                                 "expected_version": self.version})
        moved = time.perf_counter()
        version = answer["version"]
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            events = self.store.wait(self.game_id, version, 10_000)
            if events:
                version = events[-1].version
                if any(e.seat == "1" for e in events):
                    break
        replied = time.perf_counter()
        self.version = version
        return (moved - started) * 1000, (replied - moved) * 1000

    def measure(self, seconds: float) -> dict[str, Any]:
        moves: list[float] = []
        bots: list[float] = []
        errors = 0
        stop = time.monotonic() + seconds
        next_at = time.monotonic()
        while time.monotonic() < stop:
            # A human's pace, well under the 50 commands a second a player may send.
            next_at = max(next_at + PACE, time.monotonic())
            time.sleep(max(0.0, next_at - time.monotonic()))
            try:
                move, bot = self.round()
            except (OSError, http.client.HTTPException, SystemExit) as exc:
                errors += 1
                print(f"  bystander: {type(exc).__name__}: {str(exc)[:200]}", file=sys.stderr)
                self.version = self._my_turn()
                continue
            moves.append(move)
            bots.append(bot)
        return {"moves": len(moves), "errors": errors, "move": _pcts(moves), "bot": _pcts(bots),
                "samples": (moves, bots)}


def pooled(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The phases' samples together, with their percentiles."""
    moves = [ms for run in runs for ms in run["samples"][0]]
    bots = [ms for run in runs for ms in run["samples"][1]]
    return {"moves": len(moves), "errors": sum(run["errors"] for run in runs),
            "move": _pcts(moves), "bot": _pcts(bots), "samples": (moves, bots)}


def _pcts(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    if not ordered:
        return float("nan"), float("nan")
    return (ordered[int(0.5 * (len(ordered) - 1))],
            ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))])


# --- the abusers (each a process of its own) ----------------------------------------------------

async def _get(conn: Connection, path: str, token: str | None = None) -> tuple[int, bytes]:
    headers = b"Authorization: Bearer %s\r\n" % token.encode() if token else b""
    async with asyncio.timeout(REQUEST_TIMEOUT):
        return await conn.request("GET", path, None, headers)


async def _retry_after(body: bytes) -> float:
    try:
        return float(json.loads(body).get("retry_after") or 1)
    except ValueError:
        return 1.0


async def abuse_streams(port: int, args: argparse.Namespace, until: float,
                        tally: dict[str, int]) -> None:
    """STREAMS tokenless SSE streams of one game, opened over STREAM_BURST_SECONDS; held."""
    request = (f"GET /v1/games/{args.game}/events/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n"
               "Accept: text/event-stream\r\n\r\n").encode()

    async def one(delay: float) -> None:
        await asyncio.sleep(delay)
        while time.monotonic() < until:
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
            except OSError:
                tally["connect_errors"] += 1
                await asyncio.sleep(1)
                continue
            try:
                writer.write(request)
                async with asyncio.timeout(max(0.1, until - time.monotonic())):
                    head = await reader.readuntil(b"\r\n\r\n")
                    if head.startswith(b"HTTP/1.1 200"):
                        tally["held"] += 1
                        while await reader.read(65536):
                            pass
                        return
                    tally["refused"] += 1
                    length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
                    wait = await _retry_after(await reader.readexactly(length))
            except (OSError, asyncio.IncompleteReadError, TimeoutError, IndexError,
                    ValueError) as exc:
                tally[type(exc).__name__] += 1
                return
            finally:
                writer.close()
            await asyncio.sleep(wait)

    await asyncio.gather(*(one(STREAM_BURST_SECONDS * i / STREAMS) for i in range(STREAMS)))


async def abuse_reads(port: int, args: argparse.Namespace, until: float,
                      tally: dict[str, int]) -> None:
    """READERS clients without a token: the big game's events (1,000 a page) and its audit."""
    paths = [f"/v1/games/{args.game}/events?limit=1000", f"/v1/games/{args.game}/audit"]

    async def reader(n: int) -> None:
        conn = Connection("127.0.0.1", port)
        i = n
        while time.monotonic() < until:
            i += 1
            try:
                status, body = await _get(conn, paths[i % 2])
            except (OSError, asyncio.IncompleteReadError, HttpError, TimeoutError):
                tally["errors"] += 1
                conn.close()
                await asyncio.sleep(0.1)
                continue
            if status == 200:
                tally["served"] += 1
                continue
            tally["refused"] += 1
            await asyncio.sleep(min(await _retry_after(body), max(0.0, until - time.monotonic())))
        conn.close()

    await asyncio.gather(*(reader(n) for n in range(READERS)))


async def abuse_webhooks(port: int, args: argparse.Namespace, until: float,
                         tally: dict[str, int]) -> None:
    """The webhook abuser's moves, as fast as the answers come."""
    conn = Connection("127.0.0.1", port)
    headers = b"Authorization: Bearer %s\r\n" % args.token.encode()
    path = f"/v1/games/{args.game}/commands"
    status, body = await _get(conn, f"/v1/games/{args.game}", args.token)
    version = json.loads(body)["version"]
    while time.monotonic() < until:
        async with asyncio.timeout(REQUEST_TIMEOUT):
            status, body = await conn.request("POST", path, json.dumps(
                {"type": "add", "amount": 1, "expected_version": version}).encode(), headers)
        tally["moves" if status == 200 else f"HTTP {status}"] += 1
        # Its bot replies meanwhile; then the game as it is now, for the next move.
        await asyncio.sleep(WEBHOOK_PACE)
        status, body = await _get(conn, f"/v1/games/{args.game}", args.token)
        version = json.loads(body)["version"]
    conn.close()


async def abuse_slow(port: int, args: argparse.Namespace, until: float,
                     tally: dict[str, int]) -> None:
    """SLOW_CONNECTIONS connections from another address, opened over STREAM_BURST_SECONDS:
    each sends a move's headers and then its body a byte every SLOW_BYTE_SECONDS; one refused
    (429) tries again after its Retry-After, one cut off (408, or closed) starts again."""
    head = (f"POST /v1/games/{args.game}/commands HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{").encode()

    async def one(delay: float) -> None:
        await asyncio.sleep(delay)
        while time.monotonic() < until:
            try:
                reader, writer = await asyncio.open_connection(
                    "127.0.0.1", port, local_addr=(SLOW_ADDRESS, 0))
            except OSError:
                tally["connect_errors"] += 1
                await asyncio.sleep(1)
                continue
            wait = 0.0
            try:
                writer.write(head)
                tally["opened"] += 1
                while time.monotonic() < until:
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(SLOW_BYTE_SECONDS):
                            answer = await reader.read(65536)
                            kind = ("refused" if answer.startswith(b"HTTP/1.1 429")
                                    else "cut" if answer else "closed")
                            tally[kind] += 1
                            if kind == "refused":
                                wait = await _retry_after(answer.partition(b"\r\n\r\n")[2])
                            break
                    writer.write(b" ")
            except OSError as exc:
                tally[type(exc).__name__] += 1
            finally:
                writer.close()
            await asyncio.sleep(min(wait, max(0.0, until - time.monotonic())))

    await asyncio.gather(*(one(STREAM_BURST_SECONDS * i / SLOW_CONNECTIONS)
                           for i in range(SLOW_CONNECTIONS)))


ABUSERS = {"streams": abuse_streams, "reads": abuse_reads, "webhooks": abuse_webhooks,
           "slow": abuse_slow}


def run_abuser(args: argparse.Namespace) -> None:
    """Run one abuser until stdin closes or --seconds pass; print its tally as JSON."""
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    tally: dict[str, int] = collections.defaultdict(int)
    until = time.monotonic() + args.seconds

    async def main() -> None:
        task = asyncio.create_task(ABUSERS[args.abuser](args.port, args, until, tally))
        print("started", flush=True)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(task, timeout=args.seconds + 5)

    asyncio.run(main())
    # Its own CPU, on the cores the server and the bystander share: a slowdown that is the
    # attacker's load on this one machine, not the server's, shows there.
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({**{k: v for k, v in tally.items() if v},
                      "cpu_s": round(usage.ru_utime + usage.ru_stime, 2)}), flush=True)


@contextlib.contextmanager
def abuser(name: str, port: int, seconds: float, **extra: str) -> Iterator[dict[str, Any]]:
    """An abuser process for ``seconds``; yields its tally (filled in when it ends)."""
    argv = [sys.executable, __file__, "--abuser", name, "--port", str(port),
            "--seconds", str(seconds)]
    for key, value in extra.items():
        argv += [f"--{key}", value]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, start_new_session=True)
    found: dict[str, Any] = {}
    try:
        assert process.stdout is not None
        if process.stdout.readline().strip() != "started":
            raise SystemExit(f"the {name} abuser did not start")
        yield found
        out, _ = process.communicate(timeout=seconds + 30)
        found.update(json.loads(out.strip().splitlines()[-1] or "{}"))
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


# --- the setups ---------------------------------------------------------------------------------

class SilentReceiver:
    """A loopback socket that accepts connections and never answers (nor reads)."""

    def __init__(self) -> None:
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(1024)
        self.port = self.listener.getsockname()[1]
        self.held: list[socket.socket] = []
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            self.held.append(conn)

    def close(self) -> None:
        self.listener.close()
        for conn in self.held:
            conn.close()


def finished_game(port: int, store: Any) -> str:
    """A finished tally game of 1,000+ events (two random bots play it out)."""
    client = new_player(port, "archivist")
    game_id = client.ok("POST", "/games", {
        "game": "tally", "options": {"target": READ_GAME_TARGET},
        "seats": [{"kind": "bot", "level": "random"}] * 2})["id"]
    version = 0
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        events = store.wait(game_id, version, 5000)
        if events:
            version = events[-1].version
            if events[-1].type == "seed_revealed":
                return game_id
    raise SystemExit("the bots did not finish the game to read within 120 s")


def webhook_game(port: int, receiver: SilentReceiver) -> tuple[str, str]:
    """A player with HOOKS webhooks on the silent receiver, and its own game against a bot."""
    client = new_player(port, "hooked")
    for n in range(HOOKS):
        client.ok("POST", "/me/webhooks",
                  {"url": f"http://127.0.0.1:{receiver.port}/hook{n}"})
    game_id = client.ok("POST", "/games", {
        "game": "tally", "options": {"target": 10_000_000},
        "seats": [{"kind": "human"}, {"kind": "bot", "level": "random"}]})["id"]
    client.ok("POST", f"/games/{game_id}/start")
    assert client.token is not None
    return client.token, game_id


def expert_games(port: int) -> dict[str, Any]:
    """EXPERT_GAMES Mag Blast games of EXPERT_SEATS expert bots, asked for at ASKED_THINK_MS;
    what the server refused on the way."""
    refusals: dict[str, int] = {}
    made = 0
    players = [new_player(port, f"expert{n}") for n in range(EXPERT_GAMES)]
    think = ASKED_THINK_MS
    for client in players:
        while made < EXPERT_GAMES:
            status, answer, _ = client.call("POST", "/games", {
                "game": "magblast",
                "seats": [{"kind": "bot", "level": "expert", "think_ms": think}] * EXPERT_SEATS})
            if status == 201:
                made += 1
                continue
            refusals[answer["code"]] = refusals.get(answer["code"], 0) + 1
            if answer["code"] == "think_time_too_long":
                think = answer["details"]["max_think_ms"]
                continue
            break  # this player may run no more: the next one tries
    return {"games": made, "think_ms": think, "refused": refusals}


# --- the run ------------------------------------------------------------------------------------

@contextlib.contextmanager
def server(data_dir: str) -> Iterator[tuple[int, Any]]:
    """Redis and `tablestream serve` (API, clock, search and webhook workers) on loopback."""
    from events import embedded_redis
    from events.redis_store import RedisEventStore, connect
    from tests.e2e.conftest import free_port, stop

    redis = embedded_redis.start(Path(data_dir) / "redis", "everysec")
    port = free_port()
    env = {**os.environ, "REDIS_URL": redis.url, "TABLESTREAM_DATA": data_dir,
           "UNLISTED_GAMES": "1", "WEBHOOK_ALLOW_HTTP": "1", "ACCESS_LOG": "0",
           "TABLESTREAM_QUEUE": f"abuse-{port}"}
    log = open(Path(data_dir) / "serve.log", "ab")
    process = subprocess.Popen([sys.executable, "-m", "service.clients.cli", "serve", "--port",
                                str(port), "--web-workers", WEB_WORKERS], env=env, cwd=ROOT,
                               stdout=subprocess.DEVNULL, stderr=log, start_new_session=True)
    try:
        _wait_ready(port, process)
        yield port, RedisEventStore(connect(redis.url))
    finally:
        stop(process)
        redis.stop()
        log.close()


def _wait_ready(port: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + READY_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"tablestream serve exited with status {process.returncode}")
        try:
            status, _, _ = Client(port).call("GET", "/readyz", prefix="")
            if status == 200:
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise SystemExit(f"tablestream serve was not ready within {READY_TIMEOUT:.0f} s")


def row(name: str, figures: dict[str, Any], quiet: dict[str, Any] | None, note: str) -> str:
    move, bot = figures["move"], figures["bot"]
    text = (f"{name:9} {move[0]:8.1f} {move[1]:8.1f} {bot[0]:8.1f} {bot[1]:8.1f} "
            f"{figures['moves']:6d} {figures['errors']:4d}")
    if quiet is not None:
        worst = worst_ratio(figures, quiet)
        text += f" {worst:6.2f}x {'ok' if worst <= 2 else 'OVER'}"
    else:
        text += f" {'':7} {'':4}"
    return f"{text}  {note}"


def worst_ratio(figures: dict[str, Any], quiet: dict[str, Any]) -> float:
    """The largest of the four ratios to quiet: move and bot reply, p50 and p99."""
    move, bot = figures["move"], figures["bot"]
    return max(move[0] / quiet["move"][0], move[1] / quiet["move"][1],
               bot[0] / quiet["bot"][0], bot[1] / quiet["bot"][1])


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="bench-abuse-") as data_dir, \
            server(data_dir) as (port, store):
        print(f"Bystander's move under abuse (tablestream serve, {WEB_WORKERS} API processes, "
              f"production limits; {PHASE_SECONDS:.0f} s a phase, {ROUNDS} rounds an abuse, "
              "their samples pooled; ms)")
        bystander = Bystander(port, store)
        bystander.measure(2)  # warm up: imports, caches, connections
        read_game = finished_game(port, store) if "reads" in ABUSES else ""
        receiver = SilentReceiver()
        print(f"{'phase':9} {'move p50':>8} {'p99':>8} {'bot p50':>8} {'p99':>8} {'moves':>6} "
              f"{'errs':>4} {'worst':>7}")
        try:
            for name in ABUSES:
                # The expert games, once made, play on: one long round.
                rounds, seconds = ((1, PHASE_SECONDS * ROUNDS) if name == "experts"
                                   else (ROUNDS, PHASE_SECONDS))
                quiets, abused, ratios, note = [], [], [], ""
                for _ in range(rounds):
                    # Quiet right before each abuse: the ratio is not a drift of a shared
                    # machine.
                    settle(port)
                    quiets.append(bystander.measure(seconds))
                    figures, note = phase(name, port, bystander, read_game, receiver, seconds)
                    abused.append(figures)
                    ratios.append(worst_ratio(figures, quiets[-1]))
                quiet = pooled(quiets)
                print(row("  quiet", quiet, None, f"nothing else running ({rounds} x "
                          f"{seconds:.0f} s)"), flush=True)
                alone = ", ".join(f"{ratio:.2f}x" for ratio in ratios)
                print(row(name, pooled(abused), quiet, f"rounds alone: {alone}; {note}"),
                      flush=True)
        finally:
            receiver.close()
        print("worst: the largest of the four ratios to the quiet phases (the rounds' samples "
              "pooled; each round alone after 'rounds alone'); goal <= 2x (issue 23 item 8)")


def settle(port: int, seconds: float = 30.0) -> None:
    """Wait until the server answers a health check quickly again (an abuser's last
    connections may still be in its queues), for at most ``seconds``."""
    client = Client(port)
    deadline = time.monotonic() + seconds
    quick = 0
    while quick < 5 and time.monotonic() < deadline:
        started = time.perf_counter()
        client.call("GET", "/healthz", prefix="")
        quick = quick + 1 if time.perf_counter() - started < 0.02 else 0
        time.sleep(0.1)


def phase(name: str, port: int, bystander: Bystander, read_game: str,
          receiver: SilentReceiver, seconds: float) -> tuple[dict[str, Any], str]:
    """Measure the bystander while abuse ``name`` runs; its figures and what the abuser saw."""
    if name == "experts":
        made = expert_games(port)
        time.sleep(1)  # the searches under way
        figures = bystander.measure(seconds)
        return figures, (f"{made['games']} games of {EXPERT_SEATS} experts at "
                         f"{made['think_ms']} ms (asked {ASKED_THINK_MS}); refused: "
                         f"{made['refused']}")
    extra = {}
    if name in ("streams", "slow"):
        extra = {"game": bystander.game_id}
    elif name == "reads":
        extra = {"game": read_game}
    elif name == "webhooks":
        token, game_id = webhook_game(port, receiver)
        extra = {"game": game_id, "token": token}
    with abuser(name, port, seconds + 1, **extra) as tally:
        time.sleep(0.5)
        figures = bystander.measure(seconds)
    if name == "webhooks":
        tally["receiver_connections"] = len(receiver.held)
    return figures, f"abuser: {tally}"


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--abuser", choices=sorted(ABUSERS))
    parser.add_argument("--port", type=int)
    parser.add_argument("--seconds", type=float, default=PHASE_SECONDS)
    parser.add_argument("--game")
    parser.add_argument("--token")
    options = parser.parse_args()
    if options.abuser:
        run_abuser(options)
    else:
        main()
