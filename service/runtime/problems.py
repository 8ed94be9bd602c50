"""The names of problem+json answers, shared by the Flask app and the gunicorn worker.

Standard library only: gunicorn's master imports the worker class, and importing Flask (and
with it ssl) there, before gevent patches the workers, would make the patch unsafe.
"""

from __future__ import annotations

PROBLEM_TYPE = "https://tablestream.dev/problems/"
PROBLEM_JSON = "application/problem+json"

# Stable codes for errors raised by Flask, werkzeug, webargs or gunicorn rather than by us.
HTTP_CODES = {400: "invalid_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
              405: "method_not_allowed", 406: "not_acceptable", 408: "request_timeout",
              409: "conflict",
              413: "payload_too_large", 414: "uri_too_long", 415: "unsupported_media_type",
              417: "expectation_failed", 422: "invalid_request", 429: "rate_limited",
              431: "header_fields_too_large", 500: "internal_error", 501: "not_implemented"}
