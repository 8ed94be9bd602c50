"""The Blueprint every resource uses: malformed bodies answer 400, and errors are documented."""

from __future__ import annotations

import functools
import http
import inspect
import re
from collections.abc import Callable, Iterator
from typing import Any

import flask
import flask_smorest
import marshmallow as ma
import orjson
from webargs.flaskparser import FlaskParser, is_json_request

from service.app.errors import BadRequest, NotFound

# Game ids are 12 hex digits (service.app.application.new_game_id); anything outside this alphabet
# could break a Redis key's hash tag ("{", "}"), so such an id names no game.
GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


def check_game_id(endpoint: str | None, values: dict[str, Any] | None) -> None:
    """url_value_preprocessor: a ``game_id`` no game can have is 404 ``game_not_found``."""
    game_id = (values or {}).get("game_id")
    if game_id is not None and not GAME_ID.fullmatch(game_id):
        raise NotFound("game_not_found", "There is no such game.")


# No command, option set or request of ours nests anywhere near this deep; deeper JSON is
# refused as malformed before anything walks it (5,000 levels was a RecursionError 500).
MAX_JSON_DEPTH = 32


class BadRequestParser(FlaskParser):
    # A body that fails its schema is malformed (400); 422 is kept for rule violations.
    DEFAULT_VALIDATION_STATUS = 400

    def load_json(self, req: flask.Request, schema: Any) -> Any:
        """The JSON body, refused as malformed (400 ``malformed_json``) past MAX_JSON_DEPTH."""
        try:
            body = super().load_json(req, schema)
        except RecursionError:
            body = None
            depth = MAX_JSON_DEPTH + 1
        else:
            depth = json_depth(body)
        if depth > MAX_JSON_DEPTH:
            raise BadRequest("malformed_json",
                             "The request body nests deeper than {max} levels.",
                             params={"max": MAX_JSON_DEPTH})
        return body


def _walk(value: Any) -> Iterator[tuple[Any, int]]:
    """Every value in ``value`` with its depth (``value`` itself is at 1), without recursion;
    a list or object deeper than MAX_JSON_DEPTH is given but not walked into (refused anyway)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        yield item, depth
        children = item.values() if isinstance(item, dict) else \
            item if isinstance(item, list) else None
        if children is not None and depth <= MAX_JSON_DEPTH:
            stack.extend((child, depth + 1) for child in children)


def json_depth(value: Any) -> int:
    """How deeply ``value`` nests lists and objects (a scalar is 0)."""
    return max((depth for item, depth in _walk(value) if isinstance(item, dict | list)),
               default=0)


def plain_json(raw: bytes) -> Any:
    """``raw`` parsed as the parser would parse it, by orjson, or None when that is not sure to
    give the same: not JSON to orjson (a lone surrogate, NaN, a BOM...), a float anywhere
    (orjson reads an integer past 64 bits as one), or nesting past MAX_JSON_DEPTH."""
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    for item, depth in _walk(data):
        if type(item) is float or (depth > MAX_JSON_DEPTH and isinstance(item, dict | list)):
            return None
    return data


class Blueprint(flask_smorest.Blueprint):
    ARGUMENTS_PARSER = BadRequestParser()

    def arguments(self, schema: Any, location: str = "json", **kwargs: Any) -> Callable[[Any], Any]:
        """flask-smorest's ``arguments``, with a short way for a JSON body that loads: parsed
        by orjson and loaded by the schema, without webargs' walk (every move comes here,
        issue 13). Anything else (not JSON, not plain, failing the schema) takes webargs' way,
        which gives the same result for what the short way takes and its usual 400 for the
        rest; the documentation is webargs' in both cases."""
        documented = super().arguments(schema, location=location, **kwargs)
        if location != "json" or not isinstance(schema, ma.Schema) \
                or kwargs.keys() & {"validate", "unknown", "as_kwargs", "arg_name"}:
            return documented

        def decorator(func: Any) -> Any:
            parsed = documented(func)
            if inspect.iscoroutinefunction(func):
                return parsed

            @functools.wraps(parsed)
            def wrapper(*args: Any, **kw: Any) -> Any:
                body = _loaded(schema)
                if body is None:
                    return parsed(*args, **kw)
                return func(*args, body, **kw)  # as webargs passes it: after the view's self

            return wrapper
        return decorator

    def errors(self, *statuses: int) -> Callable[[Any], Any]:
        """Document the problem+json answers an endpoint may give; every one that reaches the
        store may also answer 503 ``store_unavailable`` (with Retry-After)."""
        def decorator(func: Any) -> Any:
            for status in sorted({*statuses, 503}):
                # alt_response only documents, through a wrapper that forwards each call: keep
                # its doc and drop the wrapper (eight calls fewer on every request).
                documented = self.alt_response(status, response=http.HTTPStatus(status).name)
                func._apidoc = documented(func)._apidoc
            return func
        return decorator


def _loaded(schema: ma.Schema) -> Any:
    """The request's JSON body loaded by ``schema``, or None to leave it to webargs."""
    request = flask.request._get_current_object()
    # The usual Content-Type said as is; anything else is parsed as webargs parses it.
    if request.environ.get("CONTENT_TYPE") != "application/json" \
            and not is_json_request(request):
        return None
    data = plain_json(request.get_data(cache=True))
    if data is None:
        return None
    try:
        return schema.load(data)
    except ma.ValidationError:
        return None


def sse_event_schema(id_: str, event: str, data: str) -> dict[str, Any]:
    """A text/event-stream body as OpenAPI 3.0 can describe it: text, one block of ``id``,
    ``event`` and ``data`` (JSON) lines per event. (An object schema here made generated
    clients parse the text as a JSON object, and crash: issue 26.)"""
    return {"type": "string", "description": (
        "Server-sent events, one block per event: `id: ` " + id_ + ", `event: ` " + event
        + ", `data: ` " + data + " on one line, then a blank line; `: ` lines are comments "
        "(keep-alives). A generated client cannot follow it live: use the long poll "
        "(`wait`) of the list beside it."),
        "example": "id: 42\nevent: your_type\ndata: {}\n\n"}
