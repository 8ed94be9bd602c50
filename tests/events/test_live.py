"""Live channels (events/live.py, issue 29): a process hears the games it follows from the
appends' own publishes, on one pub/sub connection, and falls back on the log whenever what it
heard may be incomplete, so a follower never misses an event nor gets one twice."""

from __future__ import annotations

import threading
import time

import pytest

from events import live
from events.redis_store import RedisEventStore, _key
from events.store import NewEvent

pytestmark = pytest.mark.standalone_redis("a cluster's followers XREAD: no publish there")

BOUND = 10_000  # ms a wait may block: far longer than any of these should take


@pytest.fixture
def game(store: RedisEventStore, game_id: str) -> str:
    store.create(game_id, {"type": "tally", "status": "running"}, secret="seed")
    store.append(game_id, 0, [NewEvent("tick", {"n": 1})], command_id="c1")
    return game_id


def _counting_reads(store: RedisEventStore) -> list[int]:
    """The versions ``store.read`` is asked to start at, from now on."""
    firsts: list[int] = []
    read = store.read
    store.read = lambda game, first=1, *rest: (  # type: ignore[method-assign]
        firsts.append(first), read(game, first, *rest))[1]
    return firsts


def _append_soon(store: RedisEventStore, game: str, after: int, *types: str,
                 delay: float = 0.2) -> threading.Thread:
    def append() -> None:
        time.sleep(delay)
        store.append(game, after, [NewEvent(t, {"t": t}) for t in types],
                     command_id=f"soon-{after}")

    thread = threading.Thread(target=append)
    thread.start()
    return thread


def test_a_follower_hears_an_append_from_its_publish_not_from_the_log(redis_client, game):
    follower, writer = RedisEventStore(redis_client), RedisEventStore(redis_client)
    assert follower.wait(game, 0, BOUND) and follower.wait(game, 1, 50) == []  # subscribed
    reads = _counting_reads(follower)
    appender = _append_soon(writer, game, 1, "a", "b")
    got = follower.wait(game, 1, BOUND)
    appender.join()
    assert [(e.version, e.type, e.data) for e in got] == [(2, "a", {"t": "a"}),
                                                          (3, "b", {"t": "b"})]
    assert got == writer.read(game, 2), "heard exactly as stored, hashes included"
    assert reads == [], "heard, not read"


def test_a_follower_behind_what_was_heard_reads_the_log(redis_client, game, monkeypatch):
    monkeypatch.setattr(live, "KEPT", 1)  # only the latest append's events are kept
    follower, writer = RedisEventStore(redis_client), RedisEventStore(redis_client)
    follower.wait(game, 1, 50)
    for version in (1, 3):
        writer.append(game, version, [NewEvent("x", {}), NewEvent("y", {})],
                      command_id=f"w{version}")
    time.sleep(0.2)  # both heard, the first one's events dropped
    reads = _counting_reads(follower)
    assert [e.version for e in follower.wait(game, 1, BOUND)] == [2, 3, 4, 5]
    assert reads == [2]


def test_a_lost_connection_is_made_again_and_what_was_missed_read_from_the_log(
        redis_client, game):
    follower, writer = RedisEventStore(redis_client), RedisEventStore(redis_client)
    follower.wait(game, 1, 50)
    redis_client.client_kill_filter(_type="pubsub")
    writer.append(game, 1, [NewEvent("missed", {})], command_id="while-down")
    appender = _append_soon(writer, game, 2, "after", delay=0.5)
    seen = follower.wait(game, 1, BOUND)
    seen += follower.wait(game, seen[-1].version, BOUND) if seen[-1].version < 3 else []
    appender.join()
    assert [(e.version, e.type) for e in seen] == [(2, "missed"), (3, "after")]


def test_channels_no_one_waits_on_are_left_and_the_listener_stops(
        redis_client, game, monkeypatch):
    monkeypatch.setattr(live, "IDLE_SECONDS", 0.0)
    monkeypatch.setattr(live, "LISTEN_SECONDS", 0.05)
    follower = RedisEventStore(redis_client)
    follower.wait(game, 1, 50)
    channels = follower.live_channels()
    deadline = time.monotonic() + BOUND / 1000
    while channels._pubsub is not None:
        assert time.monotonic() < deadline, "the idle channel was kept"
        time.sleep(0.02)
    assert channels._channels == {}
    # And a later wait starts afresh.
    appender = _append_soon(RedisEventStore(redis_client), game, 1, "later")
    assert [e.type for e in follower.wait(game, 1, BOUND)] == ["later"]
    appender.join()


def test_a_follower_of_an_unreachable_redis_gets_the_error(game):
    import redis

    from events.redis_store import connect

    gone = RedisEventStore(connect("redis://127.0.0.1:1/0"))
    with pytest.raises(redis.ConnectionError):
        gone.wait(game, 1, 100)


def test_a_follower_is_not_held_up_while_another_opens_the_connection(redis_client, game,
                                                                      store):
    # The first wait opens the pub/sub connection; until Redis answers its SUBSCRIBE, another
    # game's follower still joins (it used to wait on the lock for the connect timeout), and
    # both are then subscribed on the one connection.
    other = f"{game}-other"
    store.create(other, {"type": "tally", "status": "running"}, secret="seed")
    follower = RedisEventStore(redis_client)
    channels = follower.live_channels()
    opening, release, joined = threading.Event(), threading.Event(), threading.Event()
    make_pubsub = channels.client.pubsub

    def slow_pubsub(**options):
        pubsub = make_pubsub(**options)
        subscribe = pubsub.subscribe

        def slow_subscribe(*names):
            opening.set()
            release.wait(BOUND / 1000)
            return subscribe(*names)

        pubsub.subscribe = slow_subscribe
        channels.client.pubsub = make_pubsub  # only the first connection is slow
        return pubsub

    channels.client.pubsub = slow_pubsub
    first: list = []
    opener = threading.Thread(target=lambda: first.extend(follower.wait(game, 0, BOUND)))
    opener.start()
    assert opening.wait(BOUND / 1000)

    def join_other() -> None:
        entry = channels._join(_key(other, "live"))
        joined.set()
        with channels._lock:
            entry.waiters -= 1

    joiner = threading.Thread(target=join_other)
    joiner.start()
    try:
        assert joined.wait(2), "a join waited for another's connection to open"
    finally:
        release.set()
        opener.join(BOUND / 1000)
        joiner.join(BOUND / 1000)
    assert [e.version for e in first] == [1]
    appender = _append_soon(RedisEventStore(redis_client), other, 0, "heard", delay=0.1)
    assert [e.type for e in follower.wait(other, 0, BOUND)] == ["heard"]
    appender.join()
