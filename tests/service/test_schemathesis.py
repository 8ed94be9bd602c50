"""Schemathesis against the live app (issue 9, item 8): every documented operation, with bounded
generated requests, answers no 5xx, matches its documented schema, and every 4xx is a
problem+json body.

The document is the generated one (`make openapi` writes the same); requests go to the Flask app
in-process over the real test Redis, authenticated as a player seated in real games, so game
routes reach real games as well as ids that name none.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error, response_schema_conformance

from service.http.openapi import openapi_dict
from service.runtime.problems import PROBLEM_JSON
from tests import unlimited
from tests.playing import play_randomly
from tests.service.conftest import Api

# What one server-sent event of each stream carries. The document describes a stream's body as
# text (all OpenAPI 3.0 can say, and what a generated client reads: issue 26); schemathesis
# reads a text/event-stream schema as each event's instead, so it is given those here.
EVENT_DATA = {"/v1/games/{game_id}/events/stream": "EventOut",
              "/v1/me/events/stream": "NoticeOut"}


def with_event_schemas(document: dict) -> dict:
    """``document`` with each stream's schema replaced by the schema of one of its events."""
    for path, data in EVENT_DATA.items():
        content = document["paths"][path]["get"]["responses"]["200"]["content"]
        content["text/event-stream"]["schema"] = {
            "type": "object", "required": ["id", "event", "data"], "properties": {
                "id": {"type": "string"}, "event": {"type": "string"},
                "data": {"type": "string", "contentMediaType": "application/json",
                         "contentSchema": {"$ref": f"#/components/schemas/{data}"}}}}
    return document


schema = schemathesis.openapi.from_dict(with_event_schemas(openapi_dict()))

MAX_EXAMPLES = 25
STREAM_SECONDS = 0.5  # event streams never end by themselves: read this long, then stop


@schemathesis.check
def client_errors_are_problem_json(ctx, response, case) -> bool | None:
    """Every 4xx is application/problem+json with its status and a stable code."""
    if not 400 <= response.status_code < 500:
        return None
    content_type = response.headers.get("content-type", [""])[0].split(";")[0]
    assert content_type == PROBLEM_JSON, f"{response.status_code} answered as {content_type}"
    body = response.json()
    assert body["status"] == response.status_code and body["code"], body
    return True


CHECKS = [not_a_server_error, response_schema_conformance, client_errors_are_problem_json]


@dataclass
class Table:
    api: Api
    headers: dict[str, str]
    games: list[str]  # open, running and finished games the player sits in
    finished: str


@pytest.fixture(scope="module")
def table(redis_url) -> Table:
    from service.http import create_app
    from service.runtime.config import Config

    # No rate limits, and the unlisted tally its tables are made of (tests/unlimited.py).
    api = Api(create_app(Config(redis_url=redis_url, workers_enabled=False,
                                sse_heartbeat_seconds=0.1, access_log=False,
                                long_poll_max_seconds=0.1, **unlimited.CONFIG)))
    headers = api.player("fuzz")
    service = api.service
    me = api.client.get("/v1/me", headers=headers).json["id"]

    def seated(game: str, seats: int = 3) -> str:
        """A started game of hosted ``game`` with the fuzzing player in seat 0."""
        game_id = service.create_game(me, game, {}, [{"kind": "human"}] * seats, join=True)
        for seat in range(1, seats):
            service.join(game_id, f"p_other{seat}", seat)
        service.start(game_id, me)
        return game_id

    open_game = service.create_game(me, "loot", {}, [{"kind": "human"}] * 3, join=True)
    finished = seated("faker_blue")
    play_randomly(service, finished, "fuzz")
    # Hosted games only: their legal commands are the document's AnyCommand.
    games = [open_game, seated("loot"), seated("maskmen", 4), seated("faker_blue"), finished]
    return Table(api, headers, games, finished)


def _pick(case, among: int, salt: str) -> int:
    """A number below ``among`` fixed by the generated request (so a failure replays)."""
    generated = repr((salt, case.path_parameters, case.query, case.body))
    return zlib.crc32(generated.encode()) % among


def _aim(case, table: Table) -> None:
    """Point a generated game id at a real game most of the time, or keep it (no such game)."""
    if not case.path_parameters or "game_id" not in case.path_parameters:
        return
    choice = _pick(case, len(table.games) + 1, "game")
    if case.path.endswith("/events/stream"):
        case.path_parameters["game_id"] = table.finished  # a finished game's stream ends
    elif choice < len(table.games):
        case.path_parameters["game_id"] = table.games[choice]


@schema.parametrize()
@settings(max_examples=MAX_EXAMPLES, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
def test_every_operation_answers_as_documented(case, table):
    _aim(case, table)
    # Mostly the seated player; one request in five as whoever schemathesis makes up (a
    # spectator, or a made-up bearer token).
    headers = table.headers if _pick(case, 5, "auth") else None
    case.call_and_validate(app=table.api.app, headers=headers, checks=CHECKS,
                           timeout=STREAM_SECONDS)
