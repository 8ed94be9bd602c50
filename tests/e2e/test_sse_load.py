"""With 100 SSE clients connected, moves are still accepted (issue 2, item 1)."""

from __future__ import annotations

import socket
from urllib.parse import urlparse

import pytest
import requests

pytestmark = pytest.mark.e2e


def _open_stream(base: str, game_id: str) -> socket.socket:
    url = urlparse(f"{base}/games/{game_id}/events/stream")
    sock = socket.create_connection((url.hostname, url.port), timeout=10)
    sock.sendall(f"GET {url.path} HTTP/1.1\r\nHost: {url.hostname}\r\n"
                 "Accept: text/event-stream\r\n\r\n".encode())
    head = sock.recv(4096)
    assert b"200 OK" in head.split(b"\r\n", 1)[0]
    return sock


def _read_until(sock: socket.socket, wanted: bytes, timeout: float) -> None:
    sock.settimeout(timeout)
    received = b""
    while wanted not in received:
        chunk = sock.recv(65536)
        assert chunk, "stream closed early"
        received += chunk


def test_moves_are_accepted_while_100_sse_streams_are_open(server):
    player = requests.post(f"{server}/players", json={"name": "ann"}).json()
    headers = {"Authorization": f"Bearer {player['token']}"}
    game = requests.post(f"{server}/games", headers=headers,
                         json={"game": "tally", "seats": [{"kind": "human"}],
                               "options": {"target": 10_000}}).json()
    game_id = game["id"]
    requests.post(f"{server}/games/{game_id}/start", headers=headers).raise_for_status()
    streams = [_open_stream(server, game_id) for _ in range(100)]
    try:
        version = requests.get(f"{server}/games/{game_id}").json()["version"]
        for _ in range(20):
            response = requests.post(f"{server}/games/{game_id}/commands", headers=headers,
                                     json={"type": "add", "amount": 1,
                                           "expected_version": version}, timeout=5)
            assert response.status_code == 200, response.text
            version = response.json()["version"]
        # Every stream is live: each one received the last move.
        for sock in streams[:: 10]:
            sock.settimeout(5)
            received = b""
            while f"id: {version}".encode() not in received:
                chunk = sock.recv(65536)
                assert chunk, "stream closed early"
                received += chunk
    finally:
        for sock in streams:
            sock.close()


def _gauge(base: str, name: str) -> float:
    """A gauge's value on /metrics (added up over the API processes)."""
    text = requests.get(base.removesuffix("/v1") + "/metrics", timeout=10).text
    return sum(float(line.split()[-1]) for line in text.splitlines()
               if line.startswith(f"{name} ") or line.startswith(f"{name}{{"))


def test_200_idle_streams_of_a_game_share_one_redis_read_and_a_move_succeeds(redis_url,
                                                                            tmp_path):
    # issue 9 item 1: one gevent process parked every stream in XREAD BLOCK; redis-py 8's pool
    # stopped at 100 connections, so the 101st stream or the next move failed with 500.
    # issue 13: the streams of one game in one process now share one blocking read.
    from tests.e2e.conftest import serving

    with serving(redis_url, tmp_path, "--web-workers", "1") as server:
        player = requests.post(f"{server}/players", json={"name": "ann"}).json()
        headers = {"Authorization": f"Bearer {player['token']}"}
        game_id = requests.post(f"{server}/games", headers=headers,
                                json={"game": "tally", "seats": [{"kind": "human"}],
                                      "options": {"target": 10_000}}).json()["id"]
        requests.post(f"{server}/games/{game_id}/start", headers=headers).raise_for_status()
        streams = []
        try:
            for _ in range(200):
                streams.append(_open_stream(server, game_id))
            # The production heartbeat (15 s, past redis-py's old 5 s default socket timeout):
            # an idle stream gets its keep-alive, then the live move below.
            _read_until(streams[-1], b": keep-alive\n\n", timeout=40)
            assert _gauge(server, "tablestream_sse_connections") == 200
            assert _gauge(server, "tablestream_sse_feeds") == 1
            version = requests.get(f"{server}/games/{game_id}").json()["version"]
            response = requests.post(f"{server}/games/{game_id}/commands", headers=headers,
                                     json={"type": "add", "amount": 1,
                                           "expected_version": version}, timeout=30)
            assert response.status_code == 200, response.text
            version = response.json()["version"]
            for sock in streams[::20] + streams[-1:]:
                _read_until(sock, f"id: {version}".encode(), timeout=30)
        finally:
            for sock in streams:
                sock.close()
