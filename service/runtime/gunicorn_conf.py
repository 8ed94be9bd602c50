"""gunicorn settings that need code (`tablestream serve` loads this module as its config)."""

from __future__ import annotations

import os
import socket
from typing import Any

from service.runtime.connection_shares import SHARES

# gunicorn's own limits (its defaults, stated): a longer request line is 414, a longer header
# or more headers 431, answered before the app sees the request by
# service.runtime.gunicorn_worker in problem+json. No URL or header of the API comes near them.
limit_request_line = 4094
limit_request_field_size = 8190
limit_request_fields = 100


def pre_fork(server: Any, worker: Any) -> None:
    """Each API process counts its connections in a slot of its own (connection_shares)."""
    SHARES.assign(server, worker)


def child_exit(server: Any, worker: Any) -> None:
    """A dead API process's live gauges (open SSE streams) must stop counting, and its
    connections are gone."""
    SHARES.release(worker)
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)


# s a new connection may stay silent before it is handed to a worker anyway (TCP_DEFER_ACCEPT)
DEFER_ACCEPT_SECONDS = 1


def when_ready(server: Any) -> None:
    """The kernel wakes the API processes for a new connection only once its first bytes are
    in (TCP_DEFER_ACCEPT, Linux; nginx's ``deferred``, HAProxy's default). An HTTP client
    always speaks first, so nothing changes for it, but a connection that sends nothing costs
    the workers nothing, and the early refusal (service/http/early_refusal.py) finds the
    request already there instead of waiting for it in a greenlet of its own. In a flood of
    4,000 tokenless streams the API processes used about a fifth less CPU (issue 23 item 8).
    After DEFER_ACCEPT_SECONDS a silent connection is handed over all the same."""
    option = getattr(socket, "TCP_DEFER_ACCEPT", None)
    if option is None:
        return
    for listener in server.LISTENERS:
        sock = getattr(listener, "sock", None)
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            sock.setsockopt(socket.IPPROTO_TCP, option, DEFER_ACCEPT_SECONDS)
