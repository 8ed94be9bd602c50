"""SSE fan-out (issue 13): one Redis read per followed stream per process, shared by every local
subscriber, each still getting only its own seat's redaction, with no gap and no duplicate."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest

from events.store import NewEvent
from games import REGISTRY
from games.core import SPECTATOR
from service.runtime import fanout
from service.runtime.fanout import Fanout
from tests.service.conftest import Api
from tests.service.test_sse import sse_blocks

BOUND = 30.0  # seconds a test waits for something that must happen (not a timing check)


def _until_picture_of(chunks: Iterator[bytes], version: int) -> tuple[list[dict], dict]:
    """Events up to ``version`` and the ``game`` picture (``?views=true``) sent after it."""
    events: list[dict] = []
    for block in sse_blocks(chunks):
        if block["event"] != "game":
            events.append(block)
        elif events and events[-1]["id"] == version:
            return events, block["data"]
    raise AssertionError(f"the stream ended before version {version}")


def _open_streams(api: Api, game_id: str, start: int, callers: list[dict]) -> list[tuple]:
    """A ``?views=true`` stream of the game after ``start`` for each caller's headers, each
    subscribed and idle: (response, its chunks)."""
    streams = []
    for headers in callers:
        response = api.client.get(
            f"/v1/games/{game_id}/events/stream?views=true&last_event_id={start}",
            headers=headers, buffered=False)
        chunks = iter(response.response)
        assert next(chunks) == b": connected\n\n"
        assert next(chunks) == b": keep-alive\n\n"  # subscribed, and idle for a heartbeat
        streams.append((response, chunks))
    return streams


def _wait_for(condition, what: str) -> None:
    deadline = time.monotonic() + BOUND
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


def test_seats_and_spectators_on_one_game_each_get_only_their_own_redaction(api):
    game_id, players = api.table("loot", 3)
    spectator = api.player("watcher")
    viewers = [(0, players[0]), (1, players[1]), (2, players[2]), (SPECTATOR, spectator),
               (SPECTATOR, {})]  # a signed-in spectator and an anonymous one
    start = api.get(game_id)["version"]
    streams = _open_streams(api, game_id, start, [headers for _, headers in viewers])
    fanout_ = api.app.extensions["tablestream"].fanout
    try:
        # One reader for the game in this process, however many subscribe.
        assert fanout_.readers() == {("game", game_id): len(viewers)}
        drawn = 0
        for _ in range(40):  # a few draws, each hidden from all but the drawer (loot.md)
            public = api.get(game_id)
            seat = int(sorted(public["pending"])[0])
            legal = api.get(game_id, players[seat])["legal_commands"]
            command = next((c for c in legal if c["type"] == "draw"), legal[0])
            assert api.client.post(f"/v1/games/{game_id}/commands", headers=players[seat],
                                   json=command).status_code == 200
            drawn += command["type"] == "draw"
            if drawn >= 3:
                break
        last = api.get(game_id)["version"]
        received = [_until_picture_of(chunks, last) for _, chunks in streams]
    finally:
        # Each suspended stream holds its request context pushed (one thread here, unlike a
        # server's greenlet per stream): closing them last-opened first pops them in order.
        for response, _ in reversed(streams):
            response.close()
    game = REGISTRY["loot"]
    drawn_seen = set()
    for (viewer, headers), (events, picture) in zip(viewers, received, strict=True):
        page = api.client.get(f"/v1/games/{game_id}/events?from={start + 1}", headers=headers)
        assert events == [{"id": e["version"], "event": e["type"], "data": e}
                          for e in page.json["events"]], viewer
        assert picture == api.get(game_id, headers), viewer
        state = api.service.projection(game_id).state
        hidden = game.secrets(state, viewer)
        assert not [s for s in hidden if f'"{s}"' in json.dumps(events)], viewer
        drawn_seen.add(json.dumps([e["data"]["data"] for e in events
                                   if e["event"] == "card_drawn"]))
    # The drawn cards differ by viewer: a shared rendering would have made them all alike.
    assert len(drawn_seen) > 1


def test_a_pictures_projection_is_folded_from_the_batch_not_read_again(make_app):
    """A move made by another API process reaches this one's stream as a batch of events: the
    picture after it folds those very events onto the cached projection."""
    here, there = Api(make_app()), Api(make_app())
    game_id, players = here.table("loot", 2)
    start = here.get(game_id)["version"]
    response = here.client.get(
        f"/v1/games/{game_id}/events/stream?views=true&last_event_id={start}",
        headers=players[1], buffered=False)
    chunks = iter(response.response)
    service = here.service
    latest = service.projection
    reads: list[str] = []
    try:
        assert next(chunks) == b": connected\n\n"
        assert next(chunks) == b": keep-alive\n\n"
        seat = int(sorted(there.get(game_id)["pending"])[0])
        move = there.get(game_id, players[seat])["legal_commands"][0]
        service.projection = lambda game: (  # type: ignore[method-assign]
            reads.append(game), latest(game))[1]
        assert there.client.post(f"/v1/games/{game_id}/commands", headers=players[seat],
                                 json=move).status_code == 200
        last = there.get(game_id)["version"]
        _, picture = _until_picture_of(chunks, last)
    finally:
        del service.projection
        response.close()
    assert reads == [], "the log was read again for the picture"
    assert picture == here.get(game_id, players[1])


def test_a_moves_answer_and_the_movers_stream_work_out_its_view_once(api, monkeypatch):
    game_id, players = api.table("loot", 2)
    seat = int(sorted(api.get(game_id)["pending"])[0])
    start = api.get(game_id)["version"]
    response = api.client.get(
        f"/v1/games/{game_id}/events/stream?views=true&last_event_id={start}",
        headers=players[seat], buffered=False)
    chunks = iter(response.response)
    loot = REGISTRY["loot"]
    views: list[tuple[int, object]] = []
    view = loot.view
    monkeypatch.setattr(loot, "view", lambda state, viewer: (
        views.append(viewer), view(state, viewer))[1])
    try:
        assert next(chunks) == b": connected\n\n"
        assert next(chunks) == b": keep-alive\n\n"
        move = api.get(game_id, players[seat])["legal_commands"][0]
        views.clear()
        answer = api.client.post(f"/v1/games/{game_id}/commands", headers=players[seat],
                                 json=move)
        assert answer.status_code == 200
        _, picture = _until_picture_of(chunks, answer.json["version"])
    finally:
        response.close()
    assert picture == answer.json["game"]
    assert views == [seat], "the stream's picture reused the answer's view"


def test_two_notice_streams_of_one_player_share_one_read_and_both_hear_of_their_turn(api):
    game_id, players = api.table("tally", 1, {"target": 100})
    player_id = api.client.get("/v1/me", headers=players[0]).json["id"]
    version = api.get(game_id)["version"]
    streams = []
    for _ in range(2):
        response = api.client.get("/v1/me/events/stream", headers=players[0], buffered=False)
        chunks = iter(response.response)
        assert next(chunks) == b": connected\n\n"
        assert next(chunks) == b": keep-alive\n\n"
        streams.append((response, chunks))
    try:
        assert api.app.extensions["tablestream"].fanout.readers() == {("inbox", player_id): 2}
        assert api.send(game_id, players[0], {"type": "add", "amount": 1},
                        version).status_code == 200
        heard = [next(b for b in sse_blocks(chunks) if b["event"] == "your_turn")
                 for _, chunks in streams]
    finally:
        for response, _ in reversed(streams):
            response.close()
    assert heard[0] == heard[1]
    assert heard[0]["data"]["game_id"] == game_id and heard[0]["data"]["version"] == version + 1


def test_one_reader_is_shared_and_stops_after_the_last_subscriber(store, game_id):
    hub = Fanout(block_ms=100)
    _start(store, game_id)
    first, second = _follow(hub, store, game_id, 0), _follow(hub, store, game_id, 0)
    # Last-Event-ID 0: the new feed's first read (after keep-alives, should that read be slow)
    assert _versions(_next_batch(first)) == [1]
    assert _versions(_next_batch(second)) == [1]
    assert next(first) is None and next(second) is None  # both live now, and idle
    assert hub.readers() == {("game", game_id): 2}
    store.append(game_id, 1, [NewEvent("tick", {"n": 2})])
    batch = _next_batch(first)
    assert _versions(batch) == [2]
    assert _next_batch(second) is batch  # the very batch the one reader read
    first.close()
    assert hub.readers() == {("game", game_id): 1}
    second.close()
    _wait_for(lambda: hub.readers() == {}, "the reader did not stop")


def _start(store, game_id: str) -> None:
    """A game with its first event (version 1)."""
    store.create(game_id, {"type": "tally", "status": "running"}, secret="seed")
    store.append(game_id, 0, [NewEvent("tick", {"n": 1})])


def _follow(hub: Fanout, store, game_id: str, after: int, heartbeat: float = 0.05,
            pace: float = 0.0) -> Iterator[fanout.Batch | None]:
    return hub.follow(("game", game_id), after, read=lambda v: store.read(game_id, v + 1),
                      wait=lambda v, ms: store.wait(game_id, v, ms),
                      position_of=lambda e: e.version, order=int, heartbeat=heartbeat,
                      pace=pace)


def _next_batch(batches: Iterator[fanout.Batch | None]) -> fanout.Batch:
    """The next batch, past keep-alives (bounded)."""
    deadline = time.monotonic() + BOUND
    for batch in batches:
        if batch is not None:
            return batch
        assert time.monotonic() < deadline, "no batch came"
    raise AssertionError("the stream ended")


def _versions(batch: fanout.Batch | None) -> list[int]:
    return [] if batch is None else [e.version for e in batch.items]


@pytest.mark.parametrize("backlog", [2])
def test_a_subscriber_that_fell_behind_the_backlog_catches_up_from_the_log_exactly_once(
        store, game_id, monkeypatch, backlog):
    monkeypatch.setattr(fanout, "BACKLOG", backlog)
    hub = Fanout(block_ms=100)
    _start(store, game_id)
    slow, pace = _follow(hub, store, game_id, 1), _follow(hub, store, game_id, 1)
    assert next(slow) is None and next(pace) is None  # both live, nothing new yet
    for version in range(1, 9):
        store.append(game_id, version, [NewEvent("tick", {"n": version + 1})])
        # The pacing subscriber sees each move as its own batch: the slow one, not reading,
        # has batches dropped from its (tiny) backlog.
        assert _versions(_next_batch(pace)) == [version + 1]
    got: list[int] = []
    while got[-1:] != [9]:
        got += _versions(_next_batch(slow))
    assert got == list(range(2, 10))
    slow.close()
    pace.close()


def test_a_subscriber_joining_a_feed_already_past_it_gets_no_gap_and_no_duplicate(
        store, game_id):
    hub = Fanout(block_ms=100)
    _start(store, game_id)
    early = _follow(hub, store, game_id, 1)
    assert next(early) is None
    for version in range(1, 4):
        store.append(game_id, version, [NewEvent("tick", {"n": version + 1})])
        assert _versions(_next_batch(early)) == [version + 1]

    def read_then_move_on(after: int) -> list:
        # While the late subscriber catches up from the log, another move is made and
        # published to the early one: it must reach the late one once, from the log or the feed.
        events = store.read(game_id, after + 1)
        if not events and store.last_version(game_id) == 4:
            store.append(game_id, 4, [NewEvent("tick", {"n": 5})])
            assert _versions(_next_batch(early)) == [5]
        return events

    late = hub.follow(("game", game_id), 2, read=read_then_move_on,
                      wait=lambda v, ms: store.wait(game_id, v, ms),
                      position_of=lambda e: e.version, order=int, heartbeat=0.05)
    got = _versions(next(late))  # Last-Event-ID 2, behind the feed: 3 and 4 from the log
    got += _versions(_next_batch(late))  # 5, made during its catch-up
    store.append(game_id, 5, [NewEvent("tick", {"n": 6})])
    while got[-1:] != [6]:
        got += _versions(_next_batch(late))
    assert got == [3, 4, 5, 6]
    assert hub.readers() == {("game", game_id): 2}
    early.close()
    late.close()


def test_a_made_up_last_event_id_does_not_hide_later_moves_from_other_subscribers(
        store, game_id):
    hub = Fanout(block_ms=100)
    _start(store, game_id)
    ahead = hub.follow(("game", game_id), 100, read=lambda v: store.read(game_id, v + 1),
                       wait=lambda v, ms: store.wait(game_id, v, ms),
                       position_of=lambda e: e.version, order=int, heartbeat=0.05, end=1)
    assert next(ahead) is None  # it started the feed, at the log's end rather than at 100
    honest = _follow(hub, store, game_id, 1)
    assert next(honest) is None
    store.append(game_id, 1, [NewEvent("tick", {"n": 2})])
    assert _versions(_next_batch(honest)) == [2]
    ahead.close()
    honest.close()


def test_a_rendering_is_made_once_per_key_and_shared(store, game_id):
    _start(store, game_id)
    batch = fanout.Batch(store.read(game_id))
    made: list[object] = []

    def render(viewer: object) -> str:
        made.append(viewer)
        return f"seen by {viewer}"

    assert [batch.once(v, lambda v=v: render(v)) for v in (0, 1, 0, SPECTATOR, 1)] == [
        "seen by 0", "seen by 1", "seen by 0", "seen by spectator", "seen by 1"]
    assert made == [0, 1, SPECTATOR]


@pytest.mark.parametrize(("recent_seconds", "most"), [(0.0, 32), (60.0, 32), (60.0, 5)])
def test_only_a_feeds_newest_or_recent_batches_keep_what_was_rendered_of_them(
        store, game_id, monkeypatch, recent_seconds, most):
    """A game's picture memo holds its whole folded state: a ring of 256 of them per followed
    game made most of an API process's memory at 1,024 games (issue 29). Older batches keep
    their events for a subscriber who falls behind, who renders them again. Batches published
    in the last RENDERED_SECONDS keep theirs too (a paced stream takes them a pace late), up to
    RENDERED_MOST."""
    monkeypatch.setattr(fanout, "RENDERED_SECONDS", recent_seconds)
    monkeypatch.setattr(fanout, "RENDERED_MOST", most)
    hub = Fanout(block_ms=100)
    _start(store, game_id)
    pace, slow = _follow(hub, store, game_id, 1), _follow(hub, store, game_id, 1)
    assert next(pace) is None and next(slow) is None
    rendered: list[fanout.Batch] = []
    for version in range(1, 3 + fanout.RENDERED_KEPT):
        store.append(game_id, version, [NewEvent("tick", {"n": version + 1})])
        batch = _next_batch(pace)
        assert batch.once("state", lambda v=version: {"folded at": v}) == {"folded at": version}
        rendered.append(batch)
    computed: list[int] = []

    def fold_again(version: int) -> dict:
        computed.append(version)
        return {"folded at": version}

    for version, batch in enumerate(rendered, start=1):
        assert _next_batch(slow) is batch  # the slow subscriber still gets every event
        assert batch.once("state", lambda v=version: fold_again(v)) == {"folded at": version}
    dropped = len(rendered) - (min(most, len(rendered)) if recent_seconds
                               else fanout.RENDERED_KEPT)
    assert computed == list(range(1, dropped + 1)), "only the old ones rendered again"
    pace.close()
    slow.close()


def test_a_paced_subscriber_gets_what_was_published_within_its_pace_in_one_write(
        store, game_id):
    """A stream without a token is written at most once a pace (issue 23 item 8): the moves
    made meanwhile come joined, each part the very batch the unpaced subscribers got, so what
    was rendered of it is shared; nothing is lost or repeated."""
    hub = Fanout(block_ms=100)
    _start(store, game_id)
    eager = _follow(hub, store, game_id, 1)
    paced = _follow(hub, store, game_id, 1, pace=1.0)
    assert next(eager) is None and next(paced) is None
    store.append(game_id, 1, [NewEvent("tick", {"n": 2})])
    first = _next_batch(eager)
    assert _next_batch(paced) is first  # the first after a quiet pace goes at once
    written = time.monotonic()
    parts = []
    for version in (2, 3):  # within its pace
        store.append(game_id, version, [NewEvent("tick", {"n": version + 1})])
        parts.append(_next_batch(eager))
    joined = _next_batch(paced)
    assert time.monotonic() - written >= 1.0
    assert _versions(joined) == [3, 4]
    assert joined.parts == parts
    store.append(game_id, 4, [NewEvent("tick", {"n": 5})])
    alone = _next_batch(paced)
    assert _versions(alone) == [5] and alone.parts == [alone]
    eager.close()
    paced.close()


@pytest.mark.parametrize(("pace_ms", "spectator_writes_expected"), [(100, 1), (0, 2)])
def test_a_spectator_without_a_token_is_paced_and_a_seat_is_not(
        make_app, pace_ms, spectator_writes_expected):
    """Two moves made within a pace reach a tokenless stream in one write (with one picture,
    after the second), and a seat's stream in two; both see the same events. TOKENLESS_PUSH_MS
    0 turns the pace off."""
    api = Api(make_app({"tokenless_push_ms": pace_ms}))
    game_id, players = api.table("loot", 2)
    start = api.get(game_id)["version"]
    streams = _open_streams(api, game_id, start, [players[1], {}])
    try:
        feed = api.app.extensions["tablestream"].fanout
        for _ in range(2):
            public = api.get(game_id)
            seat = int(sorted(public["pending"])[0])
            command = api.get(game_id, players[seat])["legal_commands"][0]
            assert api.client.post(f"/v1/games/{game_id}/commands", headers=players[seat],
                                   json=command).status_code == 200
            # Published as a batch of its own before the next move is made (a reader lagging
            # under load could read both moves at once, and every stream would get one write).
            version = api.get(game_id)["version"]
            _wait_for(lambda v=version: feed.position(("game", game_id)) == v,
                      "the feed did not publish the move")
        last = api.get(game_id)["version"]
        writes = []
        for _, chunks in streams:
            got = []
            while not got or f"id: {last}\n".encode() not in got[-1]:
                chunk = next(chunks)
                if chunk != b": keep-alive\n\n":
                    got.append(chunk)
            writes.append(got)
    finally:
        for response, _ in reversed(streams):
            response.close()
    seat_writes, spectator_writes = writes
    assert len(seat_writes) == 2  # a write per move
    assert len(spectator_writes) == spectator_writes_expected
    assert [w.count(b"event: game\n") for w in spectator_writes] == [1] * len(spectator_writes)
    assert spectator_writes[-1].rfind(b"event: game\n") > spectator_writes[-1].rfind(
        f"id: {last}\n".encode())  # the picture after the last move
    events = [[b for b in sse_blocks(iter(w)) if b["event"] != "game"] for w in writes]
    assert [e["id"] for e in events[0]] == [e["id"] for e in events[1]] == list(
        range(start + 1, last + 1))
