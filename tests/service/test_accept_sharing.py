"""A web worker that already serves connections leaves the next new one to its siblings for a
moment (issue 13): every worker waits on the one listening socket, and without the pause the
first to run took 15 or all 16 of 16 connections opened at once in most tries (kept alive,
they stayed there: one core served them while the other idled)."""

from __future__ import annotations

import socket
import time

import gevent
import pytest
from gevent import socket as gevent_socket
from gevent.pool import Pool

from service.runtime import gunicorn_worker
from service.runtime.gunicorn_worker import SharingStreamServer, waiting_connections


@pytest.fixture
def long_pause(monkeypatch):
    """A pause long enough to see (0.5 s a connection), instead of 0.2 ms."""
    monkeypatch.setattr(gunicorn_worker, "ACCEPT_PAUSE", 0.5)
    monkeypatch.setattr(gunicorn_worker, "ACCEPT_PAUSE_MAX", 0.5)


def _accepted_over_time(server_class: type, clients: int = 3) -> list[int]:
    """``clients`` connect at once to a server whose connections stay open: how many it has
    accepted 0.15 s and 0.9 s later."""
    listener = gevent_socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    accepted: list[object] = []

    def keep_open(sock, _address):
        accepted.append(sock)
        gevent.sleep(5)

    server = server_class(listener, handle=keep_open, spawn=Pool(100))
    server.max_accept = 1  # as gunicorn sets it with more than one worker
    clients = [gevent_socket.create_connection(listener.getsockname()) for _ in range(clients)]
    server.start()
    try:
        gevent.sleep(0.15)
        early = len(accepted)
        gevent.sleep(0.75)
        return [early, len(accepted)]
    finally:
        server.stop(timeout=0)
        for client in clients:
            client.close()


def test_a_worker_serving_a_connection_pauses_before_taking_another(long_pause):
    # The first is taken at once (nothing else served); the second makes two served, so the
    # worker pauses 0.5 s before the third.
    assert _accepted_over_time(SharingStreamServer) == [2, 3]


def test_gevents_own_server_takes_every_waiting_connection_at_once(long_pause):
    # What the pause changes: one worker would take all three.
    assert _accepted_over_time(gunicorn_worker.StreamServer) == [3, 3]


def test_a_wake_takes_a_share_of_the_connections_waiting_not_just_one(long_pause):
    # Eight waiting, one worker: the first wake takes half of them (8 // 2), then pauses; the
    # next takes half of the four left. Taking one a wake, a busy worker (one wake per turn of
    # its event loop) left 256 new streams waiting up to 5 s behind 128 games' moves.
    assert _accepted_over_time(SharingStreamServer, clients=8) == [4, 6]


def test_the_kernel_tells_how_many_connections_wait_to_be_accepted():
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    clients = [socket.create_connection(listener.getsockname()) for _ in range(3)]
    try:
        deadline = time.monotonic() + 5
        while waiting_connections(listener) < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert waiting_connections(listener) == 3
        listener.accept()[0].close()
        assert waiting_connections(listener) == 2
    finally:
        for client in clients:
            client.close()
        listener.close()
    assert waiting_connections(socket.socket(socket.AF_UNIX)) == 0  # cannot tell: none


@pytest.mark.skipif(not hasattr(socket, "TCP_DEFER_ACCEPT"), reason="Linux only")
def test_a_connection_reaches_the_workers_only_once_it_has_sent_something():
    """gunicorn's when_ready hook (service/runtime/gunicorn_conf.py) on a real listener: a
    silent connection does not wake the workers; its first bytes do, and are there to read."""
    import select
    from types import SimpleNamespace

    from service.runtime import gunicorn_conf

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    gunicorn_conf.when_ready(SimpleNamespace(LISTENERS=[SimpleNamespace(sock=listener)]))
    client = socket.create_connection(listener.getsockname())
    try:
        assert select.select([listener], [], [], 0.3)[0] == []  # connected, silent: no wake
        client.sendall(b"GET / HTTP/1.1\r\n\r\n")
        assert select.select([listener], [], [], 5)[0] == [listener]
        accepted, _ = listener.accept()
        with accepted:
            accepted.setblocking(False)
            assert accepted.recv(64, socket.MSG_PEEK) == b"GET / HTTP/1.1\r\n\r\n"
    finally:
        client.close()
        listener.close()
