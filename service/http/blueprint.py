"""The Blueprint every resource uses: malformed bodies answer 400, and errors are documented."""

from __future__ import annotations

import http
from collections.abc import Callable
from typing import Any

import flask_smorest
from webargs.flaskparser import FlaskParser


class BadRequestParser(FlaskParser):
    # A body that fails its schema is malformed (400); 422 is kept for rule violations.
    DEFAULT_VALIDATION_STATUS = 400


class Blueprint(flask_smorest.Blueprint):
    ARGUMENTS_PARSER = BadRequestParser()

    def errors(self, *statuses: int) -> Callable[[Any], Any]:
        """Document the problem+json answers an endpoint may give; every one that reaches the
        store may also answer 503 ``store_unavailable`` (with Retry-After)."""
        def decorator(func: Any) -> Any:
            for status in sorted({*statuses, 503}):
                func = self.alt_response(status, response=http.HTTPStatus(status).name)(func)
            return func
        return decorator
