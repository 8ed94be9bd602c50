"""The HTTP side of cursor pagination (service/app/paging.py): the RFC 8288 ``Link`` header."""

from __future__ import annotations

from urllib.parse import urlencode

from flask import request


def next_link(cursor_param: str, value: str | None) -> dict[str, str]:
    """The headers that point at the next page (none on the last): this request's URL with
    ``cursor_param`` set to ``value`` (and no ``offset``, which a cursor replaces)."""
    if value is None:
        return {}
    args = [(k, v) for k, v in request.args.items(multi=True)
            if k not in (cursor_param, "offset", "after")]
    query = urlencode([*args, (cursor_param, value)])
    return {"Link": f'<{request.path}?{query}>; rel="next"'}


# The headers as the OpenAPI document describes them.
NEXT_LINK = {"description": 'RFC 8288: `<URL of the next page>; rel="next"`, absent on the '
                            "last page", "schema": {"type": "string"}}
ETAG_OF_LIST = {"description": "A tag of this answer: send it in If-None-Match for a 304 while "
                               "nothing in it changed", "schema": {"type": "string"}}
