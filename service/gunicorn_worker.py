"""gunicorn's gevent worker, but what gunicorn answers itself is problem+json too, and an
answer whose body is known whole leaves in one write.

gunicorn refuses some requests before the app sees them: a request line over
``limit_request_line`` (414), a header over ``limit_request_field_size`` or too many headers
(431), a malformed request line or header (400). It writes those answers as HTML; this worker
writes them as the same problem+json every other error is (`tablestream serve` uses it).
"""

from __future__ import annotations

import json
import socket

from gunicorn import util
from gunicorn.http import wsgi
from gunicorn.workers.ggevent import GeventWorker

from service.problems import HTTP_CODES, PROBLEM_JSON, PROBLEM_TYPE


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


class ProblemGeventWorker(GeventWorker):
    def init_process(self) -> None:
        # The worker's own error path calls util.write_error(client, status, reason, mesg),
        # and wsgi.create builds a wsgi.Response: both swapped in this worker process only,
        # before it serves anything.
        util.write_error = write_problem
        wsgi.Response = OneWriteResponse
        super().init_process()
