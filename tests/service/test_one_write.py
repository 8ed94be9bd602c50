"""The gevent worker's per-request savings (issue 13): an answer whose body is known whole
leaves with its headers in one write; redis-py's readiness check needs no gevent timer."""

from __future__ import annotations

from types import SimpleNamespace

from gunicorn.config import Config

from service.runtime.gunicorn_worker import OneWriteResponse


class Socket:
    def __init__(self) -> None:
        self.writes: list[bytes] = []

    def sendall(self, data: bytes) -> None:
        self.writes.append(bytes(data))


def _response(method: str = "POST") -> tuple[OneWriteResponse, Socket]:
    sock = Socket()
    request = SimpleNamespace(version=(1, 1), method=method, should_close=lambda: False)
    return OneWriteResponse(request, sock, Config()), sock


def test_json_answer_leaves_in_one_write_with_its_headers():
    response, sock = _response()
    body = b'{"version":7}\n'
    response.start_response("200 OK", [("Content-Type", "application/json"),
                                       ("Content-Length", str(len(body)))])
    response.write(body)
    response.close()
    assert len(sock.writes) == 1
    head, sent = sock.writes[0].split(b"\r\n\r\n", 1)
    assert head.startswith(b"HTTP/1.1 200 OK\r\n")
    assert b"Content-Length: 14" in head and b"Connection: keep-alive" in head
    assert sent == body


def test_stream_without_length_is_written_as_gunicorn_writes_it():
    response, sock = _response("GET")
    response.start_response("200 OK", [("Content-Type", "text/event-stream")])
    response.write(b"id: 1\n\n")
    response.write(b"id: 2\n\n")
    response.close()
    # Headers first, then each event as its own chunk, then the closing chunk.
    assert b"Transfer-Encoding: chunked" in sock.writes[0]
    assert sock.writes[0].endswith(b"\r\n\r\n")
    assert sock.writes[1:] == [b"7\r\nid: 1\n\n\r\n", b"7\r\nid: 2\n\n\r\n", b"0\r\n\r\n"]


def test_body_in_pieces_is_written_piece_by_piece():
    response, sock = _response()
    response.start_response("200 OK", [("Content-Length", "6")])
    response.write(b"abc")
    response.write(b"def")
    assert b"".join(sock.writes).endswith(b"\r\n\r\nabcdef")
    assert len(sock.writes) == 3


def test_readiness_poll_reports_stray_data_and_a_closed_peer_at_once():
    import select
    import socket

    from service.runtime.gunicorn_worker import ReadinessPoll

    ReadinessPoll.os_poll = ReadinessPoll.green_poll = select.poll  # no gevent in this test
    ours, theirs = socket.socketpair()
    try:
        poll = ReadinessPoll()
        poll.register(ours, select.POLLIN)  # as redis-py registers it
        assert poll.poll(0) == []  # a clean pooled connection: nothing to read
        theirs.sendall(b"+PONG\r\n")
        assert poll.poll(0)  # data left over from an earlier command
        ours.recv(16)
        theirs.close()
        assert poll.poll(0)  # the server closed it: readable (EOF)
    finally:
        ours.close()


def test_shared_bytes_are_framed_once_for_every_stream_writing_them():
    from service.runtime.shared_bytes import SharedBytes

    event = SharedBytes(b"id: 3\nevent: added\ndata: {}\n\n")
    streams = [_response("GET") for _ in range(3)]
    for response, _ in streams:
        response.start_response("200 OK", [("Content-Type", "text/event-stream")])
        response.write(event)
    writes = [sock.writes[1] for _, sock in streams]
    assert writes[0] == b"1D\r\nid: 3\nevent: added\ndata: {}\n\n\r\n"
    assert all(write == writes[0] for write in writes)
    assert event.chunk() is event.chunk()  # built on the first stream, reused by the others


def test_a_chunk_larger_than_the_socket_buffer_is_sent_whole():
    import gevent
    from gevent import socket as gevent_socket

    from service.runtime.gunicorn_worker import send_all

    ours, theirs = gevent_socket.socketpair()
    data = bytes(range(256)) * 40_000  # 10 MB: the first plain send takes only a part

    def read_all() -> bytes:
        got = bytearray()
        while len(got) < len(data):
            got += theirs.recv(1 << 20)
        return bytes(got)

    try:
        reader = gevent.spawn(read_all)
        send_all(ours, data)
        assert reader.get(timeout=30) == data
    finally:
        ours.close()
        theirs.close()


def test_a_tls_socket_is_never_written_to_below_its_encryption():
    from gevent import socket as gevent_socket

    from service.runtime.gunicorn_worker import send_all

    class Tls(gevent_socket.socket):  # gevent's SSLSocket is a subclass of its socket
        def sendall(self, data, flags=0):
            self.sent = bytes(data)

    ours, theirs = gevent_socket.socketpair()
    tls = Tls(fileno=ours.detach())
    try:
        send_all(tls, b"3\r\nabc\r\n")
        assert tls.sent == b"3\r\nabc\r\n"  # through the TLS layer's own sendall
        theirs.setblocking(False)
        try:
            raw = theirs.recv(64)
        except BlockingIOError:
            raw = b""
        assert raw == b""  # nothing went around it in clear
    finally:
        tls.close()
        theirs.close()
