"""Every error leaves as RFC 9457 problem+json with our stable ``code``."""

from __future__ import annotations

import http
from typing import Any

import apispec
import marshmallow as ma
from flask import Response, json
from flask_smorest import Api
from flask_smorest.spec import prepare_response
from werkzeug.exceptions import HTTPException

from service.errors import ServiceError

PROBLEM_TYPE = "https://tablestream.dev/problems/"
PROBLEM_JSON = "application/problem+json"

# Stable codes for errors raised by Flask, werkzeug or webargs rather than by us.
HTTP_CODES = {400: "invalid_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
              405: "method_not_allowed", 406: "not_acceptable", 409: "conflict",
              413: "payload_too_large", 415: "unsupported_media_type", 422: "invalid_request",
              429: "rate_limited", 500: "internal_error"}


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
    retry_after = ma.fields.Integer(metadata={"description": "Seconds to wait (429)"})


def problem(status: int, code: str, title: str, detail: str, **extra: Any) -> Response:
    body = {"type": PROBLEM_TYPE + code, "title": title, "status": status, "detail": detail,
            "code": code, **{k: v for k, v in extra.items() if v is not None}}
    return Response(json.dumps(body), status=status, mimetype=PROBLEM_JSON)


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

    def handle_service_error(self, error: ServiceError) -> Response:
        extra = dict(error.extra)
        if extra.get("legal_commands") and extra.get("version") is not None:
            from service.http.games import postable

            extra["legal_commands"] = postable(extra["legal_commands"], extra["version"])
        response = problem(error.status, error.code, error.title, error.detail, **extra)
        if "retry_after" in error.extra:
            response.headers["Retry-After"] = str(error.extra["retry_after"])
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
            detail = "The request body is not valid JSON." if code == "malformed_json" \
                else "The request does not match its schema."
        response = problem(status, code, error.name if status == error.code else "Bad Request",
                           detail, errors=errors)
        for name, value in (data.get("headers") or {}).items():
            response.headers[name] = value
        return response


def _is_json_error(errors: Any) -> bool:
    return isinstance(errors, dict) and errors.get("json") == ["Invalid JSON body."]
