"""Cursor pagination (issue 26): every list pages by an opaque cursor that names the last item
of the page before, by the list's own stable order, so a page never repeats or skips an item
because others were added or removed before it (as an offset does).

A cursor is the sort key of that last item, JSON in URL-safe base64: the client passes it back
unread (``next`` in the body where the answer is an object, and always the RFC 8288 ``Link:
<...>; rel="next"`` header).
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from service.app.errors import BadRequest

T = TypeVar("T")


def encode_cursor(position: list[Any]) -> str:
    """The cursor of a position (a sort key)."""
    raw = json.dumps(position, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


INVALID = ("This cursor was not made by this list: pass back the `next` of the page before, "
           "unchanged.")
NUMBER = (int, float)
MAYBE_NUMBER = (int, float, type(None))


def decode_cursor(cursor: str | None,
                  shape: tuple[Any, ...] | None = None) -> list[Any] | None:
    """The position a cursor names (None for none); 400 ``invalid_cursor`` if it names none,
    or (given ``shape``, a type or tuple of types per part) not one of this list's."""
    if not cursor:
        return None
    try:
        position = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except (binascii.Error, ValueError, UnicodeDecodeError):
        position = None
    fits = isinstance(position, list) and bool(position) and (shape is None or (
        len(position) == len(shape) and all(
            _fits(part, kind) for part, kind in zip(position, shape, strict=True))))
    if not fits:
        raise BadRequest("invalid_cursor", INVALID)
    return position


def _fits(part: Any, kind: Any) -> bool:
    # JSON's true and false are ints to isinstance: a number part must be a real number.
    return isinstance(part, kind) and (kind is bool or not isinstance(part, bool))


def page_by_key(items: Iterable[T], key: Callable[[T], list[Any]], after: list[Any] | None,
                limit: int) -> tuple[list[T], str | None]:
    """The ``limit`` items after ``after`` in ascending ``key`` order, and the next cursor
    (None on the last page). ``key`` must be unique per item (end it with the item's id)."""
    ordered = sorted(items, key=lambda item: _comparable(key(item)))
    if after is not None:
        mark = _comparable(after)
        try:
            ordered = [item for item in ordered if _comparable(key(item)) > mark]
        except TypeError:  # a cursor of another list: its parts do not compare
            raise BadRequest("invalid_cursor", INVALID) from None
    page = ordered[:limit]
    more = len(ordered) > limit
    return page, encode_cursor(key(page[-1])) if more and page else None


def _comparable(position: list[Any]) -> tuple[Any, ...]:
    # JSON turns tuples into lists and keeps None: None sorts before any number.
    return tuple((0, 0) if part is None else (1, part) for part in position)
