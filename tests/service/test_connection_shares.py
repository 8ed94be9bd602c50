"""Each API process publishes how many connections other than streams it holds, in memory its
gunicorn master shares with every worker (service/runtime/connection_shares.py): one clearly
over its share leaves new connections to its siblings and hands kept-alive ones back. At 1,024
Loot games on two workers, one had held 707 of the games' move connections and the other 317,
and a move took 1.33 s at the median on the first and 0.27 s on the second (issue 29 item 3)."""

from __future__ import annotations

import io
import os
import socket
import time
from types import SimpleNamespace

import pytest
from gunicorn.config import Config
from gunicorn.http.parser import RequestParser
from gunicorn.http.wsgi import Response

from service.runtime import connection_shares, gunicorn_conf, gunicorn_worker
from service.runtime.connection_shares import ConnectionShares
from service.runtime.gunicorn_worker import (
    OneWriteResponse,
    SharingStreamServer,
    hand_back_if_over_share,
)
from tests.service.test_accept_sharing import _accepted_over_time


def _master(slots: int = 4) -> tuple[ConnectionShares, SimpleNamespace]:
    return ConnectionShares(slots), SimpleNamespace(WORKERS={})


def _spawn(shares: ConnectionShares, server: SimpleNamespace, pid: int) -> SimpleNamespace:
    """What gunicorn's master does for a new worker: pre_fork, then it counts as running."""
    worker = SimpleNamespace(pid=pid)
    shares.assign(server, worker)
    server.WORKERS[pid] = worker
    return worker


def _in_worker(shares: ConnectionShares, worker: SimpleNamespace, held: int) -> ConnectionShares:
    """The same memory as seen from ``worker``'s process, holding ``held`` connections."""
    view = ConnectionShares.__new__(ConnectionShares)
    view.__dict__.update(shares.__dict__)
    view.claim(worker)
    view.publish(held)
    return view


def test_each_worker_gets_a_slot_of_its_own_and_a_dead_ones_slot_is_reused():
    shares, server = _master()
    a, b = _spawn(shares, server, 101), _spawn(shares, server, 102)
    assert (a.connection_slot, b.connection_slot) == (0, 1)
    del server.WORKERS[101]
    shares.release(a)
    assert _spawn(shares, server, 103).connection_slot == 0


def test_a_worker_beyond_the_last_slot_counts_nothing_and_is_never_over_its_share():
    shares, server = _master(slots=1)
    first, second = _spawn(shares, server, 101), _spawn(shares, server, 102)
    assert second.connection_slot is None
    _in_worker(shares, first, 0)
    assert not _in_worker(shares, second, 500).over_share(500)


def test_a_worker_is_over_its_share_only_clearly_above_its_least_loaded_sibling():
    shares, server = _master()
    a, b = _spawn(shares, server, 101), _spawn(shares, server, 102)
    mine = _in_worker(shares, a, 0)
    _in_worker(shares, b, 320)
    assert not mine.over_share(340)  # a sixteenth more: noise
    assert mine.over_share(341)
    assert not mine.over_share(360, margins=2)  # far enough to hand connections back
    assert mine.over_share(361, margins=2)
    _in_worker(shares, b, 0)
    assert not mine.over_share(8)  # a few either way: noise
    assert mine.over_share(9)


def test_a_dead_sibling_no_longer_counts():
    shares, server = _master()
    a, b = _spawn(shares, server, 101), _spawn(shares, server, 102)
    mine = _in_worker(shares, a, 0)
    _in_worker(shares, b, 0)
    assert mine.over_share(500)
    shares.release(b)
    assert not mine.over_share(500)  # alone: nobody to leave connections to


def test_a_forked_workers_count_is_seen_by_its_sibling():
    shares, server = _master()
    a, b = _spawn(shares, server, 101), _spawn(shares, server, 102)
    mine = _in_worker(shares, a, 40)
    child = os.fork()
    if child == 0:  # the sibling, in a process of its own, as gunicorn forks it
        try:
            shares.claim(b)
            shares.publish(10)
        finally:
            os._exit(0)
    os.waitpid(child, 0)
    assert mine.over_share(40)  # 40 against the sibling's 10, written in the other process


def test_serves_config_hands_out_and_takes_back_the_slots_of_the_real_shares():
    server = SimpleNamespace(WORKERS={})
    worker = SimpleNamespace(pid=os.getpid())
    gunicorn_conf.pre_fork(server, worker)
    assert worker.connection_slot == 0
    gunicorn_conf.child_exit(server, worker)
    assert connection_shares.SHARES is gunicorn_worker.SHARES


class _Over:
    """A worker's shares saying it holds more than its share, or not."""

    def __init__(self, over: bool):
        self.over = over

    def over_share(self, held: int, margins: int = 1) -> bool:
        return self.over

    def publish(self, held: int) -> None:
        pass


def _request() -> object:
    return next(RequestParser(Config(), [b"GET /v1/games HTTP/1.1\r\nHost: x\r\n\r\n"],
                              ("127.0.0.1", 5000)))


@pytest.mark.parametrize("over", [True, False])
def test_a_worker_over_its_share_ends_a_kept_alive_connection_with_its_answer(monkeypatch, over):
    monkeypatch.setattr(gunicorn_worker, "SHARES", _Over(over))
    req = _request()
    hand_back_if_over_share(req)
    response = Response(req, io.BytesIO(), Config())
    response.start_response("200 OK", [("Content-Length", "2")])
    headers = response.default_headers()
    assert ("Connection: close\r\n" in headers) is over
    assert ("Connection: keep-alive\r\n" in headers) is not over


def test_a_worker_over_its_share_leaves_new_connections_to_siblings_then_takes_them(
        monkeypatch):
    # Left to the siblings (none here) for 0.3 s, then taken: a sibling may be stuck.
    monkeypatch.setattr(gunicorn_worker, "SHARES", _Over(True))
    monkeypatch.setattr(gunicorn_worker, "ACCEPT_PAUSE_MAX", 0.1)
    monkeypatch.setattr(gunicorn_worker, "DEFER_SECONDS", 0.3)
    assert _accepted_over_time(SharingStreamServer, clients=2) == [0, 2]


def test_a_worker_within_its_share_takes_new_connections_at_once(monkeypatch):
    monkeypatch.setattr(gunicorn_worker, "SHARES", _Over(False))
    monkeypatch.setattr(gunicorn_worker, "ACCEPT_PAUSE_MAX", 0.1)
    monkeypatch.setattr(gunicorn_worker, "DEFER_SECONDS", 0.3)
    early, _ = _accepted_over_time(SharingStreamServer, clients=2)
    assert early >= 1


def test_an_answer_streamed_counts_as_a_stream_for_as_long_as_it_lives():
    # A move costs a worker about twice what pushing it to a stream does: the workers share
    # the connections other than streams evenly, so a stream is counted apart.
    before = len(OneWriteResponse.streaming)
    stream = OneWriteResponse(_request(), io.BytesIO(), Config())
    stream.start_response("200 OK", [("Content-Type", "text/event-stream")])
    answer = OneWriteResponse(_request(), io.BytesIO(), Config())
    answer.start_response("200 OK", [("Content-Type", "application/json"),
                                      ("Content-Length", "2")])
    assert len(OneWriteResponse.streaming) == before + 1
    assert stream in OneWriteResponse.streaming and answer not in OneWriteResponse.streaming
    del stream
    assert len(OneWriteResponse.streaming) == before


def test_a_worker_over_its_share_keeps_a_connection_while_new_ones_wait_to_be_accepted(
        monkeypatch):
    # The client's new connection would wait behind them: in a flood of 4,000 connections a
    # bystander's p99 doubled so.
    monkeypatch.setattr(gunicorn_worker, "SHARES", _Over(True))
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    server = SharingStreamServer(listener, handle=lambda *_: None)  # never started: none taken
    client = socket.create_connection(listener.getsockname())
    try:
        deadline = time.monotonic() + 5
        while not gunicorn_worker.waiting_connections(listener) and time.monotonic() < deadline:
            time.sleep(0.01)
        req = _request()
        hand_back_if_over_share(req)
        assert not req.should_close()
        listener.accept()[0].close()
        hand_back_if_over_share(req)
        assert req.should_close()
    finally:
        client.close()
        listener.close()
        del server
