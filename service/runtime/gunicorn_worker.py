"""gunicorn's gevent worker, but what gunicorn answers itself is problem+json too, an answer
whose body is known whole leaves in one write, a stream's chunk leaves in one plain send, and a
new connection whose first bytes the app already refuses (service.http.early_refusal) is
answered from them, before gunicorn parses anything.

gunicorn refuses some requests before the app sees them: a request line over
``limit_request_line`` (414), a header over ``limit_request_field_size`` or too many headers
(431), a malformed request line or header (400). It writes those answers as HTML; this worker
writes them as the same problem+json every other error is (`tablestream serve` uses it).
"""

from __future__ import annotations

import contextlib
import io
import json
import select
import socket
import struct
import time
import types
import weakref
from collections.abc import Callable
from typing import Any

import gevent
from gevent import socket as gevent_socket
from gevent.server import StreamServer
from gunicorn import util
from gunicorn.http import wsgi
from gunicorn.http.body import Body, ChunkedReader, LengthReader
from gunicorn.workers import ggevent
from gunicorn.workers.ggevent import GeventWorker

from service.runtime.connection_shares import SHARES
from service.runtime.problems import HTTP_CODES, PROBLEM_JSON, PROBLEM_TYPE
from service.runtime.shared_bytes import SharedBytes, chunk


def problem_bytes(status: int, reason: str, detail: str) -> bytes:
    """A complete HTTP/1.1 problem+json response that closes the connection."""
    code = HTTP_CODES.get(status, "error")
    body = json.dumps({"type": PROBLEM_TYPE + code, "title": reason, "status": status,
                       "detail": detail or reason, "code": code}).encode()
    head = (f"HTTP/1.1 {status} {reason}\r\nConnection: close\r\n"
            f"Content-Type: {PROBLEM_JSON}\r\nContent-Length: {len(body)}\r\n\r\n")
    return head.encode("latin-1") + body


def write_problem(sock: socket.socket, status_int: int, reason: str, mesg: str) -> None:
    """Stands in for ``gunicorn.util.write_error`` (same arguments: HTML becomes problem+json)."""
    util.write_nonblock(sock, problem_bytes(status_int, reason, mesg))


class OneWriteResponse(wsgi.Response):
    """gunicorn's HTTP/1 response, but when the first body write is the whole body (its
    Content-Length; every JSON answer is one bytes body) the headers go in the same write:
    one send instead of two, so one packet and one wake-up of the client instead of two
    (issue 13). Streams (SSE) and bodies in pieces are written as gunicorn writes them."""

    # The answers of this process being streamed (SSE: no Content-Length), for as long as they
    # live: what a connection costs its worker depends on whether it streams (connection_shares).
    streaming: weakref.WeakSet[OneWriteResponse] = weakref.WeakSet()

    def start_response(self, status: str, headers: Any, exc_info: Any = None) -> Any:
        write = super().start_response(status, headers, exc_info)
        if self.chunked:
            OneWriteResponse.streaming.add(self)
        return write

    def write(self, arg: bytes) -> None:
        if self.headers_sent or self.chunked or self._omits_body \
                or not isinstance(arg, bytes) or self.response_length != len(arg):
            super().write(arg)
            return
        head = self.default_headers()
        head.extend(f"{name}: {value}\r\n" for name, value in self.headers)
        util.write(self.sock, f"{''.join(head)}\r\n".encode("latin-1") + arg)
        self.headers_sent = True
        self.sent += len(arg)

    def _emit_body(self, data: bytes) -> None:
        """A chunk of a stream (SSE) framed once for every stream writing the same
        ``SharedBytes``, and sent as one plain send when the socket takes it all (issue 13)."""
        if not self.chunked:
            super()._emit_body(data)
            return
        if not data:
            return
        send_all(self.sock, data.chunk() if isinstance(data, SharedBytes) else chunk(data))


def send_all(sock: Any, data: bytes) -> None:
    """``sock.sendall(data)``, trying one send on the OS socket first. gevent's ``sendall``
    asks the kernel for SO_SNDBUF and arms a timer on every call: with 1,000 SSE streams of a
    game that was a fifth of each delivery's CPU, for a few hundred bytes that a socket's
    buffer takes at once. Only a plain gevent socket (never TLS) has its OS socket used so."""
    if type(sock) is gevent_socket.socket:
        try:
            sent = sock._sock.send(data)
        except (BlockingIOError, InterruptedError):
            sent = 0
        if sent == len(data):
            return
        data = memoryview(data)[sent:]
    sock.sendall(data)


class ReadinessPoll:
    """``select.poll`` for redis-py's hiredis parser in a gevent worker. Each connection taken
    from the pool is first checked for stray data with a poll of timeout 0; gevent's poll
    makes a watcher and a timer for it (every Redis round trip paid it). A poll of timeout 0
    never blocks, so the OS's poll answers it; any other timeout waits in gevent's."""

    os_poll: Any = None  # the OS's select.poll and gevent's, set by _quick_readiness_checks
    green_poll: Any = None

    def __init__(self) -> None:
        self._registered: list[tuple[Any, int]] = []

    def register(self, fd: Any, eventmask: int = select.POLLIN | select.POLLPRI
                 | select.POLLOUT) -> None:
        self._registered.append((fd, eventmask))

    def poll(self, timeout: float | None = None) -> list[tuple[int, int]]:
        poller = self.os_poll() if timeout == 0 else self.green_poll()
        for fd, eventmask in self._registered:
            poller.register(fd, eventmask)
        return poller.poll(timeout)


def _quick_readiness_checks() -> None:
    """Point redis-py's hiredis parser (alone) at ReadinessPoll."""
    try:
        from redis._parsers import hiredis
    except ImportError:  # another redis-py layout: its own checks stay as they are
        return
    from gevent import monkey
    from gevent import select as green_select

    ReadinessPoll.os_poll = monkey.get_original("select", "poll")
    ReadinessPoll.green_poll = green_select.poll
    shim = types.ModuleType("select")
    shim.__dict__.update(select.__dict__)
    shim.poll = ReadinessPoll  # type: ignore[attr-defined]
    hiredis.select = shim  # type: ignore[attr-defined]


ACCEPT_PAUSE = 0.0002  # s a worker leaves new connections to its siblings, per open connection
ACCEPT_PAUSE_MAX = 0.002  # s: however busy, a worker takes a new connection every 2 ms
# s a worker over its share of connections leaves new ones to its siblings (looking again every
# ACCEPT_PAUSE_MAX) before it takes them anyway: a sibling may be stuck. A sibling as busy as
# at 1,024 games turns its event loop (and so accepts) every few tens of ms.
DEFER_SECONDS = 0.25
# struct tcp_info (linux/tcp.h): for a listening socket, tcpi_unacked is the accept queue's
# length (sk_ack_backlog); it follows 8 one-byte fields and four u32s.
_TCP_INFO_QUEUED = struct.Struct("=I")
_TCP_INFO_QUEUED_AT = 8 + 4 * 4
EARLY_PEEK_BYTES = 8192  # the first bytes of a new connection an early answer looks at
EARLY_WAIT = 0.5  # s a new connection that sent nothing yet is waited for before gunicorn's turn


def waiting_connections(listener: Any) -> int:
    """Connections the kernel holds for ``listener``, not yet accepted (0 when it cannot
    tell: not TCP, not Linux)."""
    try:
        info = listener.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104)
    except (OSError, AttributeError):
        return 0
    if len(info) < _TCP_INFO_QUEUED_AT + 4:
        return 0
    return _TCP_INFO_QUEUED.unpack_from(info, _TCP_INFO_QUEUED_AT)[0]


class SharingStreamServer(StreamServer):
    """gevent's server, but a worker takes its share of the connections waiting to be
    accepted, and one that has just accepted while it already serves others stops accepting
    for a moment (ACCEPT_PAUSE per open connection, at most ACCEPT_PAUSE_MAX), so the other
    workers, woken by the same connections, take the next ones.

    Every worker waits on the one listening socket, and the first to run takes each new
    connection: 16 clients connecting at once were split 1/15 or 16/0 between two workers in
    most tries, and kept-alive connections stay where they landed, so one worker (one core)
    served them all while the other idled. The pause grows with the worker's own load, so the
    least busy worker is the first back (issue 13).

    gunicorn has each worker accept one connection per wake (``max_accept = 1``), and a busy
    worker wakes once per turn of its event loop, after every request that was ready has run
    its course: with 128 games playing, 256 streams opening at once waited up to 5 s for
    their turn, while a move took 60 ms. So a wake takes a share of the queue instead: a
    ``1 / (2 x workers)`` part of it, at least one, which a sibling waking next shares in turn
    (issue 29 item 3).

    Those pauses even out who accepts a burst, not what each worker holds after it: at 1,024
    games, when every worker's pause is at its longest, one held 70 % of the games' move
    connections and its moves took 5x as long as the other's. So each worker publishes how
    many connections other than streams it holds (service.runtime.connection_shares; the
    streams were shared evenly, and equal totals still left one worker 777 of the 1,024 move
    connections), one clearly over its share leaves new connections to the others for up to
    DEFER_SECONDS, and ProblemGeventWorker closes its kept-alive connections after their answer
    while it is over twice that margin (the client reconnects, to a sibling: with one margin
    for both, a sibling too busy to accept in time left the same connections bouncing)."""

    workers = 1  # the API processes sharing the listening socket (set by the worker)
    sharing = True  # False in the only worker: nobody to leave connections to
    # service.http.early_refusal.EarlyRefusal.answer of the app served, when it has one.
    early_answer: Callable[[str, bytes], tuple[int, bytes] | None] | None = None
    # service.http.connection_limits.ConnectionLimits of the app served, when it has them.
    limits: Any = None

    servers: weakref.WeakSet[SharingStreamServer] = weakref.WeakSet()  # one a listener

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._open: dict[str, int] = {}  # connections open per client address
        # since when this worker has left new connections to its siblings (None: it has not)
        self._deferring_since: float | None = None
        SharingStreamServer.servers.add(self)

    @classmethod
    def held(cls) -> int:
        """Connections this process serves now (each has a greenlet of its server's pool)."""
        return sum(len(server.pool) for server in cls.servers if server.pool is not None)

    @classmethod
    def requests_held(cls) -> int:
        """Connections this process serves now other than streams: each a client's requests,
        in flight or to come (kept alive). A move costs a worker about twice what pushing it
        to a stream does, so these are what the workers share evenly."""
        return max(0, cls.held() - len(OneWriteResponse.streaming))

    def do_handle(self, sock: Any, address: Any) -> None:
        plain = type(sock) is gevent_socket.socket and isinstance(address, tuple)
        if plain and self.limits is not None and self.limits.per_address \
                and not self._admitted(sock, self.limits.counted_as(address[0])):
            return
        if self.early_answer is None or not plain:
            super().do_handle(sock, address)
            return
        answered = self._answered_early(sock, address)
        if answered is None:  # nothing sent yet: a greenlet of its own waits for it
            if self._spawn is None:
                self._look_then_handle(sock, address)
            else:
                self._spawn(self._look_then_handle, sock, address)
        elif answered:
            self._left(address)
        else:
            super().do_handle(sock, address)

    def _admitted(self, sock: Any, host: str) -> bool:
        """Count a new connection from ``host`` (an address as the limits count it), or
        answer it 429 and close it when ``host`` already holds its share of this process's
        connections (ConnectionLimits)."""
        held = self._open.get(host, 0)
        if held < self.limits.per_address:
            self._open[host] = held + 1
            return True
        try:
            head = sock._sock.recv(EARLY_PEEK_BYTES, socket.MSG_PEEK | socket.MSG_DONTWAIT)
        except OSError:
            head = b""
        _answer_and_close(sock, len(head), self.limits.too_many(head))
        return False

    def _left(self, address: Any) -> None:
        """A connection counted by ``_admitted`` is closed."""
        if not self._open or not isinstance(address, tuple):
            return
        host = self.limits.counted_as(address[0])
        held = self._open.get(host, 0)
        if held > 1:
            self._open[host] = held - 1
        else:
            self._open.pop(host, None)

    def do_close(self, sock: Any, *args: Any) -> None:
        if type(sock) is gevent_socket.socket:  # counted by do_handle only then
            self._left(args[0] if args else None)
        super().do_close(sock, *args)
        # The pool lets go of the connection's greenlet only after this returns.
        SHARES.publish(max(0, self.requests_held() - 1))

    def _look_then_handle(self, sock: Any, address: Any) -> None:
        try:
            with contextlib.suppress(OSError):
                gevent_socket.wait_read(sock.fileno(), timeout=EARLY_WAIT)
            if not self._answered_early(sock, address):
                self._handle(sock, address)
        finally:
            self.do_close(sock, address)

    def _answered_early(self, sock: Any, address: Any) -> bool | None:
        """Answer a new connection from its first bytes, unparsed, when the app says how
        (service.http.early_refusal): True when answered (and closed), False to serve it as
        usual, None when it has sent nothing yet."""
        raw = sock._sock
        try:
            head = raw.recv(EARLY_PEEK_BYTES, socket.MSG_PEEK | socket.MSG_DONTWAIT)
        except BlockingIOError:
            return None
        except OSError:  # gone already: the usual way finds out
            return False
        assert self.early_answer is not None
        found = self.early_answer(address[0], head) if head else None
        if found is None:
            return False
        _answer_and_close(sock, *found)
        return True

    def _do_read(self) -> None:
        if not self.sharing:
            super()._do_read()
            return
        before = len(self.pool) if self.pool is not None else 0
        if self._watcher is not None and SHARES.over_share(self.requests_held()):
            now = time.monotonic()
            self._deferring_since = self._deferring_since or now
            if now - self._deferring_since < DEFER_SECONDS:
                self._pause(ACCEPT_PAUSE_MAX)
                return
        self._deferring_since = None
        self.max_accept = max(1, waiting_connections(self.socket) // (2 * self.workers))
        super()._do_read()
        if self.pool is None or self._watcher is None:
            return  # full, failing or closed: gevent's own waits apply
        serving = len(self.pool)
        SHARES.publish(self.requests_held())
        if serving > before and serving > 1:
            self._pause(min(ACCEPT_PAUSE * (serving - 1), ACCEPT_PAUSE_MAX))

    def _pause(self, seconds: float) -> None:
        """Leave new connections to the siblings for ``seconds``."""
        self.stop_accepting()
        self._timer = self.loop.timer(seconds)
        self._timer.start(self._start_accepting_if_started)


def _answer_and_close(sock: Any, length: int, answer: bytes) -> None:
    """Send a whole ``answer`` to a new connection whose first ``length`` bytes are in, and
    close it, without waiting for anything."""
    raw = sock._sock
    try:
        # The request is read first: a socket closed with unread bytes resets the connection,
        # and the client could lose the answer.
        if length:
            raw.recv(length, socket.MSG_DONTWAIT)
        raw.send(answer, socket.MSG_DONTWAIT)
    except OSError:
        pass  # the client is gone, or its buffer full: it is refused all the same
    sock.close()


def read_body_in_time(req: Any, sock: Any, limits: Any) -> None:
    """Read ``req``'s body whole within ``limits.body_seconds``, before the app runs, so that
    a body sent a byte at a time cannot hold a connection (service.http.connection_limits); a
    body over ``limits.max_body`` is left to the app, which refuses it unread (413). When it
    is late, answer 408 and end the connection (gunicorn closes it on StopIteration)."""
    reader = req.body.reader
    if isinstance(reader, LengthReader):
        if not 0 < reader.length <= limits.max_body:
            return
        size = reader.length
    elif isinstance(reader, ChunkedReader):
        size = limits.max_body + 1  # one byte more tells the app it is too long
    else:
        return
    if getattr(req, "_expected_100_continue", False):
        # The client waits for this before it sends the body (gunicorn would send it only
        # once the app runs, after the body we wait for here: curl waits 1 s, others longer).
        with contextlib.suppress(OSError):
            sock.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
        req._expected_100_continue = False
    timer = gevent.Timeout(limits.body_seconds)
    timer.start()
    try:
        data = req.body.read(size)
    except gevent.Timeout as exc:
        if exc is not timer:
            raise
        language = next((value for name, value in req.headers
                         if name == "ACCEPT-LANGUAGE"), None)
        with contextlib.suppress(OSError):
            sock.sendall(limits.late_body(language))
        raise StopIteration("the request body came too late") from None
    finally:
        timer.close()
    if len(data) > limits.max_body:
        req.force_close()  # the rest of a chunked body is still unread
    req.body = Body(io.BytesIO(data))


def hand_back_if_over_share(req: Any) -> None:
    """A worker clearly over its share of connections ends ``req``'s kept-alive connection
    with its answer (``Connection: close``): the client's next request comes on a new
    connection, which a sibling takes (SharingStreamServer). A stream ends as it would. Not
    while new connections wait to be accepted: the client's would wait behind them (in a
    flood of 4,000 connections a bystander's bot move p99 went from 5-9 to 10 ms)."""
    if SHARES.over_share(SharingStreamServer.requests_held(), margins=2) \
            and not any(waiting_connections(getattr(server, "socket", None))
                        for server in SharingStreamServer.servers):
        req.force_close()


class ProblemGeventWorker(GeventWorker):
    def patch(self) -> None:
        super().patch()
        _quick_readiness_checks()

    def init_process(self) -> None:
        # The worker's own error path calls util.write_error(client, status, reason, mesg),
        # and wsgi.create builds a wsgi.Response: both swapped in this worker process only,
        # before it serves anything.
        util.write_error = write_problem
        wsgi.Response = OneWriteResponse
        # GeventWorker.run builds its server from this name.
        SHARES.claim(self)
        SharingStreamServer.workers = self.cfg.workers
        SharingStreamServer.sharing = self.cfg.workers > 1
        ggevent.StreamServer = SharingStreamServer
        from service.runtime import metrics  # in the worker: its values are its own

        metrics.COLLECTOR_TIME.install()  # how long the collector holds this process
        super().init_process()

    def load_wsgi(self) -> None:
        super().load_wsgi()
        extensions = getattr(self.wsgi, "extensions", {})
        if "tablestream.early_refusal" in extensions:
            SharingStreamServer.early_answer = extensions["tablestream.early_refusal"].answer
        SharingStreamServer.limits = extensions.get("tablestream.connection_limits")

    def handle_request(self, listener_name: Any, req: Any, sock: Any, addr: Any) -> None:
        hand_back_if_over_share(req)
        limits = SharingStreamServer.limits
        if limits is None:
            super().handle_request(listener_name, req, sock, addr)
            return
        if limits.write_seconds > 0:
            # Each sendall of the answer in at most this long (gevent bounds the whole call);
            # the next request's head and this one's body have shorter deadlines of their own.
            sock.settimeout(limits.write_seconds)
        if limits.body_seconds > 0:
            read_body_in_time(req, sock, limits)
        try:
            super().handle_request(listener_name, req, sock, addr)
        except TimeoutError:
            limits.answer_not_read()
            # Reset rather than close: a close would leave the unread megabytes queued in the
            # kernel, probing a client that reads nothing, for minutes.
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            raise StopIteration("the client did not read its answer in time") from None
