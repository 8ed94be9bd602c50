"""Every error leaves as RFC 9457 problem+json with our stable ``code``."""

from __future__ import annotations

import http
import logging
import sys
from collections.abc import Iterator
from typing import Any

import apispec
import marshmallow as ma
import redis
from flask import Response, current_app, json, request
from flask_smorest import Api
from flask_smorest.spec import prepare_response
from redis.exceptions import RedisClusterException
from werkzeug.exceptions import HTTPException, InternalServerError, RequestEntityTooLarge

from events.redis_store import is_outage
from events.store import StoreUnavailable
from games.core import N_, Text
from service.app.errors import ServiceError
from service.http.i18n import localize, localize_all
from service.runtime.problems import HTTP_CODES, PROBLEM_JSON, PROBLEM_TYPE

STORE_RETRY_AFTER = 2  # seconds: a restarted Redis or a failed-over master is back by then

log = logging.getLogger(__name__)


class ProblemSchema(ma.Schema):
    """An RFC 9457 problem detail, plus the stable ``code`` clients switch on."""

    type = ma.fields.String(metadata={"description": "A URI naming the problem type"})
    title = ma.fields.String(metadata={"description": "Short summary of the problem type"})
    status = ma.fields.Integer(metadata={"description": "HTTP status code"})
    detail = ma.fields.String(metadata={"description": "What went wrong this time"})
    code = ma.fields.String(metadata={"description": "Stable machine code, e.g. not_your_turn"})
    errors = ma.fields.Dict(metadata={"description": "Field errors of a malformed request"})
    version = ma.fields.Integer(metadata={"description": "The game's current version"})
    legal_commands = ma.fields.List(ma.fields.Dict(), metadata={
        "description": "The caller's legal commands now (rule violations)"})
    details = ma.fields.Dict(metadata={"description": "Rule-specific facts"})
    retry_after = ma.fields.Integer(metadata={"description": "Seconds to wait (429, 503)"})


PROBLEM_FIELDS = frozenset(ProblemSchema().fields)


def problem(status: int, code: str, title: str, detail: str, **extra: Any) -> Response:
    """A problem+json response; facts the ProblemSchema does not declare go under ``details``,
    so every body validates against the documented schema (it allows no other members)."""
    body: dict[str, Any] = {"type": PROBLEM_TYPE + code, "title": title, "status": status,
                            "detail": detail, "code": code}
    for key, value in extra.items():
        if value is None:
            continue
        if key in PROBLEM_FIELDS:
            body[key] = {**body.get(key, {}), **value} if key == "details" else value
        else:
            body["details"] = {**body.get("details", {}), key: value}
    return Response(json.dumps(body), status=status, mimetype=PROBLEM_JSON)


def limit_body() -> None:
    """before_request: refuse a body longer than MAX_CONTENT_LENGTH (413), before any handler.

    A declared Content-Length is checked unread. A chunked body is read up to the limit (werkzeug
    stops there without a word, which would parse a truncated body), then one byte more.
    """
    req = request._get_current_object()  # once: each use of the proxy looks it up again
    environ = req.environ
    declared = environ.get("CONTENT_LENGTH")
    if "HTTP_TRANSFER_ENCODING" not in environ and (declared is None or (declared.isdecimal()
                                                    and declared.isascii())):
        # The usual request: a plain Content-Length (werkzeug's content_length reads it as
        # this int) or none at all (no body to refuse).
        if declared is not None:
            limit = req.max_content_length
            if limit is not None and int(declared) > limit:
                raise RequestEntityTooLarge(
                    Text("The request body is over {limit} bytes, the limit.", limit=limit))
        return
    limit = req.max_content_length
    size = req.content_length
    if limit is not None and size is None \
            and "chunked" in req.headers.get("Transfer-Encoding", "").lower():
        size = len(req.get_data(cache=True))
        if size >= limit and req.environ["wsgi.input"].read(1):
            size += 1
    if limit is not None and size is not None and size > limit:
        raise RequestEntityTooLarge(
            Text("The request body is over {limit} bytes, the limit.", limit=limit))


class FinishedSpec(apispec.APISpec):
    """The spec whose document has what ``service.http.contract`` promises added."""

    def to_dict(self) -> dict[str, Any]:
        from service.http.contract import finish_document

        return finish_document(super().to_dict())


class ProblemApi(Api):
    """flask-smorest's Api answering every error with problem+json."""

    ERROR_SCHEMA = ProblemSchema

    def _init_spec(self, *args: Any, **kwargs: Any) -> None:
        super()._init_spec(*args, **kwargs)
        # flask-smorest builds a plain APISpec; ours finishes the document it serves and writes.
        self.spec.__class__ = FinishedSpec

    def _register_responses(self) -> None:
        """Document every error response as problem+json (flask-smorest says application/json)."""
        for status in http.HTTPStatus:
            response: dict[str, Any] = {"description": status.phrase}
            if not (100 <= status < 200) and status not in (204, 304):
                response["schema"] = self.ERROR_SCHEMA
            prepare_response(response, self.spec, PROBLEM_JSON)
            self.spec.components.response(status.name, response, lazy=True)
        response = {"description": "Default error response", "schema": self.ERROR_SCHEMA}
        prepare_response(response, self.spec, PROBLEM_JSON)
        self.spec.components.response("DEFAULT_ERROR", response, lazy=True)

    def _register_error_handlers(self) -> None:
        super()._register_error_handlers()
        self._app.register_error_handler(ServiceError, self.handle_service_error)
        for error in (redis.RedisError, RedisClusterException, StoreUnavailable):
            self._app.register_error_handler(error, self.handle_store_error)

    def handle_service_error(self, error: ServiceError) -> Response:
        extra = dict(error.extra)
        if extra.get("legal_commands") and extra.get("version") is not None:
            from service.http.games import postable

            extra["legal_commands"] = postable(extra["legal_commands"], extra["version"])
        if "errors" in extra:
            extra["errors"] = localize_all(extra["errors"])
        if isinstance(extra.get("details"), dict) and "fields" in extra["details"]:
            extra["details"] = {**extra["details"],
                                "fields": localize_all(extra["details"]["fields"])}
        response = problem(error.status, error.code, localize(error.title),
                           localize(error.detail), **extra)
        if "retry_after" in error.extra:
            response.headers["Retry-After"] = str(error.extra["retry_after"])
        return response

    def handle_store_error(self, error: Exception) -> Response:
        """Redis down, hung or refusing writes: 503 ``store_unavailable`` and one log line (an
        outage is not a bug, so no traceback per request); any other Redis error is a 500."""
        if not isinstance(error, StoreUnavailable) and "MISCONF" in str(error):
            # Redis itself refusing writes after a failed append-only file write.
            error = StoreUnavailable(f"the append-only file cannot be written ({error})")
        if isinstance(error, StoreUnavailable):
            reason, retry_after = error.reason, error.retry_after
            detail = Text("The game store accepts no writes now: {reason}.", reason=reason)
        elif is_outage(error):
            reason, retry_after = f"{type(error).__name__}: {error}", STORE_RETRY_AFTER
            detail = Text("The game store cannot be reached now.")
        else:
            current_app.log_exception(sys.exc_info())
            return self.handle_http_exception(InternalServerError())
        reason = " ".join(reason.split())  # one line, whatever Redis put in its message
        log.warning("store unavailable: %s %s: %s", request.method, request.path, reason)
        response = problem(503, "store_unavailable", localize(N_("Service unavailable")),
                           localize(Text("{detail} Retry after {retry_after} s.", detail=detail,
                                         retry_after=retry_after)), retry_after=retry_after)
        response.headers["Retry-After"] = str(retry_after)
        return response

    def handle_http_exception(self, error: HTTPException) -> Response:
        status = error.code or 500
        data = getattr(error, "data", None) or {}
        errors = data.get("errors") or data.get("messages")
        code = HTTP_CODES.get(status, "error")
        detail = data.get("message") or error.description or error.name
        if status in (400, 422) and errors is not None:
            status = 400  # a request that fails its schema is malformed, not a rule violation
            code = "malformed_json" if _is_json_error(errors) else "invalid_request"
            detail = N_("The request body is not valid JSON.") if code == "malformed_json" \
                else N_("The request does not match its schema.")
        response = problem(status, code,
                           localize(error.name if status == error.code else "Bad Request"),
                           localize(detail),
                           errors=None if errors is None else localize_all(errors))
        for name, value in (data.get("headers") or {}).items():
            response.headers[name] = value
        return response


def end_on_outage(stream: Iterator[str], what: str) -> Iterator[str]:
    """``stream`` (server-sent events), ended with one log line when the store goes away under
    it: the headers are sent, so no 503 now; the client reconnects with Last-Event-ID and gets
    the 503 until the store is back."""
    try:
        yield from stream
    except (redis.RedisError, RedisClusterException) as exc:
        if not is_outage(exc):
            raise
        log.warning("store unavailable: %s ended: %s: %s", what, type(exc).__name__,
                    " ".join(str(exc).split()))


def _is_json_error(errors: Any) -> bool:
    return isinstance(errors, dict) and errors.get("json") == ["Invalid JSON body."]
