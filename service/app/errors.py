"""Errors the application layer raises, each with an HTTP status and a stable ``code``.

The HTTP layer turns them into RFC 9457 problem+json bodies; workers read the code.
"""

from __future__ import annotations

from typing import Any


class ServiceError(Exception):
    status = 400
    title = "Bad request"

    def __init__(self, code: str, detail: str, **extra: Any):
        super().__init__(detail)
        self.code = code
        self.detail = detail
        self.extra = extra


class BadRequest(ServiceError):
    status = 400
    title = "Malformed request"


class Unauthorized(ServiceError):
    status = 401
    title = "Authentication required"


class Forbidden(ServiceError):
    status = 403
    title = "Not allowed"


class NotFound(ServiceError):
    status = 404
    title = "Not found"


class Conflict(ServiceError):
    """The request clashes with the game's state (started, full, seats empty, ...)."""

    status = 409
    title = "Conflict"


class StaleVersion(Conflict):
    """The client decided against a version the game has moved past: re-read and retry."""

    title = "Version conflict"


class RuleViolation(ServiceError):
    status = 422
    title = "Rule violation"


class RateLimited(ServiceError):
    status = 429
    title = "Too many requests"
