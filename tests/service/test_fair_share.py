"""One player cannot slow down another (issue 23 items 4, 5 and 7): live streams are capped per
address, per player and per process with a reserve for signed-in players; reads are paid for by
the events they read; bots' think time and bot-only games per player are capped. Each refusal is
a 429 (or 400) problem with a stable code, answered before the work."""

from __future__ import annotations

import json
import uuid

import pytest

from service.app.errors import RateLimited
from service.app.limiter import ReadBudget, StreamSlots
from tests.service.conftest import Api


def _address() -> str:
    """A client address of this test's own: the caps' counts live in the shared Redis."""
    return f"fd00:{uuid.uuid4().hex[:4]}:{uuid.uuid4().hex[:4]}::1"  # an IPv6 /64 of its own


def _refused(response, status: int, code: str) -> None:
    assert response.status_code == status, response.json
    assert response.mimetype == "application/problem+json"
    assert response.json["code"] == code
    if status == 429:
        assert int(response.headers["Retry-After"]) >= 1


def _stream(api: Api, game_id: str, address: str, headers=None):
    return api.client.get(f"/v1/games/{game_id}/events/stream", headers=headers or {},
                          environ_base={"REMOTE_ADDR": address}, buffered=False)


def _close(responses) -> None:
    """Close streams last opened first (Flask's test client stacks their request contexts)."""
    for response in reversed(responses):
        response.close()


# --- streams (item 4) ---------------------------------------------------------------------------

def test_tokenless_streams_from_one_address_are_capped(make_app):
    api = Api(make_app(limits={"streams_per_address": 2}))
    game_id, _ = api.table("tally", 1)
    address = _address()
    held = [_stream(api, game_id, address) for _ in range(2)]
    assert [r.status_code for r in held] == [200, 200]
    _refused(_stream(api, game_id, address), 429, "too_many_streams")
    held.append(_stream(api, game_id, _address()))  # another address
    assert held[-1].status_code == 200
    _close(held)


def test_a_closed_stream_gives_its_slot_back(make_app):
    api = Api(make_app(limits={"streams_per_address": 1}))
    game_id, _ = api.table("tally", 1)
    address = _address()
    _stream(api, game_id, address).close()
    again = _stream(api, game_id, address)
    assert again.status_code == 200
    again.close()


def test_a_stream_refused_by_its_game_gives_its_slot_back(make_app):
    api = Api(make_app(limits={"streams_per_address": 1}))
    game_id, _ = api.table("tally", 1)
    address = _address()
    assert _stream(api, game_id[:-1] + "0" if game_id[-1] != "0" else game_id[:-1] + "1",
                   address).status_code == 404
    held = _stream(api, game_id, address)
    assert held.status_code == 200
    held.close()


def test_streams_per_player_are_capped_whatever_the_address(make_app):
    api = Api(make_app(limits={"streams_per_player": 1}))
    game_id, players = api.table("tally", 1)
    held = _stream(api, game_id, _address(), players[0])
    assert held.status_code == 200
    _refused(_stream(api, game_id, _address(), players[0]), 429, "too_many_streams")
    _refused(api.client.get("/v1/me/events/stream", headers=players[0], buffered=False), 429,
             "too_many_streams")
    other = _stream(api, game_id, _address(), api.player("bo"))
    assert other.status_code == 200
    _close([held, other])


def test_a_long_poll_takes_a_stream_slot_while_it_waits_and_a_plain_read_does_not(make_app):
    """A long poll (issue 26) holds a connection as long as a stream: it counts against the
    same cap, else many long polls would fill the workers that many streams may not."""
    api = Api(make_app(limits={"streams_per_address": 1}))
    game_id, _ = api.table("tally", 1)
    address = _address()
    version = api.client.get(f"/v1/games/{game_id}").json["version"]
    poll = f"/v1/games/{game_id}/events?after={version}&wait=1"
    waited = api.client.get(poll, environ_base={"REMOTE_ADDR": address})
    assert waited.status_code == 200 and waited.json["events"] == []
    held = _stream(api, game_id, address)  # the long poll gave its slot back
    assert held.status_code == 200
    _refused(api.client.get(poll, environ_base={"REMOTE_ADDR": address}), 429,
             "too_many_streams")
    plain = api.client.get(f"/v1/games/{game_id}/events", environ_base={"REMOTE_ADDR": address})
    assert plain.status_code == 200
    held.close()


def test_signed_in_players_keep_a_reserve_when_tokenless_streams_fill_a_process(make_app):
    api = Api(make_app(limits={"anonymous_streams_per_process": 2}))
    game_id, players = api.table("tally", 1)
    held = [_stream(api, game_id, _address()) for _ in range(2)]
    _refused(_stream(api, game_id, _address()), 429, "too_many_streams")
    mine = _stream(api, game_id, _address(), players[0])
    assert mine.status_code == 200
    _close([*held, mine])


def _stream_request(game_id: str, *fields: str, query: str = "") -> bytes:
    """A game's stream asked for as a client's first bytes on a new connection."""
    head = f"GET /v1/games/{game_id}/events/stream{query} HTTP/1.1\r\nHost: t\r\n"
    return (head + "".join(f"{field}\r\n" for field in fields) + "\r\n").encode()


def _answer(raw: bytes) -> tuple[int, dict[str, str], dict]:
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {name.lower(): value for name, value in (line.split(": ", 1) for line in lines[1:])}
    assert int(headers["content-length"]) == len(body)
    return int(lines[0].split()[1]), headers, json.loads(body)


def test_an_address_refused_a_moment_ago_is_refused_from_its_first_bytes(make_app):
    """The web worker asks before parsing (service.http.early_refusal): the answer is the
    app's own 429, whole, and only for a tokenless stream this process already refuses."""
    app = make_app(limits={"streams_per_address": 1})
    api = Api(app)
    game_id, players = api.table("tally", 1)
    early = app.extensions["tablestream.early_refusal"]
    address = _address()
    request = _stream_request(game_id, "Accept: text/event-stream")
    assert early.answer(address, request) is None  # nothing refused yet: the app decides
    held = _stream(api, game_id, address)
    refused = _stream(api, game_id, address)
    _refused(refused, 429, "too_many_streams")
    length, raw = early.answer(address, request + b"GET /next")
    assert length == len(request)
    status, headers, body = _answer(raw)
    assert (status, headers["content-type"], headers["connection"]) == (
        429, "application/problem+json", "close")
    assert headers["retry-after"] == refused.headers["Retry-After"]
    assert body == refused.json
    _, korean_headers, korean = _answer(
        early.answer(address, _stream_request(game_id, "Accept-Language: ko"))[1])
    assert korean_headers["content-language"] == "ko"
    assert korean["code"] == body["code"] and korean["title"] != body["title"]  # translated
    for not_refused_early in (
            _stream_request(game_id, "Authorization: Bearer whatever"),  # a player's own slots
            _stream_request(game_id, query="?views=true&access_token=whatever"),
            request[:-2],  # not all sent yet
            request.replace(b"GET", b"HEAD", 1),
            _stream_request(game_id).replace(b"/events/stream", b"/events"),  # a plain read
            _stream_request(game_id, "Content-Length: 3")):
        assert early.answer(address, not_refused_early) is None
    assert early.answer(_address(), request) is None  # another address
    events = _stream_request(game_id).replace(b"/events/stream", b"/events")
    long_poll = events.replace(b"/events", b"/events?after=1&wait=5", 1)
    assert _answer(early.answer(address, long_poll)[1])[2]["code"] == "too_many_streams"
    assert early.answer(address, long_poll.replace(b"wait=5", b"wait=0")) is None
    mine = _stream(api, game_id, address, players[0])
    assert mine.status_code == 200
    _close([held, mine])


def test_tokenless_streams_are_capped_per_ipv6_64_in_the_app_and_the_web_worker(make_app):
    app = make_app(limits={"streams_per_address": 1, "connections_per_address": 5})
    api = Api(app)
    game_id, _ = api.table("tally", 1)
    network = f"fd00:{uuid.uuid4().hex[:4]}:{uuid.uuid4().hex[:4]}:{uuid.uuid4().hex[:4]}"
    held = _stream(api, game_id, f"{network}::1")
    assert held.status_code == 200
    _refused(_stream(api, game_id, f"{network}:1:2:3:4"), 429, "too_many_streams")
    early = app.extensions["tablestream.early_refusal"]
    status, _, body = _answer(early.answer(f"{network}::99", _stream_request(game_id))[1])
    assert (status, body["code"]) == (429, "too_many_streams")
    limits = app.extensions["tablestream.connection_limits"]
    assert limits.counted_as(f"{network}::1") == limits.counted_as(f"{network}::2") \
        != limits.counted_as(_address())
    held.close()


def test_a_process_whose_tokenless_streams_are_all_taken_refuses_them_from_their_first_bytes(
        make_app):
    app = make_app(limits={"anonymous_streams_per_process": 1})
    api = Api(app)
    game_id, _ = api.table("tally", 1)
    early = app.extensions["tablestream.early_refusal"]
    assert early.answer(_address(), _stream_request(game_id)) is None
    held = _stream(api, game_id, _address())
    status, _, body = _answer(early.answer(_address(), _stream_request(game_id))[1])
    assert (status, body["code"]) == (429, "too_many_streams")
    held.close()
    assert early.answer(_address(), _stream_request(game_id)) is None


def test_behind_trusted_proxies_nothing_is_refused_before_parsing(make_app):
    """The connection's address is then a proxy's: only the app, reading X-Forwarded-For,
    knows whose stream it is."""
    assert "tablestream.early_refusal" not in make_app(
        limits={"trusted_proxies": 1}).extensions


def test_behind_trusted_proxies_no_address_is_capped_but_late_bodies_still_are(make_app):
    """Every connection then comes from a proxy's address: capping it would cap everyone
    (the proxy's own limits apply), while a late body is late whoever sent it."""
    proxied = make_app(limits={"trusted_proxies": 1, "connections_per_address": 5})
    limits = proxied.extensions["tablestream.connection_limits"]
    assert (limits.per_address, limits.body_seconds) == (0, 10.0)
    direct = make_app(limits={"connections_per_address": 5})
    assert direct.extensions["tablestream.connection_limits"].per_address == 5


def test_the_worker_answers_are_the_apps_problems_in_the_callers_language(make_app):
    limits = make_app(limits={"connections_per_address": 5}).extensions[
        "tablestream.connection_limits"]
    status, headers, body = _answer(limits.too_many(
        b"POST /v1/players HTTP/1.1\r\nAccept-Language: ko-KR\r\n\r\n"))
    assert (status, body["code"], headers["retry-after"]) == (429, "too_many_connections", "10")
    assert headers["content-language"] == "ko" and "5" in body["detail"]
    status, headers, body = _answer(limits.late_body(None))
    assert (status, body["code"], headers["content-language"]) == (408, "request_timeout", "en")
    assert body["detail"] == "The request body did not arrive within 10 s."


def test_the_lease_of_a_stream_whose_process_died_runs_out(redis_client):
    now = [1000.0]
    slots = StreamSlots(redis_client, per_address=1, per_player=1, per_process=0,
                        anonymous_per_process=0, lease_seconds=60, clock=lambda: now[0])
    address = _address()
    slots.take(None, address)  # never released: its process was killed
    other = StreamSlots(redis_client, per_address=1, per_player=1, per_process=0,
                        anonymous_per_process=0, lease_seconds=60, clock=lambda: now[0])
    with pytest.raises(RateLimited) as refused:
        other.take(None, address)
    assert refused.value.code == "too_many_streams"
    now[0] += 61
    other.take(None, address).release()


def test_a_stream_renews_its_lease_after_writing_a_chunk_not_between_the_chunk_and_its_write():
    """The renewal is a Redis round trip that waits its turn for a connection (a second
    behind the moves at 1,024 games): made between taking a chunk and handing it to the
    writer, it held up that push (issue 29)."""
    from service.app.limiter import HeldStream

    happened: list[str] = []

    class Slot:
        def renew_if_due(self) -> None:
            happened.append("renew")

        def release(self) -> None:
            happened.append("release")

    def stream():
        for chunk in (b"a", b"b"):
            happened.append(f"made {chunk.decode()}")
            yield chunk

    held = HeldStream(Slot(), stream())  # type: ignore[arg-type]
    assert next(held) == b"a" and happened[-1] == "made a"  # handed on at once
    assert next(held) == b"b" and happened == ["renew", "made a", "renew", "made b"]
    with pytest.raises(StopIteration):
        next(held)
    assert happened[-1] == "release"


# --- reads by cost (item 5) ---------------------------------------------------------------------

def _long_game(api: Api, moves: int) -> tuple[str, list]:
    game_id, players = api.table("tally", 1, {"target": 10_000})
    version = api.get(game_id)["version"]
    for _ in range(moves):
        version = api.send(game_id, players[0], {"type": "add", "amount": 1}, version).json[
            "version"]
    return game_id, players


def test_a_long_read_is_paid_for_by_its_events_and_refused_past_the_budget(make_app):
    api = Api(make_app(limits={"read_units_per_second": 1, "read_units_burst": 50}))
    game_id, players = _long_game(api, 40)
    address = _address()

    def read(headers=None):
        return api.client.get(f"/v1/games/{game_id}/events?limit=1000", headers=headers or {},
                              environ_base={"REMOTE_ADDR": address})

    assert read().status_code == 200  # 1 + 40-odd events: most of the 50
    _refused(read(), 429, "read_budget_exceeded")
    # A signed-in player reads from a budget of their own.
    assert read(players[0]).status_code == 200


def test_short_reads_cost_little(make_app):
    api = Api(make_app(limits={"read_units_per_second": 1, "read_units_burst": 50}))
    game_id, _ = _long_game(api, 40)
    address = _address()
    pages = [api.client.get(f"/v1/games/{game_id}/events?limit=2",
                            environ_base={"REMOTE_ADDR": address}).status_code
             for _ in range(10)]
    assert pages == [200] * 10  # 3 units each


def test_the_audit_costs_its_whole_transcript(make_app):
    api = Api(make_app(limits={"read_units_per_second": 1, "read_units_burst": 60}))
    game_id, players = api.table("tally", 1, {"target": 40})
    api.play_to_end(game_id, players)
    address = _address()

    def audit():
        return api.client.get(f"/v1/games/{game_id}/audit",
                              environ_base={"REMOTE_ADDR": address})

    assert audit().status_code == 200
    _refused(audit(), 429, "read_budget_exceeded")


def test_a_read_budget_refills_with_time(redis_client):
    now = [5000.0]
    budget = ReadBudget(redis_client, (10, 100), (10, 100), clock=lambda: now[0])
    address = _address()
    budget.charge(100, None, address)
    with pytest.raises(RateLimited) as refused:
        budget.charge(50, None, address)
    assert refused.value.code == "read_budget_exceeded"
    assert refused.value.extra["retry_after"] == 5
    now[0] += 5
    budget.charge(50, None, address)


# --- bots (item 7) ------------------------------------------------------------------------------

def test_a_think_time_over_the_servers_cap_is_refused(make_app):
    api = Api(make_app(limits={"max_think_ms": 2000}))
    response = api.client.post("/v1/games", headers=api.player(), json={
        "game": "magblast", "seats": [{"kind": "bot", "level": "expert", "think_ms": 5000}] * 2})
    _refused(response, 400, "think_time_too_long")
    assert response.json["details"]["max_think_ms"] == 2000


def test_bot_only_games_per_player_are_capped(make_app):
    api = Api(make_app(limits={"bot_games_per_player": 1}))
    host = api.player()
    # No worker plays here, so the games stay running; a small target all the same, so that a
    # later test's `serve`, whose workers sweep this shared database, finishes them quickly.
    bots = {"game": "tally", "options": {"target": 100},
            "seats": [{"kind": "bot", "level": "random"}] * 2}
    assert api.client.post("/v1/games", headers=host, json=bots).status_code == 201
    _refused(api.client.post("/v1/games", headers=host, json=bots), 429, "too_many_bot_games")
    # A game with a human seat plays at a human's pace: not counted.
    assert api.create(host, "tally", [{"kind": "human"}, {"kind": "bot", "level": "random"}])
    assert api.client.post("/v1/games", headers=api.player("bo"), json=bots).status_code == 201


def test_a_finished_bot_only_game_frees_its_place(make_app):
    api = Api(make_app(limits={"bot_games_per_player": 1}))
    host = api.player()
    first = api.client.post("/v1/games", headers=host, json={
        "game": "tally", "options": {"target": 3}, "seats": [{"kind": "bot", "level": "random"}]
        * 2}).json["id"]
    tablestream = api.app.extensions["tablestream"]
    # No worker here: play the bots' turns in-process until the game ends.
    while api.service.projection(first).status == "running":
        projection = api.service.projection(first)
        seat, prompt = next(iter(projection.opened.items()))
        api.service.bot_move(first, int(seat), prompt["since"])
    assert tablestream.bot_games.running(api.app.extensions["tablestream"].accounts
                                         .authenticate(host["Authorization"][7:])["id"]) == []
    assert api.client.post("/v1/games", headers=host, json={
        "game": "tally", "seats": [{"kind": "bot", "level": "random"}] * 2}).status_code == 201
