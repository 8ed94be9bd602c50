"""The HTTP side of cursor pagination (service/app/paging.py): the RFC 8288 ``Link`` header, and
the body ``{items, next}`` a client asks for with ``envelope=true`` (issue 26 item 5)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from flask import request
from marshmallow import Schema

from service.http.wire import answer


def next_link(cursor_param: str, value: str | None) -> dict[str, str]:
    """The headers that point at the next page (none on the last): this request's URL with
    ``cursor_param`` set to ``value`` (and no ``offset``, which a cursor replaces)."""
    if value is None:
        return {}
    args = [(k, v) for k, v in request.args.items(multi=True)
            if k not in (cursor_param, "offset", "after")]
    query = urlencode([*args, (cursor_param, value)])
    return {"Link": f'<{request.path}?{query}>; rel="next"'}


def page_answer(rows: list[Any], schema: Schema, cursor_param: str, following: str | None,
                envelope: bool, headers: dict[str, str] | None = None) -> Any:
    """A page of a list: the bare list (what the endpoint always answered) with the next page
    in ``Link``; with ``envelope``, ``{items, next}`` (``next``: the next page's cursor, or
    null), dumped here through ``schema`` (a ``many`` schema) as the list would be."""
    headers = {**(headers or {}), **next_link(cursor_param, following)}
    if not envelope:
        return rows, 200, headers
    return answer({"items": schema.dump(rows), "next": following}, 200, headers)


# The headers as the OpenAPI document describes them.
NEXT_LINK = {"description": 'RFC 8288: `<URL of the next page>; rel="next"`, absent on the '
                            "last page", "schema": {"type": "string"}}
ETAG_OF_LIST = {"description": "A tag of this answer: send it in If-None-Match for a 304 while "
                               "nothing in it changed", "schema": {"type": "string"}}
