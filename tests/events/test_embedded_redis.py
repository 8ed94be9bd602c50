"""The embedded Redis server: start, reuse across callers and processes, persistence, stop."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import redis

from events import embedded_redis
from events.embedded_redis import PORT_FILE, start


@pytest.fixture
def server(tmp_path: Path):
    """An embedded server of this test's own, in a temporary data dir."""
    with start(tmp_path / "data") as started:
        yield started


def _client(url: str) -> redis.Redis:
    return redis.Redis.from_url(url, decode_responses=True, socket_timeout=5)


def test_started_server_answers_on_localhost(server):
    assert server.owned and server.alive()
    assert server.url.startswith("redis://127.0.0.1:")
    assert _client(server.url).ping()


def test_server_uses_append_only_persistence_with_everysec_by_default(server):
    config = _client(server.url).config_get("*")
    assert config["appendonly"] == "yes"
    assert config["appendfsync"] == "everysec"
    assert config["bind"] == "127.0.0.1"


def test_appendfsync_always_can_be_chosen(tmp_path):
    with start(tmp_path, "always") as server:
        assert _client(server.url).config_get("appendfsync")["appendfsync"] == "always"


def test_appendfsync_comes_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("REDIS_APPENDFSYNC", "always")
    with start(tmp_path) as server:
        assert _client(server.url).config_get("appendfsync")["appendfsync"] == "always"


def test_unknown_appendfsync_is_refused(tmp_path):
    with pytest.raises(ValueError):
        start(tmp_path, "sometimes")


def test_second_start_on_the_same_dir_reuses_the_live_server(server):
    again = start(server.data_dir)
    assert again.url == server.url and not again.owned
    again.stop()  # not ours: must leave the server running for its starter
    assert server.alive()


def test_another_process_reuses_the_live_server(server):
    code = "from events.embedded_redis import start; s = start(%r); print(s.url, s.owned)"
    out = subprocess.run([sys.executable, "-c", code % str(server.data_dir)], check=True,
                         capture_output=True, text=True, timeout=60, cwd=_repo()).stdout
    assert out.split() == [server.url, "False"]
    assert server.alive()


def test_a_write_reaches_the_append_only_file(server):
    _client(server.url).set("persisted-key", "v")
    aof = server.data_dir / "appendonly.aof"
    assert aof.exists() and b"persisted-key" in aof.read_bytes()


def test_data_survives_a_clean_restart(tmp_path):
    with start(tmp_path) as first:
        _client(first.url).xadd("{g:x}:log", {"type": "a"}, id="1-0")
    with start(tmp_path) as second:
        assert second.owned
        assert _client(second.url).xrange("{g:x}:log") == [("1-0", {"type": "a"})]


def test_a_server_killed_with_sigkill_restarts_on_its_port_with_every_acknowledged_write(
        tmp_path):
    # What `serve` does when its Redis dies: same data dir, same append-only file, same port,
    # so every client holding the URL reconnects to the same data.
    first = start(tmp_path)
    _client(first.url).xadd("{g:x}:log", {"type": "a"}, id="1-0")
    first.process.kill()
    first.process.wait()
    with start(tmp_path, port=first.port) as second:
        assert second.owned and second.port == first.port
        assert _client(second.url).xrange("{g:x}:log") == [("1-0", {"type": "a"})]


def test_a_restart_whose_port_was_taken_meanwhile_gets_another(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        with start(tmp_path, port=taken.getsockname()[1]) as server:
            assert server.alive() and server.port != taken.getsockname()[1]


def test_stop_shuts_the_server_down_and_removes_the_port_file(tmp_path):
    server = start(tmp_path)
    process = server.process
    assert (tmp_path / PORT_FILE).exists()
    server.stop()
    assert process is not None and process.returncode == 0
    assert not server.alive()
    assert not (tmp_path / PORT_FILE).exists()
    server.stop()  # idempotent


def test_a_dead_servers_port_file_is_ignored(tmp_path):
    (tmp_path / PORT_FILE).write_text('{"port": 1, "pid": 1}')
    with start(tmp_path) as server:
        assert server.owned and server.alive()


def test_redis_url_prefers_the_environment(monkeypatch):
    monkeypatch.setenv("REDIS_URL", "redis://example:6380/2")
    assert embedded_redis.redis_url() == "redis://example:6380/2"


def test_redis_url_starts_the_embedded_server_in_the_data_dir(tmp_path, monkeypatch):
    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.setenv("TABLESTREAM_DATA", str(tmp_path))
    monkeypatch.setattr(embedded_redis, "_shared", None)
    url = embedded_redis.redis_url()
    try:
        assert _client(url).config_get("dir")["dir"] == os.path.realpath(tmp_path)
        assert embedded_redis.redis_url() == url
    finally:
        embedded_redis._shared.stop()


@pytest.mark.e2e
def test_module_entry_runs_in_the_foreground_until_sigterm(tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "events.embedded_redis", "--data-dir",
                             str(tmp_path)], stdout=subprocess.PIPE, text=True, cwd=_repo())
    try:
        line = proc.stdout.readline()
        url = line.split()[3]
        assert "started" in line and _client(url).ping()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
        with pytest.raises(redis.ConnectionError):
            _client(url).ping()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _repo() -> str:
    return str(Path(__file__).resolve().parents[2])
