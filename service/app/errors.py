"""Errors the application layer raises, each with an HTTP status and a stable ``code``.

The HTTP layer turns them into RFC 9457 problem+json bodies; workers read the code.
"""

from __future__ import annotations

from typing import Any

from games.core import N_, Text


class ServiceError(Exception):
    """``detail`` is a message template over ``params`` (the catalogs extract it where it is
    written), said in the reader's language at the edge; ``extra`` goes into the body."""

    status = 400
    title = N_("Bad request")

    def __init__(self, code: str, detail: str, params: dict[str, Any] | None = None,
                 **extra: Any):
        text = detail if isinstance(detail, Text) else Text(detail, **(params or {}))
        super().__init__(str(text))
        self.code = code
        self.detail = text
        self.extra = extra


class BadRequest(ServiceError):
    status = 400
    title = N_("Malformed request")


class Unauthorized(ServiceError):
    status = 401
    title = N_("Authentication required")


class Forbidden(ServiceError):
    status = 403
    title = N_("Not allowed")


class NotFound(ServiceError):
    status = 404
    title = N_("Not found")


class Conflict(ServiceError):
    """The request clashes with the game's state (started, full, seats empty, ...)."""

    status = 409
    title = N_("Conflict")


class StaleVersion(Conflict):
    """The client decided against a version the game has moved past: re-read and retry."""

    title = N_("Version conflict")


class RuleViolation(ServiceError):
    status = 422
    title = N_("Rule violation")


class RequestTimedOut(ServiceError):
    status = 408
    title = N_("Request timeout")


class RateLimited(ServiceError):
    status = 429
    title = N_("Too many requests")
