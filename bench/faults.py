"""The fault suite (issue 9; `make faults`, not part of `make test`): pull plugs under load.

Starts the real `tablestream serve` (embedded Redis, gunicorn with gevent, an RQ worker) on a
loopback port with a fresh data dir, plays many games against bots from client threads (each
recording every command the server acknowledged), and meanwhile kills with SIGKILL, in turn, the
Redis server, a gunicorn worker, the gunicorn master and the RQ worker; then (issue 23) fills the
data disk for --hold seconds (the data dir is a tmpfs of its own, mounted when the machine lets
root do it; else that fault is skipped, and says why) and freezes Redis (SIGSTOP, then SIGCONT
after --freeze seconds). While the disk is full or Redis frozen no process may die and reads must
answer (on a full disk; a frozen Redis makes them 503 after the socket timeout). After each fault
it waits for recovery: the API answers, and every client has a command acknowledged again (which,
against bots, needs the bots to have played too), with no manual restart.
At the end it reads the store directly and checks that every acknowledged command is there exactly
once (its events at the versions the server answered, no others), and that every game's hash
chain verifies and its recorded commands re-run to the same events (events/audit.py).

    python bench/faults.py [--games 12] [--rounds 2] [--settle 3] [--hold 6] [--freeze 20]

Exit status 1 when anything acknowledged is lost or duplicated, a chain fails, or a fault is not
recovered from within --recover-timeout seconds.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
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
KILLS = ["redis", "api worker", "api master", "rq worker"]  # SIGKILLed
HELD = ["full disk", "frozen redis"]  # held for --hold seconds, then released (issue 23)
DISK_SIZE = "256m"  # the data dir's own tmpfs: the full-disk fault fills it


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
        self.log = log
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
                [sys.executable, "-m", "service.clients.cli", "serve", "--port", str(port),
                 "--web-workers", "2", "--job-workers", "1"],
                env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)

    def children(self) -> dict[int, str]:
        return {pid: cmd for pid, (ppid, cmd) in processes().items()
                if ppid == self.process.pid}

    def family(self) -> set[int]:
        """serve's children and theirs (gunicorn's workers)."""
        everyone = processes()
        kids = {pid for pid, (ppid, _) in everyone.items() if ppid == self.process.pid}
        return kids | {pid for pid, (ppid, _) in everyone.items() if ppid in kids}

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
    """Kill the fault's process with SIGKILL; seconds until the service works again, or None."""
    pid = serve.target(fault)
    if pid is None:
        print(f"  {fault}: no such process to kill", flush=True)
        return None
    killed, killed_wall = time.monotonic(), time.time()
    os.kill(pid, signal.SIGKILL)
    return recovery(serve, f"{fault:12} pid {pid:>7}", tally, clients, killed, killed_wall,
                    timeout)


def recovery(serve: Serve, label: str, tally: Tally, clients: int, since: float,
             since_wall: float, timeout: float) -> float | None:
    """Seconds from ``since`` (monotonic; ``since_wall`` the same moment in epoch seconds)
    until the service works again, or None if not within ``timeout``.

    Works again means: the API answers, a command sent after the fault is acknowledged, and a
    bot has moved since (so the job worker, the queue and the store work). Also shown: when
    every client has had a command acknowledged since the fault (against bots, that needs the
    bots to have played in every client's game), which on a loaded machine is mostly the time
    one round of play takes."""
    until = since + timeout
    api = wait(lambda: answers(serve.base), until)
    store = wait(lambda: store_answers(serve), until)

    def acked_after_fault() -> bool:
        with tally.lock:
            return any(sent > since for sent, _ in tally.sent_acked)

    def every_client_acked() -> bool:
        with tally.lock:
            return sum(t > since for t in tally.last_ack.values()) >= clients

    acked = wait(acked_after_fault, until)
    bots = wait(lambda: bot_moved_since(serve, tally, since_wall), until)
    everyone = wait(every_client_acked, until)
    if None in (api, store, acked, bots, everyone):
        print(f"  {label}  NOT recovered within {timeout:.0f}s (api "
              f"{api is not None}, new command acked {acked is not None}, bot moved "
              f"{bots is not None}, every client acked {everyone is not None})", flush=True)
        return None
    seconds = max(api, acked, bots) - since
    print(f"  {label}  recovered in {seconds:5.2f}s (API {api - since:.2f}s, "
          f"Redis {store - since:.2f}s, "
          f"a new command acked {acked - since:.2f}s, a bot move {bots - since:.2f}s; every "
          f"client acked again {everyone - since:.2f}s)", flush=True)
    return seconds


@dataclass
class Held:
    """What a held fault (a full disk, a frozen Redis) looked like from outside meanwhile."""

    reads: int = 0
    reads_answered: int = 0  # any HTTP answer
    reads_ok: int = 0  # 200
    writes: int = 0
    writes_answered: int = 0
    writes_503: int = 0
    retry_after: int = 0  # 503s that carried Retry-After
    died: int = 0  # serve's processes gone when it ended
    recovered: float | None = None

    def ok(self, fault: str) -> bool:
        """Every request answered, no process died, recovered; on a full disk reads work."""
        return (self.reads_answered == self.reads and self.writes_answered == self.writes
                and self.retry_after == self.writes_503 and self.died == 0
                and self.recovered is not None
                and (fault != "full disk" or self.reads_ok == self.reads))


def fill(directory: Path) -> Path:
    """Fill the disk under ``directory`` to the last byte; the file that did it."""
    filler = directory / "filler"
    with open(filler, "ab", buffering=0) as handle:
        for size in (1 << 20, 1 << 14, 512):
            chunk = b"\0" * size
            while True:
                try:
                    handle.write(chunk)
                except OSError as exc:
                    if exc.errno != errno.ENOSPC:
                        raise
                    break
    return filler


def probe(http: requests.Session, method: str, url: str, **kwargs: Any
          ) -> requests.Response | None:
    try:
        return http.request(method, url, timeout=TIMEOUT, **kwargs)
    except requests.RequestException:
        return None


def hold(serve: Serve, fault: str, seconds: float, tally: Tally, clients: int,
         timeout: float) -> Held:
    """Fill the data disk or freeze Redis (SIGSTOP) for ``seconds`` while probing reads and
    writes, then free it (SIGCONT) and wait for recovery, with no restart by hand."""
    seen = Held()
    family = serve.family()
    redis_pid = serve.target("redis")
    if redis_pid is None:
        print(f"  {fault}: no Redis to act on", flush=True)
        return seen
    filler = fill(serve.data) if fault == "full disk" else None
    if filler is None:
        os.kill(redis_pid, signal.SIGSTOP)
    http = requests.Session()
    until = time.monotonic() + seconds
    try:
        while time.monotonic() < until:
            read = probe(http, "GET", f"{serve.base}/games?limit=5")
            seen.reads += 1
            seen.reads_answered += read is not None
            seen.reads_ok += read is not None and read.status_code == 200
            write = probe(http, "POST", f"{serve.base}/players", json={"name": "probe"})
            seen.writes += 1
            seen.writes_answered += write is not None
            if write is not None and write.status_code == 503:
                seen.writes_503 += 1
                seen.retry_after += "Retry-After" in write.headers
            time.sleep(0.25)
    finally:
        if filler is not None:
            filler.unlink()
        else:
            os.kill(redis_pid, signal.SIGCONT)
    freed, freed_wall = time.monotonic(), time.time()
    print(f"  {fault:12} held {seconds:.0f}s: reads answered {seen.reads_answered}/"
          f"{seen.reads} ({seen.reads_ok} with 200), writes answered {seen.writes_answered}/"
          f"{seen.writes} ({seen.writes_503} with 503, {seen.retry_after} of them with "
          "Retry-After)", flush=True)
    seen.recovered = recovery(serve, f"{fault:12} released ", tally, clients, freed,
                              freed_wall, timeout)
    seen.died = len(family - serve.family())
    return seen


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
    parser.add_argument("--hold", type=float, default=6.0,
                        help="seconds the disk stays full")
    parser.add_argument("--freeze", type=float, default=20.0,
                        help="seconds Redis stays frozen (past the 15 s socket timeout RQ gives "
                             "its worker's connection, so the worker's own calls time out)")
    options = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="tablestream-faults-"))
    port = free_port()
    with data_disk(root / "data") as (data, no_disk):
        serve = Serve(data, port, root / "serve.log")
        try:
            return run(serve, options, data, port, no_disk)
        finally:
            if serve.process.poll() is None:
                serve.stop()


@contextlib.contextmanager
def data_disk(data: Path) -> Iterator[tuple[Path, str | None]]:
    """The data dir, a tmpfs of its own (so the full-disk fault fills only it) when the machine
    lets root mount one; else a plain dir, and why the full-disk fault cannot run."""
    data.mkdir()
    why = None
    if sys.platform != "linux" or os.geteuid() != 0 or shutil.which("mount") is None:
        why = "mounting a tmpfs needs root on Linux"
    else:
        mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={DISK_SIZE}", "tmpfs",
                                  str(data)], capture_output=True, text=True)
        if mounted.returncode != 0:
            why = f"cannot mount a tmpfs here: {mounted.stderr.strip()}"
    try:
        yield data, why
    finally:
        if why is None:
            subprocess.run(["umount", "-l", str(data)], capture_output=True)


def run(serve: Serve, options: argparse.Namespace, data: Path, port: int,
        no_disk: str | None) -> int:
    held_faults = [f for f in HELD if f != "full disk" or no_disk is None]
    started = time.monotonic()
    if wait(lambda: answers(serve.base), time.monotonic() + 90) is None:
        print(f"serve did not come up; see {serve.log}")
        serve.stop()
        return 1
    print(f"Fault suite: tablestream serve on 127.0.0.1:{port} (data in {data}"
          f"{', a tmpfs of ' + DISK_SIZE if no_disk is None else ''}), "
          f"{options.games} clients playing loot and mask men against bots", flush=True)
    if no_disk is not None:
        print(f"  the full-disk fault is skipped: {no_disk}", flush=True)
    tally = Tally()
    stop = threading.Event()
    clients = [threading.Thread(target=play, args=(serve.base, n, tally, stop), daemon=True)
               for n in range(options.games)]
    for thread in clients:
        thread.start()
    time.sleep(options.settle)
    recoveries: dict[str, list[float | None]] = {fault: [] for fault in KILLS + held_faults}
    held: dict[str, list[Held]] = {fault: [] for fault in held_faults}
    for _ in range(options.rounds):
        for fault in KILLS:
            recoveries[fault].append(inject(serve, fault, tally, len(clients),
                                            options.recover_timeout))
            time.sleep(options.settle)
        for fault in held_faults:
            seconds = options.hold if fault == "full disk" else options.freeze
            seen = hold(serve, fault, seconds, tally, len(clients), options.recover_timeout)
            held[fault].append(seen)
            recoveries[fault].append(seen.recovered)
            time.sleep(options.settle)
    stop.set()
    for thread in clients:
        thread.join(RETRY_FOR + TIMEOUT)
    alive = serve.process.poll() is None
    figures = check_store(serve.redis_url(), tally)
    status = serve.stop()
    log = serve.log.read_text(errors="replace")
    restarts = sum("restarted (pid" in line for line in log.splitlines())
    elapsed = time.monotonic() - started
    every = [s for values in recoveries.values() for s in values]
    recovered = [s for s in every if s is not None]
    print()
    print(f"faults injected:            {len(every)} "
          f"({', '.join(f'{f} x{len(v)}' for f, v in recoveries.items())}) in {elapsed:.0f}s")
    print(f"acknowledged commands:      {len(tally.acks)} (clients; plus every bot and clock "
          f"move in the logs: {figures['events']} events in {figures['games']} games)")
    print(f"lost:                       {figures['lost']}")
    print(f"duplicated:                 {figures['duplicated']}")
    print(f"chains verified:            {figures['chains_ok']}/{figures['games']} "
          "(hash chain, seed, every command re-run)")
    for fault, values in recoveries.items():
        shown = ", ".join("not recovered" if s is None else f"{s:.1f}" for s in values)
        print(f"seconds to recover, {fault + ':':13} {shown}")
    if recovered:
        print(f"seconds to recover, worst:    {max(recovered):.1f}")
    for fault, seen in held.items():
        reads = sum(h.reads_answered for h in seen), sum(h.reads for h in seen)
        writes = sum(h.writes_answered for h in seen), sum(h.writes for h in seen)
        seconds = options.hold if fault == "full disk" else options.freeze
        print(f"{fault} ({seconds:.0f}s each): requests answered {reads[0]}/{reads[1]} "
              f"reads ({sum(h.reads_ok for h in seen)} with 200), {writes[0]}/{writes[1]} "
              f"writes ({sum(h.writes_503 for h in seen)} with 503 + Retry-After "
              f"{sum(h.retry_after for h in seen)}); processes died "
              f"{sum(h.died for h in seen)}; recovered without a manual restart "
              f"{sum(h.recovered is not None for h in seen)}/{len(seen)}")
    print(f"serve: {'still serving' if alive else 'DIED'} through the faults, {restarts} child "
          f"restarts logged, exit status {status} on SIGTERM; refused (409/422) "
          f"{tally.refused}, unanswered after {RETRY_FOR:.0f}s of retries {tally.unanswered}")
    ok = (alive and figures["lost"] == 0 and figures["duplicated"] == 0
          and figures["chains_ok"] == figures["games"] and len(recovered) == len(every)
          and all(h.ok(fault) for fault, seen in held.items() for h in seen))
    print("OK" if ok else "FAILED")
    return 0 if ok else 1

if __name__ == "__main__":
    sys.exit(main())
