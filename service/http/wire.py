"""The hot path's answers (a move, a game read) built without marshmallow (issue 13).

Dumping a game through ``GameOut`` walked every field of every seat, prompt and event through
marshmallow, then Flask encoded it with the stdlib; that was a fifth of a move's CPU. These
functions give the same members with the same conversions as the schemas in
service/http/schemas.py (which still document the answers: openapi.yaml is built from them), and
``answer`` encodes with orjson, keys sorted and compact as Flask's provider did. A test holds
each function equal to its schema's dump on real games (tests/service/test_wire.py).
"""

from __future__ import annotations

import json
from typing import Any

import orjson
from flask import Response

from service.http.i18n import localize, localize_lines

_OPTIONS = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS


def dumps(value: Any) -> bytes:
    """Compact JSON with sorted keys, as Flask's default provider writes it (an ``Encoded``
    part as it was encoded)."""
    try:
        return orjson.dumps(value, default=_embedded, option=_OPTIONS)
    except TypeError:  # orjson.JSONEncodeError: e.g. an integer beyond 64 bits
        return json.dumps(value, sort_keys=True, separators=(",", ":"),
                          default=_decoded).encode()


class Encoded:
    """A part of answers encoded once (as ``dumps`` encodes it) and embedded as is in each
    answer that carries it: a version's view and commands for a seat, kept as bytes while
    the version lasts rather than as a tree of dicts and lists, which Python's cyclic garbage
    collector walks at every pass (at 1,024 games, 0.3-0.9 ms of a move: issue 29)."""

    __slots__ = ("raw",)

    def __init__(self, value: Any):
        self.raw = dumps(value)


def _embedded(value: Any) -> Any:
    if isinstance(value, Encoded):
        return orjson.Fragment(value.raw)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def _decoded(value: Any) -> Any:
    if isinstance(value, Encoded):
        return json.loads(value.raw)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def answer(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    """``body`` as an application/json response (Content-Length set, one bytes body)."""
    return encoded_answer(dumps(body), status, headers)


def encoded_answer(body: bytes, status: int = 200,
                   headers: dict[str, str] | None = None) -> Response:
    """``answer`` of a body that ``dumps`` encoded already."""
    response = Response(body + b"\n", status=status, mimetype="application/json")
    if headers:
        response.headers.update(headers)
    return response


def _int(value: Any) -> int | None:
    return None if value is None else int(value)


def _str(value: Any) -> str | None:
    return None if value is None else str(value)


def _millis(seconds: Any) -> int | None:
    """schemas.UnixMillis: a time kept in seconds, sent as whole Unix milliseconds."""
    return None if seconds is None else round(float(seconds) * 1000)


def _seat_number(value: Any) -> int | None:
    """schemas.SeatNumber: "0", "1"... as integers, "system" (the platform) as null."""
    if value is None:
        return None
    return int(value) if isinstance(value, int) or str(value).isdigit() else None


def seat_out(seat: dict[str, Any]) -> dict[str, Any]:
    """schemas.SeatOut."""
    return {"seat": _int(seat["seat"]), "kind": _str(seat["kind"]),
            "player": _str(seat["player"]), "name": _str(seat["name"]),
            "level": _str(seat["level"]), "bot": _str(seat["bot"]),
            "timeouts": _int(seat["timeouts"])}


def prompt_out(prompt: dict[str, Any]) -> dict[str, Any]:
    """schemas.PromptOut."""
    return {"kinds": [str(kind) for kind in prompt["kinds"]], "since": _int(prompt["since"]),
            "clock": _str(prompt["clock"]), "label": localize(_str(prompt["label"])),
            "deadline": _millis(prompt["deadline"])}


def _result(result: dict[str, Any] | None) -> dict[str, Any] | None:
    """A result, its ``summary`` (a game's own sentence for how it ended) in the reader's
    language."""
    if not result or not result.get("summary"):
        return result
    return {**result, "summary": localize(result["summary"])}


def view_out(view: Any) -> Any:
    """A view, its ``summary`` (lines of text a game puts first for the terminal client) in the
    reader's language."""
    if not isinstance(view, dict) or not isinstance(view.get("summary"), list):
        return view
    return {**view, "summary": localize_lines(view["summary"])}


def game_out(body: dict[str, Any]) -> dict[str, Any]:
    """schemas.GameOut: a game as service.http.games.game_body describes it."""
    return {"id": _str(body["id"]), "game": _str(body["game"]),
            "version": _int(body["version"]), "status": _str(body["status"]),
            "rated": bool(body["rated"]), "options": body["options"],
            "seats": [seat_out(seat) for seat in body["seats"]],
            "you": _int(body["you"]), "view": view_out(body["view"]),
            "pending": {str(seat): prompt_out(prompt)
                        for seat, prompt in body["pending"].items()},
            "legal_commands": body["legal_commands"], "result": _result(body["result"]),
            "undo": body["undo"]}


def projection_out(game_id: str, projection: Any, viewer: Any, view: Any,
                   legal: list[dict[str, Any]], names: dict[str, str]) -> dict[str, Any]:
    """``game_out`` of the body service.http.games.game_body makes of ``projection``
    (GameService.describe, player ``names``, ``legal`` commands made postable), built from
    the projection in one pass."""
    data = projection.data
    return {"id": _str(game_id), "game": _str(data["game"]), "version": _int(data["version"]),
            "status": _str(data["status"]), "rated": bool(data.get("rated")),
            "options": projection.game.shown_options(data["options"]),
            "seats": [{"seat": index, "kind": _str(seat["kind"]),
                       "player": _str(seat.get("player")),
                       "name": _str(names.get(seat["player"])) if seat.get("player") else None,
                       "level": _str(seat.get("level")), "bot": _str(seat.get("bot")),
                       "timeouts": _int(seat.get("timeouts", 0))}
                      for index, seat in enumerate(data["seats"])],
            "you": viewer if isinstance(viewer, int) else None, "view": view_out(view),
            "pending": {str(seat): {"kinds": [str(kind) for kind in opened["kinds"]],
                                    "since": _int(opened["since"]),
                                    "clock": _str(opened.get("clock", "turn")),
                                    "label": localize(_str(opened.get("label", ""))),
                                    "deadline": _millis(projection.deadline(int(seat)))}
                        for seat, opened in data["opened"].items()},
            "legal_commands": legal, "result": _result(data.get("result")),
            "undo": data.get("undo")}


def event_out(event: dict[str, Any]) -> dict[str, Any]:
    """schemas.EventOut: an event as GameService.public_event gives it."""
    out = {"version": _int(event["version"]), "type": _str(event["type"]),
           "seat": _seat_number(event["seat"]), "at": _int(event["at"]),
           "data": event["data"]}
    if "redacted" in event:
        out["redacted"] = event["redacted"]
    if "command" in event:
        out["command"] = event["command"]
    return out


def event_page_out(body: dict[str, Any]) -> dict[str, Any]:
    """schemas.EventPage: a page of the log (a long read: 1,000 events through marshmallow
    were a third of its CPU, issue 23 item 5)."""
    return {"game": _str(body["game"]), "version": _int(body["version"]),
            "events": [event_out(event) for event in body["events"]],
            "next": _int(body["next"])}


def command_out(body: dict[str, Any]) -> dict[str, Any]:
    """schemas.CommandOut: a move's answer."""
    return {"version": _int(body["version"]),
            "events": [event_out(event) for event in body["events"]],
            "game": game_out(body["game"])}
