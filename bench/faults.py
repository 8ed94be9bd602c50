"""The fault suite (issue 9; `make faults`, not part of `make test`): pull plugs under load.

Starts the real `tablestream serve` (embedded Redis, gunicorn with gevent, an RQ worker) on a
loopback port with a fresh data dir, plays many games against bots from client threads (each
recording every command the server acknowledged), and meanwhile kills with SIGKILL, in turn, the
Redis server, a gunicorn worker, the gunicorn master and the RQ worker. After each kill it waits
for recovery: the API answers, and every client has a command acknowledged again (which, against
bots, needs the bots to have played too).
At the end it reads the store directly and checks that every acknowledged command is there exactly
once (its events at the versions the server answered, no others), and that every game's hash
chain verifies and its recorded commands re-run to the same events (events/audit.py).

    python bench/faults.py [--games 12] [--rounds 2] [--settle 3]

Exit status 1 when anything acknowledged is lost or duplicated, a chain fails, or a fault is not
recovered from within --recover-timeout seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis
import requests
from redis.backoff import NoBackoff
from redis.retry import Retry

from events.audit import transcript, verify
from events.projector import client_command_id
from events.redis_store import RedisEventStore, connect

TIMEOUT = 5.0  # per HTTP request
RETRY_FOR = 60.0  # a command is retried (same command_id) this long through an outage


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def processes() -> dict[int, tuple[int, str]]:
    """Every live process: pid -> (parent pid, command line)."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if fields[0] != "Z":
            found[int(entry.name)] = (int(fields[1]), cmdline)
    return found


@dataclass
class Ack:
    game_id: str
    command_id: str  # as stored: the client's id scoped to its player
    versions: list[int]


@dataclass
class Tally:
    acks: list[Ack] = field(default_factory=list)
    games: set[str] = field(default_factory=set)
    unanswered: int = 0  # gave up on after RETRY_FOR: not acknowledged, so not counted
    refused: int = 0  # 409/422: the game moved on meanwhile (bots), nothing acknowledged
    last_ack: dict[int, float] = field(default_factory=dict)  # per client
    sent_acked: list[tuple[float, float]] = field(default_factory=list)  # (sent, answered)
    lock: threading.Lock = field(default_factory=threading.Lock)


class Serve:
    """`tablestream serve` and its children, found through /proc."""

    def __init__(self, data: Path, port: int, log: Path):
        # No rate limits: a dozen clients on one address create players and games fast.
        env = {**os.environ, "TABLESTREAM_DATA": str(data), "RATE_LIMIT_PER_SECOND": "0",
               "RATE_LIMIT_PLAYERS_PER_MINUTE": "0", "RATE_LIMIT_GAMES_PER_MINUTE": "0",
               "PYTHONUNBUFFERED": "1"}
        for name in ("REDIS_URL", "QUEUE_REDIS_URL", "PROMETHEUS_MULTIPROC_DIR"):
            env.pop(name, None)
        self.data = data
        self.base = f"http://127.0.0.1:{port}/v1"
        with open(log, "wb") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "service.cli", "serve", "--port", str(port),
                 "--web-workers", "2", "--job-workers", "1"],
                env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)

    def children(self) -> dict[int, str]:
        return {pid: cmd for pid, (ppid, cmd) in processes().items()
                if ppid == self.process.pid}

    def target(self, fault: str) -> int | None:
        """The pid to kill for ``fault``."""
        kids = self.children()
        master = next((pid for pid, cmd in kids.items() if "gunicorn" in cmd), None)
        if fault == "redis":
            return next((pid for pid, cmd in kids.items() if "redis-server" in cmd), None)
        if fault == "rq worker":
            return next((pid for pid, cmd in kids.items() if "-m workers" in cmd), None)
        if fault == "api master":
            return master
        if fault == "api worker" and master is not None:
            workers = [pid for pid, (ppid, _) in processes().items() if ppid == master]
            return random.choice(workers) if workers else None
        return None

    def stop(self) -> int | None:
        try:
            os.killpg(self.process.pid, signal.SIGTERM)
            return self.process.wait(timeout=60)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            return None
        finally:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def redis_url(self) -> str:
        port = json.loads((self.data / "redis.json").read_text())["port"]
        return f"redis://127.0.0.1:{port}/0"


class Client:
    """An HTTP client that retries through outages (connection errors and 5xx)."""

    def __init__(self, base: str, stop: threading.Event):
        self.base = base
        self.stop = stop
        self.http = requests.Session()

    def call(self, method: str, path: str, until: float | None = None,
             **kwargs: Any) -> requests.Response | None:
        until = until or time.monotonic() + RETRY_FOR
        while time.monotonic() < until:
            try:
                response = self.http.request(method, self.base + path, timeout=TIMEOUT, **kwargs)
                if response.status_code < 500:
                    return response
            except requests.RequestException:
                pass
            time.sleep(0.1)
        return None


def new_game(client: Client, headers: dict[str, str], index: int) -> str | None:
    game = ("loot", "maskmen")[index % 2]
    body = {"game": game, "seats": [{"kind": "human"}, {"kind": "bot", "level": "basic"},
                                    {"kind": "bot", "level": "random"}]}
    response = client.call("POST", "/games", headers=headers, json=body)
    if response is None or response.status_code != 201:
        return None
    game_id = response.json()["id"]
    response = client.call("POST", f"/games/{game_id}/start", headers=headers)
    return game_id if response is not None and response.status_code == 200 else None


def play(base: str, index: int, tally: Tally, stop: threading.Event) -> None:
    """One client: plays the human seat of a game with bots, a new game when one ends."""
    client = Client(base, stop)
    response = client.call("POST", "/players", json={"name": f"client{index}"})
    if response is None or response.status_code != 201:
        return
    headers = {"Authorization": f"Bearer {response.json()['token']}"}
    player_id = response.json()["id"]
    game_id = None
    while not stop.is_set():
        if game_id is None:
            game_id = new_game(client, headers, index)
            if game_id is None:
                continue
            with tally.lock:
                tally.games.add(game_id)
        response = client.call("GET", f"/games/{game_id}", headers=headers,
                               until=time.monotonic() + 10)
        if response is None or response.status_code != 200:
            continue
        view = response.json()
        if view["status"] == "finished":
            game_id = None
            continue
        if "0" not in view["pending"] or not view["legal_commands"]:
            # Not our turn: the bots play. A gentle poll, so that clients are not the load.
            time.sleep(0.2)
            continue
        command_id = uuid.uuid4().hex
        command = {**view["legal_commands"][0], "expected_version": view["version"],
                   "command_id": command_id}
        # The same command_id through every retry: the server answers a repeat with the first
        # answer, so a command counts once however many times the network made us send it.
        sent = time.monotonic()
        answer = client.call("POST", f"/games/{game_id}/commands", headers=headers,
                             json=command)
        with tally.lock:
            if answer is None:
                tally.unanswered += 1
            elif answer.status_code == 200:
                tally.acks.append(Ack(game_id, client_command_id(player_id, command_id),
                                      [e["version"] for e in answer.json()["events"]]))
                tally.last_ack[index] = time.monotonic()
                tally.sent_acked.append((sent, tally.last_ack[index]))
            else:
                tally.refused += 1


def answers(base: str) -> bool:
    try:
        return requests.get(f"{base}/games/catalog", timeout=2).status_code == 200
    except requests.RequestException:
        return False


def wait(predicate: Callable[[], Any], until: float) -> float | None:
    """Poll until ``predicate`` holds; the monotonic time it first held, or None."""
    while time.monotonic() < until:
        if predicate():
            return time.monotonic()
        time.sleep(0.05)
    return None


def bot_moved_since(serve: Serve, tally: Tally, moment: float) -> bool:
    """A bot's move (a command from seat 1 or 2) stored after ``moment`` (epoch seconds)."""
    try:
        store = RedisEventStore(connect(serve.redis_url()))
        with tally.lock:
            games = list(tally.games)
        for game_id in games:
            last = store.last_version(game_id)
            for event in store.read(game_id, max(1, last - 3), last):
                if event.seat in ("1", "2") and event.command is not None \
                        and event.at / 1000 > moment:
                    return True
    except Exception:  # the store is down: not yet
        return False
    return False


def store_answers(serve: Serve) -> bool:
    try:
        client = redis.Redis.from_url(serve.redis_url(), socket_timeout=1,
                                      socket_connect_timeout=1, retry=Retry(NoBackoff(), 0))
        try:
            return bool(client.ping())
        finally:
            client.close()
    except (redis.RedisError, OSError, ValueError):
        return False


def inject(serve: Serve, fault: str, tally: Tally, clients: int,
           timeout: float) -> float | None:
    """Kill the fault's process with SIGKILL; seconds until the service works again, or None.

    Works again means: the API answers, a command sent after the kill is acknowledged, and a
    bot has moved since (so the job worker, the queue and the store work). Also shown: when
    every client has had a command acknowledged since the kill (against bots, that needs the
    bots to have played in every client's game), which on a loaded machine is mostly the time
    one round of play takes."""
    pid = serve.target(fault)
    if pid is None:
        print(f"  {fault}: no such process to kill", flush=True)
        return None
    killed, killed_wall = time.monotonic(), time.time()
    os.kill(pid, signal.SIGKILL)
    until = killed + timeout
    api = wait(lambda: answers(serve.base), until)
    store = wait(lambda: store_answers(serve), until)

    def acked_after_kill() -> bool:
        with tally.lock:
            return any(sent > killed for sent, _ in tally.sent_acked)

    def every_client_acked() -> bool:
        with tally.lock:
            return sum(t > killed for t in tally.last_ack.values()) >= clients

    acked = wait(acked_after_kill, until)
    bots = wait(lambda: bot_moved_since(serve, tally, killed_wall), until)
    everyone = wait(every_client_acked, until)
    if None in (api, store, acked, bots, everyone):
        print(f"  {fault:10} pid {pid:>7}  NOT recovered within {timeout:.0f}s (api "
              f"{api is not None}, new command acked {acked is not None}, bot moved "
              f"{bots is not None}, every client acked {everyone is not None})", flush=True)
        return None
    seconds = max(api, acked, bots) - killed
    print(f"  {fault:10} pid {pid:>7}  recovered in {seconds:5.2f}s (API {api - killed:.2f}s, "
          f"Redis {store - killed:.2f}s, "
          f"a new command acked {acked - killed:.2f}s, a bot move {bots - killed:.2f}s; every "
          f"client acked again {everyone - killed:.2f}s)", flush=True)
    return seconds


def check_store(url: str, tally: Tally) -> dict[str, int]:
    """Every acknowledged command exactly once; every game's chain and re-run verified."""
    store = RedisEventStore(connect(url))
    figures = {"lost": 0, "duplicated": 0, "games": 0, "chains_ok": 0, "events": 0}
    logs = {}
    for game_id in sorted(tally.games):
        logs[game_id] = store.read(game_id)
        figures["games"] += 1
        figures["events"] += len(logs[game_id])
        finding = verify(transcript(game_id, logs[game_id], store.secret(game_id)))
        if finding.ok:
            figures["chains_ok"] += 1
        else:
            print(f"  chain/audit of {game_id} FAILED: {finding}")
    for ack in tally.acks:
        stored = [e.version for e in logs[ack.game_id] if e.cmd == ack.command_id]
        if not stored or not set(ack.versions) <= set(stored):
            figures["lost"] += 1
            print(f"  LOST: {ack.command_id} in {ack.game_id} (acked at {ack.versions}, "
                  f"stored at {stored})")
        elif len(stored) != len(ack.versions):
            figures["duplicated"] += 1
            print(f"  DUPLICATED: {ack.command_id} in {ack.game_id} (acked at {ack.versions}, "
                  f"stored at {stored})")
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=12, help="client threads, one game each")
    parser.add_argument("--rounds", type=int, default=2, help="times each fault is injected")
    parser.add_argument("--settle", type=float, default=3.0,
                        help="seconds of plain load between faults")
    parser.add_argument("--recover-timeout", type=float, default=45.0)
    options = parser.parse_args()
    data = Path(tempfile.mkdtemp(prefix="tablestream-faults-"))
    port = free_port()
    serve = Serve(data, port, data / "serve.log")
    try:
        return run(serve, options, data, port)
    finally:
        if serve.process.poll() is None:
            serve.stop()


def run(serve: Serve, options: argparse.Namespace, data: Path, port: int) -> int:
    faults = ["redis", "api worker", "api master", "rq worker"]
    started = time.monotonic()
    if wait(lambda: answers(serve.base), time.monotonic() + 90) is None:
        print(f"serve did not come up; see {data / 'serve.log'}")
        serve.stop()
        return 1
    print(f"Fault suite: tablestream serve on 127.0.0.1:{port} (data in {data}), "
          f"{options.games} clients playing loot and mask men against bots", flush=True)
    tally = Tally()
    stop = threading.Event()
    clients = [threading.Thread(target=play, args=(serve.base, n, tally, stop), daemon=True)
               for n in range(options.games)]
    for thread in clients:
        thread.start()
    time.sleep(options.settle)
    recoveries: dict[str, list[float | None]] = {fault: [] for fault in faults}
    for _ in range(options.rounds):
        for fault in faults:
            recoveries[fault].append(inject(serve, fault, tally, len(clients),
                                            options.recover_timeout))
            time.sleep(options.settle)
    stop.set()
    for thread in clients:
        thread.join(RETRY_FOR + TIMEOUT)
    alive = serve.process.poll() is None
    figures = check_store(serve.redis_url(), tally)
    status = serve.stop()
    log = (data / "serve.log").read_text(errors="replace")
    restarts = sum("restarted (pid" in line for line in log.splitlines())
    elapsed = time.monotonic() - started
    every = [s for values in recoveries.values() for s in values]
    recovered = [s for s in every if s is not None]
    print()
    print(f"faults injected (SIGKILL):  {len(every)} "
          f"({', '.join(f'{f} x{len(v)}' for f, v in recoveries.items())}) in {elapsed:.0f}s")
    print(f"acknowledged commands:      {len(tally.acks)} (clients; plus every bot and clock "
          f"move in the logs: {figures['events']} events in {figures['games']} games)")
    print(f"lost:                       {figures['lost']}")
    print(f"duplicated:                 {figures['duplicated']}")
    print(f"chains verified:            {figures['chains_ok']}/{figures['games']} "
          "(hash chain, seed, every command re-run)")
    for fault, values in recoveries.items():
        shown = ", ".join("not recovered" if s is None else f"{s:.1f}" for s in values)
        print(f"seconds to recover, {fault + ':':11} {shown}")
    if recovered:
        print(f"seconds to recover, worst:  {max(recovered):.1f}")
    print(f"serve: {'still serving' if alive else 'DIED'} through the faults, {restarts} child "
          f"restarts logged, exit status {status} on SIGTERM; refused (409/422) "
          f"{tally.refused}, unanswered after {RETRY_FOR:.0f}s of retries {tally.unanswered}")
    ok = (alive and figures["lost"] == 0 and figures["duplicated"] == 0
          and figures["chains_ok"] == figures["games"] and len(recovered) == len(every))
    print("OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
