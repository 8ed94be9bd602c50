"""The Blueprint every resource uses: malformed bodies answer 400, and errors are documented."""

from __future__ import annotations

import http
from collections.abc import Callable
from typing import Any

import flask_smorest
from webargs.flaskparser import FlaskParser
from werkzeug.routing import BaseConverter

# Game ids are 12 hex digits (service.application.new_game_id); anything outside this alphabet
# could break a Redis key's hash tag ("{", "}"), so such a path is simply not a game (404).
GAME_ID_PATTERN = "[A-Za-z0-9_-]{1,64}"


class GameIdConverter(BaseConverter):
    """``<game_id:game_id>`` in a route: only ids a game may have reach a handler."""

    regex = GAME_ID_PATTERN


def game_id_parameter(converter: GameIdConverter) -> dict[str, Any]:
    """The path parameter's schema in the OpenAPI document."""
    return {"type": "string", "pattern": f"^{GAME_ID_PATTERN}$"}


class BadRequestParser(FlaskParser):
    # A body that fails its schema is malformed (400); 422 is kept for rule violations.
    DEFAULT_VALIDATION_STATUS = 400


class Blueprint(flask_smorest.Blueprint):
    ARGUMENTS_PARSER = BadRequestParser()

    def errors(self, *statuses: int) -> Callable[[Any], Any]:
        """Document the problem+json answers an endpoint may give."""
        def decorator(func: Any) -> Any:
            for status in statuses:
                func = self.alt_response(status, response=http.HTTPStatus(status).name)(func)
            return func
        return decorator
