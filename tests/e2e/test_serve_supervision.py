"""`tablestream serve` keeps serving when one of its processes is killed (issue 9, item 5):
the real gunicorn, job worker and embedded Redis, each killed with SIGKILL; and when its data
disk fills up (issue 23 items 1 and 2): a small tmpfs (tests/small_disk.py), filled."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
import requests

from events import embedded_redis
from events.redis_store import RedisEventStore, aof_write_error, connect
from tests import unlimited
from tests.e2e.conftest import free_port, stop
from tests.small_disk import small_disk
from tests.workers.conftest import wait_for

pytestmark = pytest.mark.e2e


def children(pid: int) -> dict[int, str]:
    """The live child processes of ``pid``: pid -> command line."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            found[int(entry.name)] = cmdline
    return found


class Serve:
    """A real `tablestream serve` with its own embedded Redis in a temporary data dir."""

    def __init__(self, tmp_path: Path, data: Path | None = None):
        self.port = free_port()
        self.log = tmp_path / "serve.log"
        self.data = data or tmp_path
        env = {**os.environ, **unlimited.ENV, "TABLESTREAM_DATA": str(self.data),
               "TABLESTREAM_SWEEP_SECONDS": "1", "TABLESTREAM_STALE_STARTED_SECONDS": "2"}
        env.pop("REDIS_URL", None)
        env.pop("QUEUE_REDIS_URL", None)
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "service.clients.cli", "serve", "--port", str(self.port),
                 "--web-workers", "1", "--job-workers", "1"],
                env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        self.base = f"http://127.0.0.1:{self.port}/v1"
        wait_for(self.answers, timeout=90, interval=0.1, message="the server to come up")

    def family(self) -> set[int]:
        """serve's children and grandchildren (gunicorn's workers)."""
        kids = set(children(self.process.pid))
        return kids | {pid for kid in kids for pid in children(kid)}

    def answers(self) -> bool:
        try:
            return requests.get(f"{self.base}/games/catalog", timeout=5).status_code == 200
        except requests.RequestException:
            return False

    def child(self, marker: str) -> int:
        """The pid of serve's child whose command line holds ``marker``."""
        return wait_for(lambda: next((pid for pid, cmd in children(self.process.pid).items()
                                      if marker in cmd), None), message=f"a child {marker}")

    def kill(self, marker: str) -> int:
        pid = self.child(marker)
        os.kill(pid, signal.SIGKILL)
        return pid

    def player(self) -> dict[str, str]:
        response = requests.post(f"{self.base}/players", json={"name": "ops"}, timeout=10)
        assert response.status_code == 201, response.text
        return {"Authorization": f"Bearer {response.json()['token']}"}

    def bot_game(self, headers: dict[str, str]) -> str:
        response = requests.post(f"{self.base}/games", headers=headers, timeout=10, json={
            "game": "tally", "options": {"target": 10_000_000},
            "seats": [{"kind": "bot", "level": "random"}] * 2})
        assert response.status_code == 201, response.text
        return response.json()["id"]

    def version(self, game_id: str) -> int | None:
        try:
            response = requests.get(f"{self.base}/games/{game_id}", timeout=5)
        except requests.RequestException:
            return None
        return response.json()["version"] if response.status_code == 200 else None

    def redis(self) -> redis.Redis:
        port = json.loads((self.data / "redis.json").read_text())["port"]
        return redis.Redis(port=port, decode_responses=True, socket_timeout=5)


@pytest.fixture
def serve(tmp_path) -> Iterator[Serve]:
    server = Serve(tmp_path)
    yield server
    if server.process.poll() is None:
        stop(server.process)


def _advances(serve: Serve, game_id: str) -> None:
    """Wait until the bots of ``game_id`` have played on from now."""
    start = wait_for(lambda: serve.version(game_id), timeout=30, message="the game readable")
    wait_for(lambda: (serve.version(game_id) or 0) > start + 5, timeout=30,
             message="the bots to play on")


def test_a_killed_job_worker_is_restarted_and_the_bots_play_on(serve):
    game_id = serve.bot_game(serve.player())
    _advances(serve, game_id)
    killed = serve.kill("--role clocks")
    # SIGKILL lands asynchronously: the killed pid may still be listed for a moment.
    wait_for(lambda: serve.child("--role clocks") != killed, message="a new job worker")
    _advances(serve, game_id)
    assert serve.process.poll() is None
    assert "job worker 1 was killed by SIGKILL" in serve.log.read_text()


def test_a_killed_api_master_is_restarted_and_the_api_answers_again(serve):
    headers = serve.player()
    killed = serve.kill("gunicorn")
    wait_for(lambda: serve.child("gunicorn") != killed, message="a new gunicorn master")
    wait_for(serve.answers, timeout=30, interval=0.1, message="the API to answer again")
    assert serve.bot_game(headers)  # writes work, and the old token is still known
    assert serve.process.poll() is None
    assert "api (gunicorn) was killed by SIGKILL" in serve.log.read_text()


def test_a_killed_redis_is_restarted_on_the_same_data_and_port(serve):
    headers = serve.player()
    game_id = serve.bot_game(headers)
    _advances(serve, game_id)
    redis_pid = serve.child("redis-server")
    port = children(serve.process.pid)[redis_pid].split("127.0.0.1:")[1].split()[0]
    os.kill(redis_pid, signal.SIGKILL)
    wait_for(lambda: serve.child("redis-server") != redis_pid, message="a new Redis")
    assert f"127.0.0.1:{port}" in children(serve.process.pid)[serve.child("redis-server")]
    # What was stored before the kill is still there, and the game goes on.
    _advances(serve, game_id)
    assert serve.bot_game(headers)
    assert serve.process.poll() is None
    assert "embedded redis was killed by SIGKILL" in serve.log.read_text()


def test_ctrl_c_still_stops_everything_with_status_0(serve):
    pids = list(children(serve.process.pid))
    os.kill(serve.process.pid, signal.SIGINT)
    assert serve.process.wait(timeout=60) == 0
    for pid in pids:
        wait_for(lambda p=pid: not Path(f"/proc/{p}").exists() or
                 Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z",
                 timeout=20, message=f"child {pid} to stop")


RECOVERY = 20.0  # s: Redis retries its append-only file every second; the worker backs off 2 s


@pytest.fixture
def full_disk_serve(tmp_path) -> Iterator[tuple[Serve, object]]:
    """serve with its data dir on an 8 MiB tmpfs; its Redis killed at the end whatever state
    the test left it in (it may have been left running on purpose)."""
    with small_disk(tmp_path / "disk", "8m") as disk:
        server = Serve(tmp_path, disk.path / "data")
        redis_pid = server.child("redis-server")
        try:
            yield server, disk
        finally:
            disk.free()
            if server.process.poll() is None:
                stop(server.process)
            with contextlib.suppress(ProcessLookupError):
                os.kill(redis_pid, signal.SIGKILL)


def _new_player(serve: Serve) -> requests.Response:
    return requests.post(f"{serve.base}/players", json={"name": "x"}, timeout=10)


def _assert_same_family(serve: Serve, family: set[int]) -> None:
    """No process of ``serve``'s died or was replaced; if one was, which, and serve's log."""
    now = serve.family()
    new = {pid: command for pid, command in children(serve.process.pid).items() if pid in now}
    assert now == family, (f"a process died or was restarted: gone {sorted(family - now)}, "
                           f"new {[new.get(pid, pid) for pid in sorted(now - family)]}\n"
                           + serve.log.read_text()[-4000:])


def test_a_full_data_disk_refuses_writes_keeps_reads_and_every_process_then_recovers(
        full_disk_serve):
    serve, disk = full_disk_serve
    game_id = serve.bot_game(serve.player())
    _advances(serve, game_id)
    family = serve.family()
    disk.fill()
    wait_for(lambda: _new_player(serve).status_code == 503, timeout=RECOVERY,
             message="a write refused by the full disk")
    refused = _new_player(serve)
    assert refused.status_code == 503 and refused.json()["code"] == "store_unavailable"
    assert int(refused.headers["Retry-After"]) >= 1
    # The bots' moves are refused too (their worker backs off): reads, the lobby and the
    # metrics keep answering, and no process dies (it used to: SIGBUS, the worker's MISCONF).
    until = time.monotonic() + 12
    while time.monotonic() < until:
        for path in (f"/games/{game_id}", f"/games/{game_id}/events?limit=5", "/games",
                     "/games/catalog"):
            assert requests.get(serve.base + path, timeout=10).status_code == 200, path
        assert requests.get(f"http://127.0.0.1:{serve.port}/metrics",
                            timeout=10).status_code == 200
        assert _new_player(serve).status_code == 503
        time.sleep(0.5)
    _assert_same_family(serve, family)
    disk.free()
    wait_for(lambda: _new_player(serve).status_code == 201, timeout=RECOVERY,
             message="writes accepted again")
    _advances(serve, game_id)  # the job worker plays on, by itself
    _assert_same_family(serve, family)
    assert "restarted (pid" not in serve.log.read_text()


def test_serve_stopped_while_its_disk_is_full_leaves_redis_running_and_loses_no_move(
        full_disk_serve):
    serve, disk = full_disk_serve
    headers = serve.player()
    response = requests.post(f"{serve.base}/games", headers=headers, timeout=10, json={
        "game": "tally", "options": {"target": 10_000_000}, "seats": [{"kind": "human"}]})
    assert response.status_code == 201, response.text
    game_id = response.json()["id"]
    assert requests.post(f"{serve.base}/games/{game_id}/start", headers=headers,
                         timeout=10).status_code == 200
    version = serve.version(game_id)
    disk.fill()
    for _ in range(5000):
        answer = requests.post(f"{serve.base}/games/{game_id}/commands", headers=headers,
                               timeout=10, json={"type": "add", "amount": 1,
                                                 "expected_version": version})
        if answer.status_code != 200:
            break
        version = answer.json()["version"]
    assert answer.status_code == 503, answer.text
    client = serve.redis()
    assert aof_write_error(client), "the disk never filled up"
    # The last moves acknowledged are only in Redis's memory: a kill of Redis loses them.
    redis_pid = serve.child("redis-server")
    os.kill(serve.process.pid, signal.SIGTERM)
    assert serve.process.wait(timeout=60) == 1
    assert Path(f"/proc/{redis_pid}").exists()
    assert aof_write_error(client)  # alive, and still holding them
    assert "left running" in serve.log.read_text()
    disk.free()
    wait_for(lambda: aof_write_error(client) is None, timeout=RECOVERY,
             message="Redis to write its append-only file")
    client.shutdown()  # clean now: it has written them
    with embedded_redis.start(serve.data) as restarted:
        events = RedisEventStore(connect(restarted.url)).read(game_id)
    assert events[-1].version == version  # every acknowledged move, nothing more
