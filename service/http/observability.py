"""Request ids and one JSON access-log line per request (issue 14)."""

from __future__ import annotations

import logging
import re
import sys
import time
import uuid
from typing import Any

import orjson
from flask import Flask, Response, g, request

from service import metrics

REQUEST_ID_HEADER = "X-Request-ID"
ACCESS_LOGGER = "tablestream.access"
# A caller's own id is kept (so a client can follow one request through its logs and ours)
# only when it is short and plain: anything else could forge or break log lines.
_CLIENT_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")

access_log = logging.getLogger(ACCESS_LOGGER)


def install(app: Flask, enabled: bool = True) -> None:
    """Give every request an id (echoed in ``X-Request-ID``) and log it as one JSON line."""
    if enabled and not access_log.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(message)s"))
        access_log.addHandler(handler)
        access_log.setLevel(logging.INFO)
        access_log.propagate = False
    app.before_request(_start)
    app.after_request(_finish)


def request_id() -> str:
    """This request's id (a new one outside a request's before_request)."""
    return g.get("request_id") or uuid.uuid4().hex


def _start() -> None:
    given = request.headers.get(REQUEST_ID_HEADER, "")
    g.request_id = given if _CLIENT_ID.fullmatch(given) else uuid.uuid4().hex
    g.request_started = time.perf_counter()


def _finish(response: Response) -> Response:
    # The request and g once each: every use of the proxies looks them up again (a seventh of
    # this function's time, every request).
    req = request._get_current_object()
    state = g._get_current_object()
    rid = state.get("request_id") or uuid.uuid4().hex
    response.headers[REQUEST_ID_HEADER] = rid
    started = state.get("request_started")
    rule = req.url_rule
    route = rule.rule if rule else "unmatched"
    method = req.method
    status = response.status_code
    _labelled(metrics.REQUESTS, method, route, str(status)).inc()
    if started:
        _labelled(metrics.REQUEST_SECONDS, method, route).observe(time.perf_counter() - started)
    if access_log.isEnabledFor(logging.INFO):
        line = orjson.dumps({
            "ts": round(time.time(), 3), "request_id": rid, "method": method,
            "route": route, "path": req.path,
            "status": status,
            "ms": round((time.perf_counter() - started) * 1000, 2) if started else None,
            "player": state.get("player_id"), "remote": req.remote_addr}).decode()
        # What access_log.info(line) does, less its walk up the stack for the caller's file
        # and line, which the line does not show (a tenth of the request's logging).
        access_log.handle(access_log.makeRecord(ACCESS_LOGGER, logging.INFO, __file__, 0,
                                                line, None, None, "_finish"))
    return response


# (metric, label values) -> its child: ``labels()`` takes a lock and builds a key each call,
# every request; the children never change once made.
_children: dict[tuple[Any, ...], Any] = {}


def _labelled(metric: Any, *values: str) -> Any:
    key = (metric, *values)
    child = _children.get(key)
    if child is None:
        child = _children[key] = metric.labels(*values)
    return child
