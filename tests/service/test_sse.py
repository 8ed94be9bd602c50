"""Live events as server-sent events, resumable by Last-Event-ID."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator

from tests import unlimited


def sse_blocks(chunks: Iterator[bytes | str]) -> Iterator[dict]:
    """Parse SSE events from a streaming test-client response's chunks (comments skipped)."""
    buffer = ""
    for chunk in chunks:
        buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
        while "\n\n" in buffer:
            block, buffer = buffer.split("\n\n", 1)
            fields = dict(line.split(": ", 1) for line in block.splitlines()
                          if not line.startswith(":"))
            if fields:
                ident = fields.get("id")  # a version, or a notice's stream id
                yield {"id": int(ident) if ident and ident.isdigit() else ident,
                       "event": fields["event"], "data": json.loads(fields["data"])}


def _read_events(response, count: int, until: str | None = None) -> list[dict]:
    """Parse ``count`` SSE events (or up to the first of type ``until``) from a streaming
    test-client response."""
    events = []
    for event in sse_blocks(response.response):
        events.append(event)
        if len(events) == count or (until and event["event"] == until):
            break
    return events


def test_stream_resumes_after_last_event_id_without_gaps(api):
    game_id, players = api.table("tally", 1, {"target": 100})
    for _ in range(3):
        version = api.get(game_id)["version"]
        api.send(game_id, players[0], {"type": "add", "amount": 1}, version)
    response = api.client.get(f"/v1/games/{game_id}/events/stream",
                              headers={**players[0], "Last-Event-ID": "2"}, buffered=False)
    assert response.mimetype == "text/event-stream"
    events = _read_events(response, 4)
    response.close()
    assert [e["id"] for e in events] == [3, 4, 5, 6]
    assert all(e["data"]["version"] == e["id"] for e in events)


def test_stream_delivers_a_move_made_while_listening(api):
    game_id, players = api.table("tally", 1, {"target": 100})
    version = api.get(game_id)["version"]
    response = api.client.get(f"/v1/games/{game_id}/events/stream?last_event_id={version}",
                              headers=players[0], buffered=False)
    api.send(game_id, players[0], {"type": "add", "amount": 2}, version)
    events = _read_events(response, 1)
    response.close()
    assert events[0]["id"] == version + 1
    assert events[0]["event"] == "added"
    assert events[0]["data"]["data"] == {"seat": 0, "amount": 2}


def test_stream_of_a_finished_game_ends_after_its_last_event(api):
    game_id, players = api.table("tally", 1, {"target": 1})
    version = api.get(game_id)["version"]
    api.send(game_id, players[0], {"type": "add", "amount": 1}, version)
    response = api.client.get(f"/v1/games/{game_id}/events/stream?last_event_id=0",
                              headers=players[0], buffered=False)
    events = _read_events(response, 1000)
    assert events[-1]["event"] == "seed_revealed"
    assert [e["id"] for e in events] == list(range(1, len(events) + 1))


def test_idle_stream_outlives_the_socket_timeout_with_the_production_heartbeat(redis_url):
    # issue 9 item 1: redis-py 8's default 5 s socket timeout cut XREAD BLOCK 15000, so an
    # idle stream died before its first keep-alive. The production heartbeat, not 0.2 s.
    from service.http import create_app
    from service.runtime.config import Config
    from tests.service.conftest import Api

    config = Config(redis_url=redis_url, workers_enabled=False, **unlimited.CONFIG)
    assert config.sse_heartbeat_seconds == Config().sse_heartbeat_seconds == 15.0
    idle_stream_keeps_alive_then_carries_a_move(Api(create_app(config)))


def idle_stream_keeps_alive_then_carries_a_move(api) -> None:
    """An idle game stream sends a keep-alive after a whole heartbeat, then the next move."""
    game_id, players = api.table("tally", 1, {"target": 100})
    version = api.get(game_id)["version"]
    response = api.client.get(f"/v1/games/{game_id}/events/stream?last_event_id={version}",
                              headers=players[0], buffered=False)
    chunks = iter(response.response)
    try:
        assert next(chunks) == b": connected\n\n"
        # Only a block that lasted the whole heartbeat ends in a keep-alive.
        assert next(chunks) == b": keep-alive\n\n"
        assert api.send(game_id, players[0], {"type": "add", "amount": 1},
                        version).status_code == 200
        assert next(chunks).startswith(f"id: {version + 1}\nevent: added\n".encode())
    finally:
        response.close()


def test_idle_notice_stream_outlives_the_socket_timeout_with_the_production_heartbeat(
        redis_url):
    # The account-wide stream blocks in XREAD too (issue 9 item 1).
    from service.http import create_app
    from service.runtime.config import Config
    from tests.service.conftest import Api

    api = Api(create_app(Config(redis_url=redis_url, workers_enabled=False,
                                **unlimited.CONFIG)))
    game_id, players = api.table("tally", 1, {"target": 100})
    version = api.get(game_id)["version"]
    response = api.client.get("/v1/me/events/stream", headers=players[0], buffered=False)
    chunks = iter(response.response)
    try:
        assert next(chunks) == b": connected\n\n"
        assert next(chunks) == b": keep-alive\n\n"
        assert api.send(game_id, players[0], {"type": "add", "amount": 1},
                        version).status_code == 200
        assert b"event: your_turn\n" in next(chunks)
    finally:
        response.close()


def test_with_views_a_seat_learns_of_the_others_move_and_its_new_choices(api):
    game_id, players = api.table("loot", 2)
    seat = int(sorted(api.get(game_id)["pending"])[0])
    other = players[1 - seat]
    response = api.client.get(f"/v1/games/{game_id}/events/stream?views=true", headers=other,
                              buffered=False)
    mine = api.get(game_id, players[seat])
    api.client.post(f"/v1/games/{game_id}/commands", headers=players[seat],
                    json=mine["legal_commands"][0])
    events = _read_events(response, 12, until="game")
    response.close()
    picture = events[-1]
    assert picture["event"] == "game" and picture["id"] is None
    assert picture["data"] == api.get(game_id, other)
    assert picture["data"]["version"] == max(e["id"] for e in events[:-1])


def test_with_views_the_pictures_clock_deadline_is_in_unix_ms_as_get_gives_it(api):
    game_id, players = api.table("tally", 2, {"target": 50, "turn_seconds": 60})
    seat = int(next(iter(api.get(game_id)["pending"])))
    other = players[1 - seat]
    response = api.client.get(f"/v1/games/{game_id}/events/stream?views=true", headers=other,
                              buffered=False)
    version = api.get(game_id)["version"]
    assert api.send(game_id, players[seat], {"type": "add", "amount": 1},
                    version).status_code == 200
    events = _read_events(response, 12, until="game")
    response.close()
    picture = events[-1]["data"]
    deadline = picture["pending"][str(1 - seat)]["deadline"]
    assert isinstance(deadline, int) and deadline > 10**12  # ms, not seconds
    assert picture == api.get(game_id, other)


def _stream_end_after(response, limit: float) -> tuple[float, bytes]:
    """Read a streaming response to its end, or for ``limit`` seconds (its keep-alives come
    every heartbeat): the seconds it took and its last chunk."""
    import time

    started, last = time.monotonic(), b""
    for chunk in response.response:
        last = chunk if isinstance(chunk, bytes) else chunk.encode()
        if time.monotonic() - started > limit:
            response.close()
            break
    return time.monotonic() - started, last


def test_a_token_revoked_on_another_process_ends_its_open_game_stream(make_app, api):
    """Issue 23 item 10: within STREAM_TOKEN_SECONDS of a revocation elsewhere the stream ends
    (it delivered the seat's cards for as long as it stayed open); another token's stream of
    the same seat goes on past its checks."""
    import threading

    from service.http.stream_auth import STREAM_TOKEN_SECONDS, TOKEN_ENDED
    from tests.service.conftest import Api

    other_process = Api(make_app())
    game_id, players = api.table("tally", 1, {"target": 1000})
    phone = api.client.post("/v1/me/tokens", headers=players[0], json={"name": "phone"}).json
    version = api.get(game_id)["version"]
    kept: list[dict] = []

    def follow_with_the_default_token():  # its own thread: one open stream per thread
        response = api.client.get(f"/v1/games/{game_id}/events/stream", headers=players[0],
                                  buffered=False)
        kept.extend(_read_events(response, 1))
        response.close()

    follower = threading.Thread(target=follow_with_the_default_token, daemon=True)
    follower.start()
    doomed = api.client.get(f"/v1/games/{game_id}/events/stream",
                            headers={"Authorization": f"Bearer {phone['token']}"},
                            buffered=False)
    assert other_process.client.delete(f"/v1/me/tokens/{phone['id']}",
                                       headers=players[0]).status_code == 204
    took, last = _stream_end_after(doomed, STREAM_TOKEN_SECONDS + 1)
    assert took <= STREAM_TOKEN_SECONDS + 1 and last == TOKEN_ENDED
    other_process.send(game_id, players[0], {"type": "add", "amount": 1}, version)
    follower.join(timeout=STREAM_TOKEN_SECONDS)
    assert [e["id"] for e in kept] == [version + 1]


def test_a_rotated_token_ends_its_open_notice_stream(make_app, api):
    from service.http.stream_auth import STREAM_TOKEN_SECONDS, TOKEN_ENDED
    from tests.service.conftest import Api

    other_process = Api(make_app())
    headers = api.player("ann")
    tablet = api.client.post("/v1/me/tokens", headers=headers, json={"name": "tablet"}).json
    stream = api.client.get("/v1/me/events/stream",
                            headers={"Authorization": f"Bearer {tablet['token']}"},
                            buffered=False)
    assert other_process.client.post(f"/v1/me/tokens/{tablet['id']}/rotate",
                                     headers=headers).status_code == 201
    took, last = _stream_end_after(stream, STREAM_TOKEN_SECONDS + 1)
    assert took <= STREAM_TOKEN_SECONDS + 1 and last == TOKEN_ENDED


def test_a_seated_players_stream_marks_the_game_watched_and_a_spectators_does_not(api):
    """Issue 23 item 17: the sweeper leaves an idle game alone while a seated player follows
    it live (service.app.lobby.watched)."""
    lobby = api.app.extensions["tablestream"].lobby
    game_id, players = api.table("tally", 1, {"target": 100})
    spectator = api.client.get(f"/v1/games/{game_id}/events/stream", buffered=False)
    next(iter(spectator.response)), next(iter(spectator.response))  # connected, a keep-alive
    spectator.close()
    assert not lobby.watched(game_id)
    seated = api.client.get(f"/v1/games/{game_id}/events/stream", headers=players[0],
                            buffered=False)
    next(iter(seated.response)), next(iter(seated.response))
    seated.close()
    assert lobby.watched(game_id)


def test_with_views_two_watchers_of_one_game_each_get_their_own_language(api):
    """The picture is made once per viewer and language, for all the streams sharing them
    (each stream read in a thread of its own, as gunicorn's workers serve them)."""
    game_id, players = api.table("loot", 2)
    seat = int(sorted(api.get(game_id)["pending"])[0])
    languages = {"en": {"Accept-Language": "en"}, "ko": {"Accept-Language": "ko"}}
    opened, pictures = threading.Barrier(3, timeout=30), {}

    def watch(code: str) -> None:
        response = api.client.get(f"/v1/games/{game_id}/events/stream?views=true",
                                  headers=languages[code], buffered=False)
        opened.wait()
        pictures[code] = _read_events(response, 12, until="game")[-1]["data"]
        response.close()

    watchers = [threading.Thread(target=watch, args=(code,)) for code in languages]
    for watcher in watchers:
        watcher.start()
    opened.wait()
    mine = api.get(game_id, players[seat])
    api.client.post(f"/v1/games/{game_id}/commands", headers=players[seat],
                    json=mine["legal_commands"][0])
    for watcher in watchers:
        watcher.join(timeout=30)
    for code, headers in languages.items():
        expected = api.client.get(f"/v1/games/{game_id}", headers=headers).json
        assert pictures[code]["pending"] == expected["pending"], code
    assert pictures["en"]["pending"] != pictures["ko"]["pending"]  # words, in two languages
