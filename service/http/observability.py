"""Request ids and one JSON access-log line per request (issue 14)."""

from __future__ import annotations

import logging
import os
import re
import sys
import time
from typing import Any

import orjson
from flask import Flask, Response, g, request

from service.runtime import metrics

REQUEST_ID_HEADER = "X-Request-ID"
ACCESS_LOGGER = "tablestream.access"
# A caller's own id is kept (so a client can follow one request through its logs and ours)
# only when it is short and plain: anything else could forge or break log lines.
# Metric labels come from a fixed set (issue 23 item 14): a method outside it and a path no
# route matched are "other", so random methods or paths cannot grow /metrics without bound.
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
OTHER = "other"
_CLIENT_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")

access_log = logging.getLogger(ACCESS_LOGGER)
# The handler and formatter ``install`` gives the access log: while they are its only ones, a
# line is written as they would write it, without a LogRecord (see _write).
_own: tuple[logging.StreamHandler, logging.Formatter] | None = None


def install(app: Flask, enabled: bool = True) -> None:
    """Give every request an id (echoed in ``X-Request-ID``) and log it as one JSON line."""
    global _own
    if enabled and not access_log.handlers:
        handler = logging.StreamHandler(sys.stderr)
        formatter = logging.Formatter("%(message)s")
        handler.setFormatter(formatter)
        access_log.addHandler(handler)
        access_log.setLevel(logging.INFO)
        access_log.propagate = False
        _own = (handler, formatter)
    app.before_request(_start)
    app.after_request(_finish)


def new_request_id() -> str:
    """A random UUID's 32 hex digits, as ``uuid.uuid4().hex`` (without building a UUID)."""
    raw = bytearray(os.urandom(16))
    raw[6] = raw[6] & 0x0F | 0x40  # version 4
    raw[8] = raw[8] & 0x3F | 0x80  # RFC 4122 variant
    return raw.hex()


def request_id() -> str:
    """This request's id (a new one outside a request's before_request)."""
    return g.get("request_id") or new_request_id()


def _start() -> None:
    given = request.environ.get("HTTP_X_REQUEST_ID", "")
    state = g._get_current_object()
    state.request_id = given if _CLIENT_ID.fullmatch(given) else new_request_id()
    state.request_started = time.perf_counter()


def _finish(response: Response) -> Response:
    # The request and g once each: every use of the proxies looks them up again (a seventh of
    # this function's time, every request).
    req = request._get_current_object()
    state = g._get_current_object()
    rid = state.get("request_id") or new_request_id()
    response.headers[REQUEST_ID_HEADER] = rid
    started = state.get("request_started")
    rule = req.url_rule
    route = rule.rule if rule else OTHER
    method = req.method
    label = method if method in METHODS else OTHER
    status = response.status_code
    _labelled(metrics.REQUESTS, label, route, str(status)).inc()
    if started:
        _labelled(metrics.REQUEST_SECONDS, label, route).observe(time.perf_counter() - started)
    metrics.COLLECTOR_TIME.flush()
    if access_log.isEnabledFor(logging.INFO):
        line = orjson.dumps({
            "ts": round(time.time(), 3), "request_id": rid, "method": method,
            "route": route, "path": req.path,
            "status": status,
            "ms": round((time.perf_counter() - started) * 1000, 2) if started else None,
            "player": state.get("player_id"), "remote": req.remote_addr}).decode()
        _write(line)
    return response


def _write(line: str) -> None:
    """What ``access_log.info(line)`` does. While the access log has only the handler and
    formatter ``install`` gave it (no filter, nothing changed), that is the line and a newline
    written to its stream and flushed under its lock: written so, without the LogRecord, the
    logger's and handler's walks and the format (a third of a request's logging, issue 13)."""
    own = _own
    if own is not None:
        handler, formatter = own
        if access_log.handlers == [handler] and handler.formatter is formatter \
                and not access_log.disabled and not access_log.filters and not handler.filters \
                and handler.level <= logging.INFO and type(handler) is logging.StreamHandler:
            with handler.lock:  # type: ignore[union-attr]
                try:
                    handler.stream.write(line + handler.terminator)
                    handler.flush()
                except RecursionError:
                    raise
                except Exception:
                    handler.handleError(_record(line))
            return
    # Less its walk up the stack for the caller's file and line, which the line does not show.
    access_log.handle(_record(line))


def _record(line: str) -> logging.LogRecord:
    return access_log.makeRecord(ACCESS_LOGGER, logging.INFO, __file__, 0, line, None, None,
                                 "_finish")


# (metric, label values) -> its child: ``labels()`` takes a lock and builds a key each call,
# every request; the children never change once made.
_children: dict[tuple[Any, ...], Any] = {}


def _labelled(metric: Any, *values: str) -> Any:
    key = (metric, *values)
    child = _children.get(key)
    if child is None:
        child = _children[key] = metric.labels(*values)
    return child
