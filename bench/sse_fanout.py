"""SSE fan-out (issue 13, done-item 3): delivery to 1,000 subscribers of one game, one API process.

Starts `tablestream serve` with one API process (gunicorn + gevent; BENCH_SSE_WEB_WORKERS for
more) on an embedded Redis of its own (or $REDIS_URL), opens BENCH_SSE_SUBSCRIBERS live streams
of one game from separate client processes (asyncio, raw sockets, 127.0.0.1 only), makes
BENCH_SSE_MOVES moves, and prints:

- delivery latency p50/p99/max, from each move's commit (the event's ``at``, stamped by the
  server just before its append, same clock) to the bytes carrying it reaching the subscriber's
  socket (the kernel's receive timestamp, SO_TIMESTAMPNS: on a 2-core machine the load
  generator's 500 streams a process would otherwise add their own CPU lag), and also to the
  client process having read them;
- the API's CPU per delivery (moves included) and the subscribers' processes' CPU;
- errors: streams refused or ended early, events missed or duplicated, moves refused;
- how many connections (streams) each API process serves;
- the Redis connections of the API process (CLIENT LIST, matched to its sockets) idle, with
  every subscriber connected, and after the moves; and the machine's load (``uptime``).

Target: p99 <= 250 ms and no error. Bounded: every wait has a deadline (BENCH_SSE_DEADLINE).
Set BENCH_SSE_VIEWS=1 to have every tenth subscriber sign in as the seat and ask ?views=true.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import multiprocessing
import os
import re
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import requests

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from events import embedded_redis
from tests import unlimited
from tests.e2e.conftest import free_port, stop

SUBSCRIBERS = int(os.environ.get("BENCH_SSE_SUBSCRIBERS", "1000"))
MOVES = int(os.environ.get("BENCH_SSE_MOVES", "50"))
GAP = float(os.environ.get("BENCH_SSE_GAP", "0.1"))  # s between moves
CLIENT_PROCESSES = int(os.environ.get("BENCH_SSE_CLIENTS", "2"))
DEADLINE = float(os.environ.get("BENCH_SSE_DEADLINE", "120"))  # s for each phase
VIEWS = os.environ.get("BENCH_SSE_VIEWS", "0") == "1"
WEB_WORKERS = int(os.environ.get("BENCH_SSE_WEB_WORKERS", "1"))  # API processes

EVENT = re.compile(rb"id: (\d+)\nevent: [^\n]*\ndata: ([^\n]*)\n\n")


def start_server(redis_url: str, data: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = {**os.environ, "REDIS_URL": redis_url, "TABLESTREAM_DATA": str(data),
           "TABLESTREAM_WORKERS": "0", "ACCESS_LOG": "0", **unlimited.ENV}
    process = subprocess.Popen([sys.executable, "-m", "service.clients.cli", "serve",
                                "--port", str(port),
                                "--web-workers", str(WEB_WORKERS), "--job-workers", "0"], env=env,
                               stdout=subprocess.DEVNULL, start_new_session=True)
    base = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        with contextlib.suppress(requests.RequestException):
            if requests.get(f"{base}/games/catalog", timeout=5).status_code == 200:
                return process, base
        time.sleep(0.2)
    stop(process)
    raise SystemExit("the server did not start")


# --- the subscribers (client processes) ---------------------------------------------------------

# Linux: SO_TIMESTAMPNS makes recvmsg say when the kernel received the bytes it returns (a
# struct timespec), so a delivery is timed to its arrival at the subscriber's socket, not to when
# a busy client process got round to reading it (its 500 streams share one core with the server).
SO_TIMESTAMPNS = SCM_TIMESTAMPNS = 35
TIMESPEC = struct.Struct("qq")
ANCILLARY = socket.CMSG_SPACE(TIMESPEC.size)


class _Stream:
    """One stream on a non-blocking socket (a reader callback, not a coroutine: 1,000 of them
    cost the client little CPU): records how long after its commit each version reached the
    socket (kernel timestamp) and was read by this process, and what went wrong."""

    def __init__(self, sock: socket.socket, errors: dict[str, int], connected: list[int]):
        self.sock, self.errors, self.connected = sock, errors, connected
        self.got: dict[int, float] = {}  # version: ms from commit to arrival at the socket
        self.read: dict[int, float] = {}  # version: ms from commit to this process reading it
        self.buffer = b""
        self.head = False
        self.done = False

    def _error(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1
        self.close()

    def readable(self) -> None:
        try:
            data, ancillary, _, _ = self.sock.recvmsg(65536, ANCILLARY)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data, ancillary = b"", []
        if not data:
            if not self.done:
                self._error("ended")
            return
        now = arrived = time.time() * 1000
        for level, kind, stamp in ancillary:
            if level == socket.SOL_SOCKET and kind == SCM_TIMESTAMPNS:
                seconds, nanoseconds = TIMESPEC.unpack(stamp[:TIMESPEC.size])
                # The newest segment's arrival: never earlier than any event it completes.
                arrived = seconds * 1000 + nanoseconds / 1e6
        self.buffer += data
        if not self.head:
            if b"\r\n\r\n" not in self.buffer:
                return
            head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
            if b" 200 " not in head.split(b"\r\n", 1)[0]:
                self._error("status")
                return
            self.head = True
            self.connected[0] += 1
        end = 0
        for match in EVENT.finditer(self.buffer):
            version, end = int(match[1]), match.end()
            if version in self.got:
                self.errors["duplicate"] = self.errors.get("duplicate", 0) + 1
            at = json.loads(match[2])["at"]
            self.got[version], self.read[version] = arrived - at, now - at
        self.buffer = self.buffer[end:]

    def close(self) -> None:
        self.done = True
        if self.sock.fileno() != -1:
            asyncio.get_running_loop().remove_reader(self.sock.fileno())
            self.sock.close()


def subscribers(port: int, game_id: str, count: int, token: str, first: int, last: Any,
                ready: Any, results: Any) -> None:
    """A client process: ``count`` streams; reports (connected), then latencies (arrival and
    read), errors and its own CPU time while following."""

    async def run() -> None:
        loop = asyncio.get_running_loop()
        path = f"/v1/games/{game_id}/events/stream?last_event_id={first}"
        errors: dict[str, int] = {}
        connected = [0]
        streams: list[_Stream] = []
        for n in range(count):
            views = VIEWS and n % 10 == 0
            auth = f"Authorization: Bearer {token}\r\n" if views else ""
            request = (f"GET {path}{'&views=true' if views else ''} HTTP/1.1\r\n"
                       f"Host: 127.0.0.1\r\nAccept: text/event-stream\r\n{auth}\r\n").encode()
            sock = socket.socket()
            sock.setblocking(False)
            sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
            stream = _Stream(sock, errors, connected)
            try:
                await loop.sock_connect(sock, ("127.0.0.1", port))
                await loop.sock_sendall(sock, request)
            except OSError:
                stream._error("connect")
            else:
                loop.add_reader(sock.fileno(), stream.readable)
            streams.append(stream)
            if n % 50 == 49:
                await asyncio.sleep(0.05)  # no SYN flood: a browser crowd arrives over time
        deadline = time.monotonic() + DEADLINE
        while connected[0] + sum(errors.values()) < count and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        ready.put(connected[0])
        cpu = time.process_time()
        while time.monotonic() < deadline and not (last.value and all(
                last.value in s.got for s in streams if not s.done)):
            await asyncio.sleep(0.05)
        cpu = time.process_time() - cpu
        for stream in streams:
            stream.close()
        arrivals, reads, missed = [], [], 0
        for stream in streams:
            if last.value:
                missed += sum(1 for v in range(first + 1, last.value + 1) if v not in stream.got)
            arrivals += [ms for v, ms in stream.got.items() if v > first]
            reads += [ms for v, ms in stream.read.items() if v > first]
        errors["missed"] = missed
        results.put((arrivals, reads, errors, cpu))

    asyncio.run(run())


# --- the API process's Redis connections --------------------------------------------------------

def _session_pids(leader: int) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError):
                stat = (entry / "stat").read_text()
                if int(stat.rsplit(")", 1)[1].split()[3]) == leader:  # process group
                    pids.append(int(entry.name))
    return pids


def _socket_inodes(pids: list[int]) -> dict[str, int]:
    """The inode of each socket ``pids`` hold, and which of them holds it."""
    inodes = {}
    for pid in pids:
        with contextlib.suppress(OSError):
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                with contextlib.suppress(OSError):
                    target = os.readlink(fd)
                    if target.startswith("socket:["):
                        inodes[target[8:-1]] = pid
    return inodes


def _local_ports(pids: list[int]) -> set[int]:
    inodes = _socket_inodes(pids)
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                fields = line.split()
                if fields[9] in inodes:
                    ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


def streams_per_process(server: subprocess.Popen, port: int) -> list[int]:
    """How many open connections to ``port`` each process of the serve group holds (the API
    processes serving streams), most first."""
    inodes = _socket_inodes(_session_pids(server.pid))
    counts: dict[int, int] = {}
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                fields = line.split()
                established = fields[3] == "01"
                if established and int(fields[1].rsplit(":", 1)[1], 16) == port \
                        and fields[9] in inodes:
                    counts[inodes[fields[9]]] = counts.get(inodes[fields[9]], 0) + 1
    return sorted(counts.values(), reverse=True)


def cpu_seconds(server: subprocess.Popen) -> float:
    """CPU time (user + system) used so far by the serve process group."""
    ticks = 0
    for pid in _session_pids(server.pid):
        with contextlib.suppress(OSError, IndexError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def api_connections(client: Any, server: subprocess.Popen) -> str:
    """Redis connections of the serve process group (API, supervisor): all of them, those whose
    last command was a blocking XREAD, and every client of the server."""
    ports = _local_ports(_session_pids(server.pid))
    clients = client.client_list()
    ours = [c for c in clients if int(c["addr"].rsplit(":", 1)[1]) in ports]
    xread = sum(1 for c in ours if c.get("cmd") == "xread")
    return f"{len(ours)} ({xread} in XREAD; {len(clients)} clients in all)"


# --- the run ------------------------------------------------------------------------------------

def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def main() -> None:
    import redis

    with tempfile.TemporaryDirectory() as tmp:
        url = os.environ.get("REDIS_URL")
        embedded = None if url else embedded_redis.start(Path(tmp) / "redis")
        url = url or embedded.url
        server, base = start_server(url, Path(tmp) / "data")
        try:
            run(redis.Redis.from_url(url, decode_responses=True), server, base)
        finally:
            stop(server)
            if embedded is not None:
                embedded.stop()


def run(client: Any, server: subprocess.Popen, base: str) -> None:
    session = requests.Session()
    token = session.post(f"{base}/players", json={"name": "bench"}).json()["token"]
    session.headers["Authorization"] = f"Bearer {token}"
    game_id = session.post(f"{base}/games", json={
        "game": "tally", "seats": [{"kind": "human"}],
        "options": {"target": 10_000_000}}).json()["id"]
    version = session.post(f"{base}/games/{game_id}/start").json()["version"]
    idle = api_connections(client, server)

    context = multiprocessing.get_context("spawn")
    last, ready, results = context.Value("i", 0), context.Queue(), context.Queue()
    port = int(base.rsplit(":", 1)[1].split("/")[0])
    shares = [SUBSCRIBERS // CLIENT_PROCESSES + (n < SUBSCRIBERS % CLIENT_PROCESSES)
              for n in range(CLIENT_PROCESSES)]
    clients = [context.Process(target=subscribers, daemon=True,
                               args=(port, game_id, share, token, version, last, ready, results))
               for share in shares]
    started = time.monotonic()
    for process in clients:
        process.start()
    connected = sum(ready.get(timeout=DEADLINE) for _ in clients)
    connect_s = time.monotonic() - started
    time.sleep(1.0)  # every stream past its catch-up and into the live feed
    full = api_connections(client, server)
    spread = streams_per_process(server, port)

    refused = 0
    cpu_before, moves_started = cpu_seconds(server), time.monotonic()
    for _ in range(MOVES):
        answer = session.post(f"{base}/games/{game_id}/commands", timeout=30,
                              json={"type": "add", "amount": 1, "expected_version": version})
        if answer.status_code != 200:
            refused += 1
            continue
        version = answer.json()["version"]
        time.sleep(GAP)
    last.value = version
    moving = time.monotonic() - moves_started
    time.sleep(1.0)  # the last deliveries
    cpu = cpu_seconds(server) - cpu_before
    latencies: list[float] = []
    reads: list[float] = []
    errors: dict[str, int] = {"refused_moves": refused}
    client_cpu = 0.0
    for _ in clients:
        got, read, errs, cpu_used = results.get(timeout=DEADLINE + 30)
        latencies += got
        reads += read
        client_cpu += cpu_used
        for kind, n in errs.items():
            errors[kind] = errors.get(kind, 0) + n
    after = api_connections(client, server)
    for process in clients:
        process.join(timeout=10)

    load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    processes = "one API process" if WEB_WORKERS == 1 else f"{WEB_WORKERS} API processes"
    print(f"SSE fan-out: {connected}/{SUBSCRIBERS} subscribers of one game on {processes} "
          f"(connected in {connect_s:.1f} s), {MOVES} moves {GAP:g} s apart"
          f"{', every 10th with ?views=true' if VIEWS else ''}")
    print(f"  delivery latency, commit -> arrival at the subscriber's socket ({len(latencies)} "
          f"deliveries): p50 {_median(latencies):.1f} ms, p99 {pct(latencies, 0.99):.1f} ms, "
          f"max {max(latencies, default=float('nan')):.1f} ms  (target p99 <= 250 ms)")
    print(f"  the same, read by the subscribers' processes (their own CPU lag included): "
          f"p50 {_median(reads):.1f} ms, p99 {pct(reads, 0.99):.1f} ms")
    print(f"  API CPU while moving: {cpu:.2f} s over {moving + 1:.1f} s, "
          f"{cpu / max(MOVES, 1) * 1000:.1f} ms a move, "
          f"{cpu / max(len(latencies), 1) * 1e6:.0f} us a delivery; the subscribers' "
          f"processes {client_cpu:.2f} s ({client_cpu / max(len(reads), 1) * 1e6:.0f} us a "
          "delivery)")
    print(f"  connections per API process (the streams and the one making moves): {spread}")
    print(f"  errors: {sum(errors.values())} {errors}")
    print(f"  Redis connections of the API process: before the streams {idle}; with {connected} "
          f"streams open {full}; after the moves {after}")
    print(f"  load: {load}")


if __name__ == "__main__":
    main()
