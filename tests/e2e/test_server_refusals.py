"""What gunicorn refuses before the app sees a request is problem+json too (issue 9, item 8)."""

from __future__ import annotations

import json
import socket
from urllib.parse import urlparse

import pytest
import requests

pytestmark = pytest.mark.e2e


def _raw(base: str, request: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send ``request`` as is; the status, headers and body of the answer."""
    url = urlparse(base)
    with socket.create_connection((url.hostname, url.port), timeout=10) as sock:
        sock.sendall(request)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), {k.lower(): v for k, v in headers.items()}, body


def _assert_problem(answer, status: int, code: str) -> None:
    got, headers, body = answer
    assert got == status, body[:200]
    assert headers["content-type"] == "application/problem+json"
    problem = json.loads(body)
    assert (problem["status"], problem["code"]) == (status, code)
    assert problem["title"] and problem["detail"] and problem["type"].endswith(code)


def test_servers_own_refusals_are_problem_json(server):
    path = urlparse(server).path
    long_line = f"GET {path}/games/{'x' * 5000} HTTP/1.1\r\nHost: t\r\n\r\n".encode()
    _assert_problem(_raw(server, long_line), 414, "uri_too_long")
    long_header = f"GET {path}/games HTTP/1.1\r\nHost: t\r\nX-Big: {'y' * 9000}\r\n\r\n".encode()
    _assert_problem(_raw(server, long_header), 431, "header_fields_too_large")
    many = "".join(f"X-H{i}: v\r\n" for i in range(150))
    _assert_problem(_raw(server, f"GET {path}/games HTTP/1.1\r\nHost: t\r\n{many}\r\n".encode()),
                    431, "header_fields_too_large")
    _assert_problem(_raw(server, b"NOT A REQUEST\r\n\r\n"), 400, "invalid_request")


def test_a_chunked_body_over_the_limit_is_refused_by_the_live_server(server):
    """gunicorn passes a chunked body on without a length: the app still stops at the limit."""
    path = urlparse(server).path
    body = b'{"name": "' + b"x" * 70_000 + b'"}'
    chunks = b"".join(b"%x\r\n%s\r\n" % (len(part), part)
                      for part in (body[i:i + 8192] for i in range(0, len(body), 8192)))
    request = (f"POST {path}/players HTTP/1.1\r\nHost: t\r\nConnection: close\r\n"
               "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n").encode()
    _assert_problem(_raw(server, request + chunks + b"0\r\n\r\n"), 413, "payload_too_large")


def _open_stream(base: str, game_id: str, token: str = "") -> socket.socket:
    """A live stream of ``game_id`` opened on a socket of its own and left open (its head
    read: 200)."""
    url = urlparse(base)
    query = f"?access_token={token}" if token else ""
    sock = socket.create_connection((url.hostname, url.port), timeout=10)
    sock.sendall(f"GET {url.path}/games/{game_id}/events/stream{query} HTTP/1.1\r\nHost: t\r\n"
                 "Accept: text/event-stream\r\n\r\n".encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(4096)
    assert head.startswith(b"HTTP/1.1 200"), head[:200]
    return sock


def _early_refusals(base: str) -> float:
    metrics = requests.get(base.removesuffix("/v1") + "/metrics", timeout=10).text
    return sum(float(line.split()[-1]) for line in metrics.splitlines()
               if line.startswith("tablestream_early_refusals_total"))


def test_a_flood_of_tokenless_streams_is_refused_before_it_is_parsed(redis_url, tmp_path):
    """Past its cap an address's streams without a token get the app's 429, whole, from the
    web worker itself, that looked at the connection's first bytes only (issue 23 items 4
    and 8); the player's own stream from the same address is served."""
    from tests.e2e.conftest import serving

    with serving(redis_url, tmp_path, "--web-workers", "1",
                 settings={"STREAMS_PER_ADDRESS": "2"}) as base:
        player = requests.post(f"{base}/players", json={"name": "ann"}, timeout=10).json()
        headers = {"Authorization": f"Bearer {player['token']}"}
        game_id = requests.post(f"{base}/games", headers=headers, timeout=10, json={
            "game": "tally", "seats": [{"kind": "human"}]}).json()["id"]
        held = [_open_stream(base, game_id) for _ in range(2)]
        try:
            path = urlparse(base).path
            flood = (f"GET {path}/games/{game_id}/events/stream HTTP/1.1\r\nHost: t\r\n"
                     "Accept: text/event-stream\r\nConnection: close\r\n\r\n").encode()
            for _ in range(20):
                got, answer_headers, body = _raw(base, flood)
                _assert_problem((got, answer_headers, body), 429, "too_many_streams")
                assert int(answer_headers["retry-after"]) >= 1
            # The first refusal is the app's, which the worker then repeats for a moment.
            assert _early_refusals(base) >= 10
            held.append(_open_stream(base, game_id, player["token"]))
        finally:
            for sock in held:
                sock.close()
