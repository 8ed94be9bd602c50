"""The short ways a request takes (issue 13) give what the long ways give."""

from __future__ import annotations

import json

import pytest

from service.http import App
from service.http.blueprint import MAX_JSON_DEPTH, plain_json


@pytest.mark.parametrize("raw", [
    b'{"type": "add", "amount": 1, "expected_version": 5}',
    b'{"a": [1, {"b": null}, true, "\\u00e9\\n"], "c": -9223372036854775808}',
    b'{"a": 1, "a": 2}',
    b'[]',
    b'"text"',
])
def test_a_plain_body_parses_as_the_stdlib_parses_it(raw):
    assert plain_json(raw) == json.loads(raw.decode())


@pytest.mark.parametrize("raw", [
    b'{"amount": 1.5}',  # a float: orjson reads an integer past 64 bits as one
    b'{"amount": 18446744073709551616}',
    b'{"amount": NaN}',
    b'{"name": "\\ud800"}',  # a lone surrogate
    b'\xef\xbb\xbf{}',  # a byte order mark
    b'{"type": ',
    b'',
    b'[' * (MAX_JSON_DEPTH + 1) + b']' * (MAX_JSON_DEPTH + 1),
])
def test_anything_else_is_left_to_the_parser(raw):
    assert plain_json(raw) is None


def test_a_command_the_short_way_refuses_gets_the_same_answer_the_long_way(api):
    """A float version goes through webargs and marshmallow (5.0 loads as 5): same move."""
    answers = []
    for suffix in ("", ".0"):
        game_id, (headers,) = api.table("tally", 1, {"target": 50})
        version = api.get(game_id)["version"]
        body = f'{{"type": "add", "amount": 2, "expected_version": {version}{suffix}}}'
        response = api.client.post(f"/v1/games/{game_id}/commands", data=body,
                                   headers={**headers, "Content-Type": "application/json"})
        assert response.status_code == 200, response.json
        answers.append(response.json)
    for answer in answers:
        answer["game"].pop("id")
        answer["game"]["seats"][0].pop("player")
        answer["game"]["seats"][0].pop("name")
        for event in answer["events"]:
            event.pop("at")
    assert answers[0] == answers[1]


def test_a_body_failing_its_schema_still_gets_the_schemas_400(api):
    game_id, (headers,) = api.table("tally", 1, {"target": 50})
    response = api.client.post(f"/v1/games/{game_id}/commands", headers=headers,
                               json={"type": "add", "amount": 1, "expected_version": -1})
    assert response.status_code == 400
    assert response.json["code"] == "invalid_request"
    assert "expected_version" in response.json["errors"]["json"]


def test_ensure_sync_remembers_only_what_it_asked_of_a_function(monkeypatch):
    app = App("t")
    monkeypatch.setattr(app, "async_to_sync", lambda func: ("wrapped", func))

    def plain():
        return None

    async def coroutine():
        return None

    class View:
        def get(self):
            return None

        async def post(self):
            return None

    for _ in range(2):  # asked, then remembered
        assert app.ensure_sync(plain) is plain
        assert app.ensure_sync(coroutine) == ("wrapped", coroutine)
        view = View()
        assert app.ensure_sync(view.get) == view.get
        assert app.ensure_sync(view.post) == ("wrapped", view.post)


def test_a_plain_command_does_not_go_through_webargs(api, monkeypatch):
    from service.http.blueprint import BadRequestParser

    game_id, (headers,) = api.table("tally", 1, {"target": 50})
    version = api.get(game_id)["version"]

    def refuse(*args, **kwargs):
        raise AssertionError("webargs parsed a plain command")

    monkeypatch.setattr(BadRequestParser, "parse", refuse)
    response = api.send(game_id, headers, {"type": "add", "amount": 1}, version)
    assert response.status_code == 200, response.json


def test_the_access_log_line_is_written_as_its_handler_writes_it(api):
    import io
    import logging

    from service.http import observability

    assert observability._own is not None, "the access log has its own handler"
    handler, _ = observability._own
    logger = logging.getLogger(observability.ACCESS_LOGGER)
    stream = io.StringIO()
    previous = handler.setStream(stream)
    try:
        api.client.get("/v1/games/catalog", headers={"X-Request-ID": "short-way"})
        logger.addFilter(lambda record: "long-way" not in record.getMessage())
        try:
            api.client.get("/v1/games/catalog", headers={"X-Request-ID": "long-way"})
            api.client.get("/v1/games/catalog", headers={"X-Request-ID": "filtered-in"})
        finally:
            logger.filters.clear()
    finally:
        handler.setStream(previous)
    lines = stream.getvalue().split("\n")
    assert lines[-1] == ""
    assert [json.loads(line)["request_id"] for line in lines[:-1]] == ["short-way",
                                                                        "filtered-in"]


def test_a_new_request_id_is_a_random_uuid():
    import uuid

    from service.http.observability import new_request_id

    ids = {new_request_id() for _ in range(100)}
    assert len(ids) == 100
    for rid in ids:
        parsed = uuid.UUID(hex=rid)
        assert parsed.version == 4 and parsed.variant == uuid.RFC_4122 and parsed.hex == rid
