"""What gunicorn refuses before the app sees a request is problem+json too (issue 9, item 8)."""

from __future__ import annotations

import contextlib
import json
import socket
import time
from contextlib import closing
from urllib.parse import urlparse

import pytest
import requests

pytestmark = pytest.mark.e2e


def _raw(base: str, request: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send ``request`` as is; the status, headers and body of the answer."""
    url = urlparse(base)
    with socket.create_connection((url.hostname, url.port), timeout=10) as sock:
        sock.sendall(request)
        return _answer(sock)


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


def _late_move(base: str, source: str) -> socket.socket:
    """A connection from ``source`` that sent a POST's headers and one byte of its 100-byte
    body, and no more: it holds its place until its body's time is up."""
    url = urlparse(base)
    sock = socket.create_connection((url.hostname, url.port), timeout=10,
                                    source_address=(source, 0))
    sock.sendall(f"POST {url.path}/players HTTP/1.1\r\nHost: t\r\nContent-Type: "
                 "application/json\r\nContent-Length: 100\r\n\r\n{".encode())
    return sock


def _answer(sock: socket.socket) -> tuple[int, dict[str, str], bytes]:
    """What the server sends on ``sock`` until it closes it."""
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), {k.lower(): v for k, v in headers.items()}, body


def _new_player_head(path: str, body: bytes, *fields: str) -> bytes:
    """The head of a POST {path}/players of ``body`` (and ``fields``) that closes after."""
    return "".join([f"POST {path}/players HTTP/1.1\r\nHost: t\r\nConnection: close\r\n",
                    "Content-Type: application/json\r\n", *(f"{f}\r\n" for f in fields),
                    f"Content-Length: {len(body)}\r\n\r\n"]).encode()


def _name_in_pieces(base: str, pause: float) -> int:
    """POST /players with its body sent in three pieces, ``pause`` s apart: the status."""
    url = urlparse(base)
    body = b'{"name": "slow but sure"}'
    with socket.create_connection((url.hostname, url.port), timeout=10) as sock:
        sock.sendall(_new_player_head(url.path, body))
        for piece in (body[:5], body[5:15], body[15:]):
            time.sleep(pause)
            sock.sendall(piece)
        return _answer(sock)[0]


def test_an_address_holding_its_share_of_connections_cannot_crowd_out_another(
        redis_url, tmp_path):
    """One address's connections that send a body a byte at a time took every connection a
    process serves, and everyone else's requests waited (issue 23: one player cannot slow down
    another). Past its share the address is answered 429 at once, while another address is
    served; one of its connections closed, it may open another."""
    from tests.e2e.conftest import serving

    with serving(redis_url, tmp_path, "--web-workers", "1",
                 settings={"CONNECTIONS_PER_ADDRESS": "3"}) as base:
        held = [_late_move(base, "127.0.0.2") for _ in range(3)]
        try:
            time.sleep(0.3)  # the three are in
            refused = _late_move(base, "127.0.0.2")
            with closing(refused):
                answer = _answer(refused)
            _assert_problem(answer, 429, "too_many_connections")
            assert int(answer[1]["retry-after"]) >= 1
            assert requests.get(f"{base}/games/catalog", timeout=5).status_code == 200
            held.pop().close()
            time.sleep(0.3)
            held.append(_late_move(base, "127.0.0.2"))
            time.sleep(0.3)
            held[-1].settimeout(0.5)
            with pytest.raises(TimeoutError):  # let in: no answer until its body is whole
                held[-1].recv(1)
        finally:
            for sock in held:
                sock.close()
        metrics = requests.get(base.removesuffix("/v1") + "/metrics", timeout=10).text
        assert 'tablestream_worker_refusals_total{reason="too_many_connections"} 1.0' in metrics


def test_a_body_that_does_not_arrive_in_time_is_answered_408_and_its_connection_closed(
        redis_url, tmp_path):
    """A request's body is read whole within REQUEST_BODY_SECONDS of its headers, before the
    app runs; one that comes in pieces within it is served as usual."""
    from tests.e2e.conftest import serving

    with serving(redis_url, tmp_path, "--web-workers", "1",
                 settings={"REQUEST_BODY_SECONDS": "1"}) as base:
        late = _late_move(base, "127.0.0.1")
        with closing(late):
            started = time.monotonic()
            answer = _answer(late)
            waited = time.monotonic() - started
        _assert_problem(answer, 408, "request_timeout")
        assert 0.8 < waited < 5
        assert _name_in_pieces(base, 0.2) == 201


def test_a_client_that_waits_for_100_continue_gets_it_before_its_body_is_awaited(
        redis_url, tmp_path):
    """A client that sends `Expect: 100-continue` holds its body back until the server says
    so (curl waits 1 s, some clients until their own timeout): the body deadline must not
    wait for a body the client is waiting to be asked for."""
    from tests.e2e.conftest import serving

    with serving(redis_url, tmp_path, "--web-workers", "1") as base:
        url = urlparse(base)
        body = b'{"name": "patient"}'
        with socket.create_connection((url.hostname, url.port), timeout=10) as sock:
            sock.sendall(_new_player_head(url.path, body, "Expect: 100-continue"))
            sock.settimeout(0.5)  # well before curl would give up waiting and send it anyway
            assert sock.recv(25) == b"HTTP/1.1 100 Continue\r\n\r\n"
            sock.settimeout(10)
            sock.sendall(body)
            status, _, answer = _answer(sock)
        assert status == 201, answer


def test_a_client_that_stops_reading_its_answers_is_cut_off(redis_url, tmp_path):
    """Answers a client does not read pile up in the kernel until a write blocks; a client that
    never reads would then hold its connection (and megabytes of buffers) for ever. A write
    that takes longer than RESPONSE_WRITE_SECONDS ends the connection."""
    from tests.e2e.conftest import serving

    asked = 600  # 15 KB catalogs: about 9 MB, more than the buffers on both sides hold
    with serving(redis_url, tmp_path, "--web-workers", "1",
                 settings={"RESPONSE_WRITE_SECONDS": "1"}) as base:
        url = urlparse(base)
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        with closing(sock):
            sock.connect((url.hostname, url.port))
            sock.sendall(f"GET {url.path}/games/catalog HTTP/1.1\r\nHost: t\r\n\r\n".encode()
                         * asked)
            time.sleep(4)  # the server blocks on a full buffer, then gives up after 1 s
            sock.settimeout(10)
            received = b""
            with contextlib.suppress(ConnectionResetError):
                while chunk := sock.recv(1 << 20):
                    received += chunk
        answered = received.count(b"HTTP/1.1 200 OK")
        assert 0 < answered < asked  # before: every answer, for as long as the client waited
        metrics = requests.get(base.removesuffix("/v1") + "/metrics", timeout=10).text
        assert 'tablestream_worker_refusals_total{reason="answer_not_read"} 1.0' in metrics
