"""gunicorn's gevent worker, but what gunicorn answers itself is problem+json too.

gunicorn refuses some requests before the app sees them: a request line over
``limit_request_line`` (414), a header over ``limit_request_field_size`` or too many headers
(431), a malformed request line or header (400). It writes those answers as HTML; this worker
writes them as the same problem+json every other error is (`tablestream serve` uses it).
"""

from __future__ import annotations

import json
import socket

from gunicorn import util
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


class ProblemGeventWorker(GeventWorker):
    def init_process(self) -> None:
        # The worker's own error path calls util.write_error(client, status, reason, mesg):
        # swapped in this worker process only, before it serves anything.
        util.write_error = write_problem
        super().init_process()
