"""Redis down, hung or refusing a best-effort write (issue 9 item 6): 503 store_unavailable with
Retry-After and one log line for an outage; a committed move keeps its success."""

from __future__ import annotations

import contextlib
import logging
import socket
import threading
import uuid
from collections.abc import Iterator
from urllib.parse import urlparse

import pytest
import redis

from events.redis_store import RedisEventStore
from events.store import NewEvent
from service.http import create_app
from service.runtime.config import Config
from tests import unlimited
from tests.e2e.conftest import free_port
from tests.service.conftest import Api, games_without_a_log

# Each test points the app at a server of its own making (a closed port, a socket that never
# answers, a stopped server, an ACL user on the standalone test server).
pytestmark = pytest.mark.standalone_redis("its outages are standalone servers or ports")

BOUND = 60  # seconds: any request still unanswered by then counts as hung


def _outage_app(url: str):
    return create_app(Config(redis_url=url, workers_enabled=False, **unlimited.CONFIG))


@contextlib.contextmanager
def _hung_redis() -> Iterator[str]:
    """A port that accepts connections (the kernel's backlog) and never answers: a Redis that
    is stopped (SIGSTOP) or wedged looks exactly like this to a client."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(512)
    try:
        yield f"redis://127.0.0.1:{listener.getsockname()[1]}/0"
    finally:
        listener.close()


def _bounded(call):
    """Run ``call`` in a thread; fail the test if it has not answered within BOUND seconds."""
    answer: list = []
    thread = threading.Thread(target=lambda: answer.append(call()), daemon=True)
    thread.start()
    thread.join(BOUND)
    assert answer, f"no answer within {BOUND}s"
    return answer[0]


def _assert_store_unavailable(response, caplog) -> None:
    assert response.status_code == 503, response.json
    assert response.mimetype == "application/problem+json"
    assert response.json["code"] == "store_unavailable"
    assert int(response.headers["Retry-After"]) >= 1
    assert response.json["retry_after"] == int(response.headers["Retry-After"])
    records = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(records) == 1, [r.getMessage() for r in records]
    assert records[0].exc_info is None and "\n" not in records[0].getMessage()
    assert "store unavailable" in records[0].getMessage()


@pytest.mark.parametrize("path", ["/v1/games/abc", "/v1/games?status=open"])
def test_closed_port_gives_503_store_unavailable_and_one_log_line(path, caplog):
    app = _outage_app(f"redis://127.0.0.1:{free_port()}/0")
    caplog.set_level(logging.INFO)
    caplog.clear()
    response = _bounded(lambda: app.test_client().get(path))
    _assert_store_unavailable(response, caplog)


def test_closed_port_gives_503_to_a_player_sending_a_move(caplog):
    app = _outage_app(f"redis://127.0.0.1:{free_port()}/0")
    caplog.set_level(logging.INFO)
    caplog.clear()
    response = _bounded(lambda: app.test_client().post(
        "/v1/games/abc/commands", headers={"Authorization": "Bearer x"},
        json={"type": "add", "amount": 1, "expected_version": 3}))
    _assert_store_unavailable(response, caplog)


def test_hung_redis_gives_503_store_unavailable_and_one_log_line(caplog):
    with _hung_redis() as url:
        app = _outage_app(url)
        caplog.set_level(logging.INFO)
        caplog.clear()
        response = _bounded(lambda: app.test_client().get("/v1/games/abc"))
    _assert_store_unavailable(response, caplog)


def test_stream_from_a_hung_redis_answers_503_before_it_starts(caplog):
    with _hung_redis() as url:
        app = _outage_app(url)
        caplog.set_level(logging.INFO)
        caplog.clear()
        response = _bounded(lambda: app.test_client().get("/v1/games/abc/events/stream"))
    _assert_store_unavailable(response, caplog)


class RecordingFollowUps:
    def __init__(self):
        self.calls: list[tuple[str, int]] = []

    def after_append(self, game_id, projection, jobs=None):
        self.calls.append((game_id, projection.version))


@pytest.fixture
def limited_user(redis_client) -> Iterator[tuple[str, str]]:
    """A Redis ACL user of this test's own (name, password), allowed everything for now."""
    name, password = f"t-{uuid.uuid4().hex[:12]}", uuid.uuid4().hex
    redis_client.execute_command("ACL", "SETUSER", name, "on", f">{password}", "~*", "&*",
                                 "+@all")
    yield name, password
    redis_client.execute_command("ACL", "DELUSER", name)


def test_committed_move_succeeds_when_the_snapshot_and_lobby_writes_fail(redis_url, redis_client,
                                                                         limited_user):
    name, password = limited_user
    url = urlparse(redis_url)
    followups = RecordingFollowUps()
    app = create_app(Config(redis_url=f"redis://{name}:{password}@{url.hostname}:{url.port}/0",
                            workers_enabled=False, **unlimited.CONFIG),
                     followups=followups)
    api = Api(app)
    game_id, players = api.table("tally", 1, {"target": 2})
    version = api.get(game_id)["version"]
    # From now on this app's user may touch the log but not the snapshot or the lobby row, so
    # both best-effort writes after the next append fail (NOPERM) as on a Redis that drops.
    redis_client.execute_command("ACL", "SETUSER", name, "resetkeys", "~{g:*}:log",
                                 "~{g:*}:meta", "~{g:*}:cmds", "~{g:*}:secret",
                                 "~{g:*}:archive", "~players:*",
                                 "~tokens:*")
    api.service.projector.snapshot_every = 1  # this append must write a snapshot
    response = api.send(game_id, players[0], {"type": "add", "amount": 2}, version)
    assert response.status_code == 200, response.json
    events = response.json["events"]
    assert [e["type"] for e in events] == ["added", "game_finished", "seed_revealed"]
    assert response.json["version"] == version + 3
    assert redis_client.xlen(f"{{g:{game_id}}}:log") == version + 3  # it was committed
    assert not redis_client.exists(f"{{g:{game_id}}}:snap")  # the snapshot write did fail
    assert followups.calls[-1] == (game_id, version + 3)  # and the follow-ups still ran


def test_redis_error_that_is_not_an_outage_stays_a_500(api, redis_client, caplog):
    # WRONGTYPE is a bug (ours or an operator's), not an outage: no 503 that invites retries.
    game_id, players = api.table("tally", 1, {"target": 5})
    api.service._cache.clear()
    key = f"{{g:{game_id}}}:snap"
    redis_client.set(key, "not a hash")
    try:
        response = api.client.get(f"/v1/games/{game_id}", headers=players[0])
    finally:
        redis_client.delete(key)
    assert response.status_code == 500
    assert response.json["code"] == "internal_error"


def test_outage_errors_are_told_apart_from_other_redis_errors():
    from events.redis_store import is_outage

    assert is_outage(redis.ConnectionError("refused"))
    assert is_outage(redis.TimeoutError("Timeout reading from socket"))
    assert is_outage(redis.ResponseError("MISCONF Errors writing to the AOF file: No space"))
    assert is_outage(redis.ResponseError(
        "Error running script (call to f_1): @user_script:12: -MISCONF Errors writing to the "
        "AOF file: No space left on device"))
    assert is_outage(redis.exceptions.ClusterDownError("CLUSTERDOWN The cluster is down"))
    assert is_outage(redis.exceptions.ReadOnlyError("READONLY You can't write against a replica"))
    assert not is_outage(redis.ResponseError("WRONGTYPE Operation against a key holding the "
                                              "wrong kind of value"))
    assert not is_outage(redis.exceptions.NoPermissionError("NOPERM"))


def test_stream_ends_with_one_log_line_when_redis_dies_under_it(tmp_path, caplog):
    from events import embedded_redis

    server = embedded_redis.start(tmp_path / "data")
    try:
        api = Api(_outage_app(server.url))
        game_id, players = api.table("tally", 1, {"target": 100})
        response = api.client.get(f"/v1/games/{game_id}/events/stream", headers=players[0],
                                  buffered=False)
        chunks = iter(response.response)
        assert next(chunks) == b": connected\n\n"
        caplog.set_level(logging.INFO)
        caplog.clear()
        server.process.kill()  # parked in XREAD BLOCK now, or about to be
        server.process.wait()
        rest = list(chunks)  # bounded: the dead port refuses at once (no thread: Flask's
        # request context lives in this one)
    finally:
        server.stop()
    assert rest == []  # the stream ended; the client reconnects with Last-Event-ID
    records = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(records) == 1 and records[0].exc_info is None, [r.getMessage() for r in records]
    assert "store unavailable" in records[0].getMessage()


def test_move_to_a_stopped_redis_is_503_and_its_retry_appends_once(tmp_path, caplog):
    import os
    import signal

    from events import embedded_redis

    server = embedded_redis.start(tmp_path / "data")
    try:
        api = Api(_outage_app(server.url))
        game_id, players = api.table("tally", 1, {"target": 100})
        version = api.get(game_id)["version"]
        caplog.set_level(logging.INFO)
        caplog.clear()
        os.kill(server.process.pid, signal.SIGSTOP)  # hung: connected, never answering
        try:
            response = _bounded(lambda: api.send(game_id, players[0], {"type": "add", "amount": 1},
                                                 version, command_id="move-1"))
        finally:
            os.kill(server.process.pid, signal.SIGCONT)
        _assert_store_unavailable(response, caplog)
        # A 503 leaves the outcome unknown to the client: the same command id settles it.
        retry = api.send(game_id, players[0], {"type": "add", "amount": 1}, version,
                         command_id="move-1")
        assert retry.status_code == 200, retry.json
        assert api.service.store.last_version(game_id) == version + 1  # appended once
    finally:
        server.stop()


def test_a_move_refused_by_the_append_leaves_no_snapshot_and_a_made_one_saves_it(api, monkeypatch):
    """The projection after a move is folded before its append (for its notices, issue 13):
    its snapshot is saved only once the append is made."""
    game_id, players = api.table("tally", 1, {"target": 1000})
    service = api.service
    service.projector.snapshot_every = 1  # every append crosses a snapshot point
    version = api.get(game_id)["version"]
    real = service.store.append
    elsewhere = RedisEventStore(service.store.client)  # another process's store

    def moved_meanwhile(game, expected, events, *args, **kwargs):
        # Another process's move lands first: this one's fold ahead of its append is made,
        # then the append is refused.
        elsewhere.append(game, expected, [NewEvent("added", {"seat": 0, "amount": 1}, "0")],
                         "other")
        try:
            return real(game, expected, events, *args, **kwargs)
        finally:
            snapshots.append(service.store.load_snapshot(game_id))

    snapshots: list = []
    monkeypatch.setattr(service.store, "append", moved_meanwhile)
    refused = api.send(game_id, players[0], {"type": "add", "amount": 3}, version)
    monkeypatch.undo()
    assert refused.status_code == 409, refused.json
    [snapshot] = snapshots  # as the refused append left it
    assert snapshot is None or snapshot.version <= version
    made = api.send(game_id, players[0], {"type": "add", "amount": 3}, version + 1)
    assert made.status_code == 200, made.json
    snapshot = service.store.load_snapshot(game_id)
    assert snapshot.version == version + 2 and snapshot.state["state"]["total"] == 4


@pytest.mark.parametrize("scripts_before_the_outage", [0, 1, 2])
def test_a_game_is_created_whole_or_not_at_all_whatever_write_an_outage_refuses(
        api, monkeypatch, scripts_before_the_outage):
    """issue 23 item 3: a create answered 503 used to leave a meta and secret with no log (404
    forever, its audit failing): the Redis scripts after the first few are refused with the
    MISCONF a full disk gives, and every game in the store must have its log."""
    client = api.service.store.client
    real = client.evalsha
    calls = []

    def refusing(*args, **kwargs):
        calls.append(args[0])
        if len(calls) > scripts_before_the_outage:
            raise redis.ResponseError("MISCONF Errors writing to the AOF file: No space left "
                                      "on device")
        return real(*args, **kwargs)

    headers = api.player()
    # The test server is shared with other tests of this process, some of which make bare
    # metas on purpose (the store contract): only what this create leaves counts.
    before = games_without_a_log(client)
    monkeypatch.setattr(client, "evalsha", refusing)
    response = api.client.post("/v1/games", headers=headers, json={
        "game": "tally", "seats": [{"kind": "human"}, {"kind": "human"}]})
    monkeypatch.undo()
    assert response.status_code in (201, 503), response.json
    assert games_without_a_log(client) - before == set()
    if response.status_code == 201:
        assert api.get(response.json["id"])["version"] >= 1
