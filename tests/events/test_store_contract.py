"""The event store contract (STYLE.md rule 7), run against a real Redis server."""

from __future__ import annotations

import dataclasses
import threading
import time

import pytest

from events.codec import GENESIS, event_hash, verify_chain
from events.redis_store import RedisEventStore
from events.store import (
    AppendResult,
    CommandRecord,
    CommandReused,
    GameExists,
    GameNotFound,
    NewEvent,
    Outbox,
    Snapshot,
    StoredEvent,
    VersionConflict,
)


def _events(*types: str, seat: str = "0") -> list[NewEvent]:
    return [NewEvent(t, {"n": i, "type": t}, seat) for i, t in enumerate(types)]


@pytest.fixture
def game(store: RedisEventStore, game_id: str) -> str:
    """A created game with no events yet."""
    store.create(game_id, {"type": "tally", "status": "open"}, secret="seed-123")
    return game_id


def _fill(store: RedisEventStore, game: str, n: int) -> list[StoredEvent]:
    for v in range(n):
        store.append(game, v, _events(f"e{v + 1}"), command_id=f"fill-{v}")
    return store.read(game)


# -- create, meta, secret --------------------------------------------------------------------

def test_created_game_starts_at_version_zero_with_its_meta_and_secret(store, game):
    assert store.last_version(game) == 0
    assert store.meta(game) == {"type": "tally", "status": "open", "version": "0",
                                "last_hash": GENESIS}
    assert store.secret(game) == "seed-123"
    assert store.read(game) == []


def test_creating_an_existing_id_fails_and_keeps_the_original(store, game):
    with pytest.raises(GameExists):
        store.create(game, {"type": "other"}, secret="seed-456")
    assert store.meta(game)["type"] == "tally"
    assert store.secret(game) == "seed-123"


def test_concurrent_creates_of_one_id_let_exactly_one_win(store, game_id):
    outcomes: list[str] = []
    barrier = threading.Barrier(10)

    def create(i: int) -> None:
        barrier.wait()
        try:
            store.create(game_id, {"by": str(i)}, secret=str(i))
            outcomes.append("ok")
        except GameExists:
            outcomes.append("exists")

    threads = [threading.Thread(target=create, args=(i,)) for i in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["exists"] * 9 + ["ok"]
    assert store.secret(game_id) == store.meta(game_id)["by"]


def test_a_game_created_with_its_first_events_is_made_in_one_step(store, game_id):
    # issue 23 item 3: meta, secret and first events together, so no meta without a log.
    result = store.append(game_id, 0, _events("game_created", "seat_joined"), "create-1",
                          meta={"game": "tally"}, new_secret="seed-789")
    assert (result.first_version, result.last_version) == (1, 2)
    assert store.meta(game_id)["game"] == "tally"
    assert store.meta(game_id)["version"] == "2"
    assert store.secret(game_id) == "seed-789"
    assert verify_chain(store.read(game_id)) is None


def test_creating_with_first_events_an_id_taken_writes_nothing(store, game):
    with pytest.raises(GameExists):
        store.append(game, 0, _events("game_created"), "create-2", meta={"type": "other"},
                     new_secret="seed-456")
    assert store.meta(game)["type"] == "tally"
    assert store.secret(game) == "seed-123"
    assert store.read(game) == []


def test_unknown_game_raises_game_not_found(store, game_id):
    for call in (store.meta, store.secret, store.last_version):
        with pytest.raises(GameNotFound):
            call(game_id)
    with pytest.raises(GameNotFound):
        store.append(game_id, 0, _events("a"))
    assert store.read(game_id) == []


def test_store_managed_meta_fields_cannot_be_set_by_callers(store, game, game_id):
    with pytest.raises(ValueError):
        store.append(game, 0, _events("a"), meta={"version": "7"})
    with pytest.raises(ValueError):
        store.create(game_id + "x", {"last_hash": "x"}, secret="s")
    assert store.read(game) == []


def test_game_ids_lists_created_games(store, game):
    assert game in set(store.game_ids())


# -- append and read ---------------------------------------------------------------------------

def test_appended_events_read_back_with_their_envelope(store, game):
    before = int(time.time() * 1000)
    result = store.append(game, 0, [NewEvent("dealt", {"hand": [1, 2], "note": "é✓"}, "1"),
                                    NewEvent("clock_started", {"secs": 30})], command_id="c1")
    assert result == AppendResult(1, 2)
    first, second = store.read(game)
    assert (first.version, first.type, first.data, first.seat, first.cmd) == (
        1, "dealt", {"hand": [1, 2], "note": "é✓"}, "1", "c1")
    assert (second.version, second.type, second.data, second.seat) == (
        2, "clock_started", {"secs": 30}, "system")
    assert before <= first.at <= int(time.time() * 1000)
    assert first.prev == GENESIS and second.prev == first.hash


def test_versions_are_contiguous_from_one_across_appends(store, game):
    assert store.append(game, 0, _events("a")) == AppendResult(1, 1)
    assert store.append(game, 1, _events("b", "c", "d")) == AppendResult(2, 4)
    assert store.append(game, 4, _events("e")) == AppendResult(5, 5)
    assert [e.version for e in store.read(game)] == [1, 2, 3, 4, 5]
    assert [e.type for e in store.read(game)] == ["a", "b", "c", "d", "e"]
    assert store.last_version(game) == 5


def test_read_returns_the_inclusive_version_range(store, game):
    _fill(store, game, 6)
    assert [e.version for e in store.read(game, 2, 4)] == [2, 3, 4]
    assert [e.version for e in store.read(game, 5)] == [5, 6]
    assert store.read(game, 7) == []


def test_stale_expected_version_conflicts_and_appends_nothing(store, game):
    _fill(store, game, 2)
    for stale in (0, 1, 3):
        with pytest.raises(VersionConflict) as raised:
            store.append(game, stale, _events("late"), command_id=f"late-{stale}")
        assert (raised.value.expected, raised.value.actual) == (stale, 2)
    assert [e.type for e in store.read(game)] == ["e1", "e2"]
    assert store.command_version(game, "late-0") is None


def test_a_second_store_instance_sees_the_first_ones_appends(store, game, redis_client):
    other = RedisEventStore(redis_client)
    store.append(game, 0, _events("a"))
    with pytest.raises(VersionConflict):
        other.append(game, 0, _events("b"))
    assert other.append(game, 1, _events("b")) == AppendResult(2, 2)
    with pytest.raises(VersionConflict):
        store.append(game, 1, _events("c"))
    assert verify_chain(store.read(game)) is None


def test_appends_without_command_id_are_never_deduplicated(store, game):
    store.append(game, 0, _events("a"))
    store.append(game, 1, _events("a"))
    assert [e.cmd for e in store.read(game)] == ["", ""]


def test_empty_batch_is_refused(store, game):
    with pytest.raises(ValueError):
        store.append(game, 0, [])


def test_meta_fields_are_updated_with_the_append(store, game):
    store.append(game, 0, _events("started"), meta={"status": "running", "turn": "1"})
    meta = store.meta(game)
    assert meta["status"] == "running" and meta["turn"] == "1" and meta["type"] == "tally"
    assert meta["version"] == "1"
    assert meta["last_hash"] == store.read(game)[-1].hash


def test_conflicting_append_does_not_touch_meta(store, game):
    store.append(game, 0, _events("a"))
    with pytest.raises(VersionConflict):
        store.append(game, 0, _events("b"), meta={"status": "hijacked"})
    assert store.meta(game)["status"] == "open"


# -- idempotent commands -----------------------------------------------------------------------

def test_retried_command_returns_the_first_range_and_appends_nothing(store, game):
    first = store.append(game, 0, _events("a", "b"), command_id="cmd-1")
    again = store.append(game, 0, _events("a", "b"), command_id="cmd-1")
    assert first == AppendResult(1, 2)
    assert again == AppendResult(1, 2, duplicate=True)
    assert store.last_version(game) == 2
    assert store.command_version(game, "cmd-1") == (1, 2)
    assert store.command_version(game, "never-sent") is None


@pytest.mark.parametrize("fresh_store", [False, True], ids=["same-store", "fresh-store"])
def test_retried_command_with_a_stale_version_still_gets_the_first_answer(
        store, game, redis_client, fresh_store):
    store.append(game, 0, _events("a"), command_id="cmd-1")
    store.append(game, 1, _events("b"), command_id="cmd-2")
    # A fresh store has no cached hash, so it takes the read-then-script path.
    retrier = RedisEventStore(redis_client) if fresh_store else store
    assert retrier.append(game, 0, _events("a"), command_id="cmd-1") == AppendResult(
        1, 1, duplicate=True)
    assert retrier.append(game, 2, _events("x"), command_id="cmd-1") == AppendResult(
        1, 1, duplicate=True)
    assert [e.type for e in store.read(game)] == ["a", "b"]


@pytest.mark.parametrize("fresh_store", [False, True], ids=["same-store", "fresh-store"])
def test_a_command_id_sent_again_with_another_command_is_refused_and_appends_nothing(
        store, game, redis_client, fresh_store):
    store.append(game, 0, _events("a"), command_id="cmd-1", command_hash="aa" * 32)
    # Both paths: the script's own check (hash cached) and the pipelined read before it.
    retrier = RedisEventStore(redis_client) if fresh_store else store
    with pytest.raises(CommandReused) as raised:
        retrier.append(game, 1, _events("b"), command_id="cmd-1", command_hash="bb" * 32)
    assert (raised.value.first_version, raised.value.last_version) == (1, 1)
    assert retrier.append(game, 1, _events("a"), command_id="cmd-1",
                          command_hash="aa" * 32) == AppendResult(1, 1, duplicate=True)
    assert [e.type for e in store.read(game)] == ["a"]
    assert store.command_record(game, "cmd-1") == CommandRecord(1, 1, "aa" * 32)


def test_a_command_record_older_than_the_hash_still_answers_a_retry(store, game, redis_client):
    store.append(game, 0, _events("a"), command_id="old-1")
    # How records were written before commands were hashed: "first:last".
    redis_client.hset(f"{{g:{game}}}:cmds", "old-1", "1:1")
    assert store.command_record(game, "old-1") == CommandRecord(1, 1, None)
    assert store.append(game, 1, _events("a"), command_id="old-1",
                        command_hash="cc" * 32) == AppendResult(1, 1, duplicate=True)


@pytest.mark.parametrize("shared_store", [True, False], ids=["one-store", "store-per-thread"])
def test_twenty_threads_appending_at_one_version_let_exactly_one_win(
        store, game, redis_client, shared_store):
    store.append(game, 0, _events("opening"))
    winners: list[AppendResult] = []
    conflicts: list[VersionConflict] = []
    lock = threading.Lock()
    barrier = threading.Barrier(20)

    def attempt(i: int) -> None:
        mine = store if shared_store else RedisEventStore(redis_client)
        if shared_store:
            mine.read(game)  # warm the hash cache: the script alone decides
        barrier.wait()
        try:
            result = mine.append(game, 1, _events(f"move-{i}", "then"), command_id=f"t{i}")
            with lock:
                winners.append(result)
        except VersionConflict as exc:
            with lock:
                conflicts.append(exc)

    threads = [threading.Thread(target=attempt, args=(i,)) for i in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert winners == [AppendResult(2, 3)]
    assert len(conflicts) == 19 and {c.actual for c in conflicts} <= {1, 3}
    events = store.read(game)
    assert [e.version for e in events] == [1, 2, 3]
    assert verify_chain(events) is None


def test_a_warm_append_is_one_round_trip(store, game, monkeypatch):
    store.append(game, 0, _events("a"))
    calls: list[tuple] = []
    real = store.client.execute_command

    def counting(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(store.client, "execute_command", counting)
    monkeypatch.setattr(store.client, "pipeline", lambda *a, **k: pytest.fail("extra read"))
    store.append(game, 1, _events("b"), command_id="warm")
    assert [c[0] for c in calls] == ["EVALSHA"]


# -- the outbox: writes that ride on an append ------------------------------------------------

@pytest.fixture
def outbox_keys(store, redis_client, game_id):
    if not store.has_outbox:
        pytest.skip("no outbox on Redis Cluster (tests/events/test_cluster.py)")
    keys = [f"test-outbox:{game_id}:{name}" for name in ("a", "b", "hooks", "wrong")]
    yield keys
    redis_client.delete(*keys)


def test_an_appends_outbox_is_written_in_its_one_round_trip(store, game, outbox_keys,
                                                            redis_client, monkeypatch):
    stream_a, stream_b, hooks, _ = outbox_keys
    redis_client.hset(hooks, mapping={"h1": "one", "h2": "two"})
    store.append(game, 0, _events("a"))
    seen: list[tuple[StoredEvent, ...]] = []

    def outbox(stored):
        seen.append(stored)
        return Outbox(((stream_a, "notice", f"v{stored[-1].version}", 1000),
                       (stream_b, "notice", "b", 1000)), (hooks, stream_a + ":none"))

    calls: list[tuple] = []
    real = store.client.execute_command
    monkeypatch.setattr(store.client, "execute_command",
                        lambda *a, **k: calls.append(a) or real(*a, **k))
    result = store.append(game, 1, _events("b", "c"), command_id="with-outbox", outbox=outbox)
    assert [c[0] for c in calls] == ["EVALSHA"]
    assert seen == [result.events]  # the events as stored, before they were sent
    assert result.outbox is not None
    assert [e[0] for e in redis_client.xrange(stream_a)] == [result.outbox.ids[0]]
    assert redis_client.xrange(stream_a)[0][1] == {"notice": "v3"}
    assert [e[0] for e in redis_client.xrange(stream_b)] == [result.outbox.ids[1]]
    assert sorted(result.outbox.reads[0]) == ["one", "two"] and result.outbox.reads[1] == ()


def test_an_append_that_is_not_made_writes_no_outbox(store, game, outbox_keys, redis_client):
    stream = outbox_keys[0]
    store.append(game, 0, _events("a"), command_id="first")

    def outbox(stored):
        return Outbox(((stream, "notice", "x", 1000),))

    with pytest.raises(VersionConflict):
        store.append(game, 0, _events("b"), command_id="stale", outbox=outbox)
    assert store.append(game, 0, _events("a"), command_id="first", outbox=outbox).duplicate
    assert redis_client.xrange(stream) == []
    assert store.last_version(game) == 1


def test_a_failing_outbox_write_neither_fails_nor_undoes_the_append(store, game, outbox_keys,
                                                                    redis_client):
    stream, _, _, wrong = outbox_keys
    redis_client.set(wrong, "not a stream")
    result = store.append(game, 0, _events("a"), command_id="c", outbox=lambda stored: Outbox(
        ((wrong, "notice", "x", 1000), (stream, "notice", "y", 1000)), (wrong,)))
    assert result.last_version == 1 and store.last_version(game) == 1
    assert result.outbox is not None and result.outbox.ids[0] == ""
    assert [e[0] for e in redis_client.xrange(stream)] == [result.outbox.ids[1]]
    assert result.outbox.reads == ((),)
    assert verify_chain(store.read(game)) is None


# -- hash chain --------------------------------------------------------------------------------

def test_stored_hashes_chain_from_genesis_and_verify(store, game):
    events = _fill(store, game, 5)
    assert events[0].prev == GENESIS
    for e in events:
        assert e.hash == event_hash(e.version, e.type, e.data, e.seat, e.cmd, e.at, e.prev)
    assert verify_chain(events) is None
    assert verify_chain(events[2:], first_version=3, prev=events[1].hash) is None


def test_data_is_stored_as_it_reads_back_so_the_hash_survives(store, game):
    store.append(game, 0, [NewEvent("odd", {"t": (1, 2), "k": {10: "x", 2: "y"}})])
    [event] = store.read(game)
    assert event.data == {"t": [1, 2], "k": {"10": "x", "2": "y"}}
    assert verify_chain([event]) is None


def _edited(events: list[StoredEvent]) -> list[StoredEvent]:
    return [*events[:2], dataclasses.replace(events[2], data={"n": 99}), *events[3:]]


def _dropped(events: list[StoredEvent]) -> list[StoredEvent]:
    return [*events[:2], *events[3:]]


def _dropped_and_renumbered(events: list[StoredEvent]) -> list[StoredEvent]:
    tail = [dataclasses.replace(e, version=e.version - 1) for e in events[3:]]
    return [*events[:2], *tail]


def _swapped(events: list[StoredEvent]) -> list[StoredEvent]:
    return [*events[:2], events[3], events[2], *events[4:]]


def _swapped_and_renumbered(events: list[StoredEvent]) -> list[StoredEvent]:
    a, b = events[2], events[3]
    return [*events[:2], dataclasses.replace(b, version=3), dataclasses.replace(a, version=4),
            *events[4:]]


def _rehashed_edit(events: list[StoredEvent]) -> list[StoredEvent]:
    e = dataclasses.replace(events[2], type="forged")
    e = dataclasses.replace(e, hash=event_hash(e.version, e.type, e.data, e.seat, e.cmd, e.at,
                                               e.prev))
    return [*events[:2], e, *events[3:]]


@pytest.mark.parametrize("tamper", [_edited, _dropped, _dropped_and_renumbered, _swapped,
                                    _swapped_and_renumbered, _rehashed_edit])
def test_verify_chain_finds_the_first_tampered_version(store, game, tamper):
    events = _fill(store, game, 5)
    bad = verify_chain(tamper(events))
    # a rehashed edit is consistent in itself; the next event's prev link exposes it
    assert bad == (4 if tamper is _rehashed_edit else 3)


def test_verify_chain_rejects_a_log_not_starting_at_one(store, game):
    events = _fill(store, game, 3)
    assert verify_chain(events[1:]) == 1


# -- live reads --------------------------------------------------------------------------------

def test_wait_returns_events_already_after_the_version_at_once(store, game):
    _fill(store, game, 3)
    assert [e.version for e in store.wait(game, 1, 5000)] == [2, 3]


def test_wait_returns_events_appended_while_blocked(store, game):
    _fill(store, game, 1)

    def later() -> None:
        time.sleep(0.2)
        store.append(game, 1, _events("x", "y"))

    appender = threading.Thread(target=later)
    appender.start()
    started = time.monotonic()
    got = store.wait(game, 1, 5000)
    appender.join()
    assert time.monotonic() - started < 4
    assert [(e.version, e.type) for e in got] == [(2, "x"), (3, "y")]


def test_wait_times_out_with_an_empty_list(store, game):
    _fill(store, game, 2)
    started = time.monotonic()
    assert store.wait(game, 2, 150) == []
    assert time.monotonic() - started >= 0.1


def test_wait_on_a_game_with_no_events_yet_times_out(store, game):
    assert store.wait(game, 0, 100) == []


# -- snapshots ---------------------------------------------------------------------------------

def test_snapshot_round_trips_and_the_latest_replaces_the_earlier(store, game):
    assert store.load_snapshot(game) is None
    store.save_snapshot(game, Snapshot(3, {"scores": [1, 2], "name": "ü"}))
    assert store.load_snapshot(game) == Snapshot(3, {"scores": [1, 2], "name": "ü"})
    store.save_snapshot(game, Snapshot(9, {"scores": [4, 4]}))
    assert store.load_snapshot(game) == Snapshot(9, {"scores": [4, 4]})


def test_the_nearest_snapshot_at_or_below_a_version_is_found(store, game):
    for version in (25, 50, 75):
        store.save_snapshot(game, Snapshot(version, {"at": version}))
    assert store.load_snapshot(game, 24) is None
    assert store.load_snapshot(game, 25) == Snapshot(25, {"at": 25})
    assert store.load_snapshot(game, 74) == Snapshot(50, {"at": 50})
    assert store.load_snapshot(game, 10_000) == Snapshot(75, {"at": 75})
    assert store.load_snapshot(game) == Snapshot(75, {"at": 75})


def test_an_older_snapshot_saved_later_does_not_replace_the_latest(store, game):
    store.save_snapshot(game, Snapshot(50, {"at": 50}))
    store.save_snapshot(game, Snapshot(25, {"at": 25}))  # a replay backfilling an old stretch
    assert store.load_snapshot(game) == Snapshot(50, {"at": 50})
    assert store.load_snapshot(game, 49) == Snapshot(25, {"at": 25})
    store.save_snapshot(game, Snapshot(25, {"at": "again"}))  # one snapshot per version
    assert store.load_snapshot(game, 49) == Snapshot(25, {"at": "again"})


def test_deleting_the_snapshot_loses_no_events(store, game):
    events = _fill(store, game, 4)
    store.save_snapshot(game, Snapshot(4, {"x": 1}))
    store.delete_snapshot(game)
    assert store.load_snapshot(game) is None and store.load_snapshot(game, 4) is None
    assert store.read(game) == events



# -- the command as sent, in the envelope ------------------------------------------------------

def test_the_command_as_sent_reads_back_and_is_covered_by_the_hash(store, game):
    command = {"type": "play_pirate", "card": "P-blue-3a", "merchant": "M5a"}
    result = store.append(game, 0, [NewEvent("pirate_played", {"seat": 0}, "0", command),
                                    NewEvent("turn_passed", {"to": 1}, "0")], command_id="c1")
    events = store.read(game)
    assert events[0].command == command and events[1].command is None
    assert list(result.events) == events
    assert verify_chain(events) is None
    forged = dataclasses.replace(events[0], command={**command, "card": "P-blue-4a"})
    assert verify_chain([forged, events[1]]) == 1


# -- the archive (issue 13) ------------------------------------------------------------------

def _finished(store: RedisEventStore, game: str) -> list[StoredEvent]:
    """A game with client-style (hashed) and machine command records, and a snapshot."""
    store.append(game, 0, [NewEvent("started", {"seats": 2}), NewEvent("dealt", {"hand": [1]})],
                 command_id="auto:1")
    store.append(game, 2, [NewEvent("played", {"card": 3}, "0", {"type": "play", "card": 3})],
                 command_id="p:ann:c1", command_hash="ab" * 32)
    store.append(game, 3, [NewEvent("passed", {}, "1", {"type": "pass"})],
                 command_id="bot:x:1:3")
    store.append(game, 4, [NewEvent("game_finished", {"result": {"winners": [0]}}),
                           NewEvent("seed_revealed", {"seed": "seed-123"})], command_id="auto:2")
    store.save_snapshot(game, Snapshot(5, {"n": 5}))
    return store.read(game)


def _live_keys(store: RedisEventStore, game: str) -> list[str]:
    parts = ("log", "meta", "secret", "cmds", "snap", "snaps")
    return [part for part in parts if store.client.exists(f"{{g:{game}}}:{part}")]


def test_an_archived_game_reads_back_every_event_meta_secret_and_record_unchanged(store, game):
    events = _finished(store, game)
    meta, records = store.meta(game), {c: store.command_record(game, c)
                                       for c in ("auto:1", "p:ann:c1", "bot:x:1:3", "auto:2")}
    assert store.archive(game) is True
    assert _live_keys(store, game) == []
    for reader in (store, RedisEventStore(store.client)):  # this process, and a fresh one
        assert reader.read(game) == events
        assert reader.read(game, 3, 4) == events[2:4]
        assert reader.read(game, 8) == []
        assert reader.meta(game) == meta
        assert reader.last_version(game) == 6
        assert reader.secret(game) == "seed-123"
        assert {c: reader.command_record(game, c) for c in records} == records
        assert reader.command_record(game, "p:ann:never") is None
    assert verify_chain(events) is None


def test_archiving_twice_is_harmless_and_lists_the_game_once(store, game):
    _finished(store, game)
    assert store.archive(game) and store.archive(game)
    assert list(store.game_ids()).count(game) == 1


def test_a_command_id_replayed_to_an_archived_game_gets_its_first_answer(store, game):
    _finished(store, game)
    store.archive(game)
    again = store.append(game, 3, [NewEvent("played", {"card": 3}, "0")],
                         command_id="p:ann:c1", command_hash="ab" * 32)
    assert again == AppendResult(3, 3, duplicate=True)
    with pytest.raises(CommandReused):
        store.append(game, 6, _events("x"), command_id="p:ann:c1", command_hash="cd" * 32)


def test_nothing_new_is_appended_to_an_archived_game(store, game):
    from events.store import GameArchived

    _finished(store, game)
    store.archive(game)
    with pytest.raises(GameArchived):
        store.append(game, 6, _events("late"), command_id="late-1")
    with pytest.raises(GameArchived):
        RedisEventStore(store.client).append(game, 6, _events("late"), command_id="late-2")
    assert store.last_version(game) == 6 and _live_keys(store, game) == []


def test_an_archived_game_keeps_no_snapshot_and_its_id_stays_taken(store, game):
    _finished(store, game)
    store.archive(game)
    store.save_snapshot(game, Snapshot(6, {"n": 6}))
    assert store.load_snapshot(game) is None and _live_keys(store, game) == []
    with pytest.raises(GameExists):
        store.create(game, {"type": "tally"}, secret="other")


def test_a_crash_between_writing_the_archive_and_dropping_the_log_leaves_both_readable(
        store, game, monkeypatch):
    events = _finished(store, game)

    def crash(*args, **kwargs):
        raise ConnectionError("killed before the live keys were dropped")

    monkeypatch.setattr(store, "_archive_drop", crash)
    with pytest.raises(ConnectionError):
        store.archive(game)
    assert store.client.exists(f"{{g:{game}}}:archive")
    assert _live_keys(store, game) == ["log", "meta", "secret", "cmds", "snap", "snaps"]
    fresh = RedisEventStore(store.client)
    assert fresh.read(game) == events and fresh.last_version(game) == 6
    assert fresh.archive(game) is True  # the next attempt finishes the job
    assert _live_keys(store, game) == [] and fresh.read(game) == events


def test_an_append_after_the_archive_was_written_keeps_the_game_live(store, game):
    _finished(store, game)
    blob_written = store._archive_write

    def append_meanwhile(*args, **kwargs):
        written = blob_written(*args, **kwargs)
        RedisEventStore(store.client).append(game, 6, _events("dispute_opened"),
                                             command_id="late")
        return written

    store._archive_write = append_meanwhile
    assert store.archive(game) is False
    assert store.read(game)[-1].type == "dispute_opened"
    assert "log" in _live_keys(store, game)


def test_an_archive_whose_events_were_edited_does_not_read(store, game):
    import zlib

    from events.archive import MAGIC, ArchiveCorrupt

    _finished(store, game)
    store.archive(game)
    key = f"{{g:{game}}}:archive"
    blob = store._fetch_archive(game)
    body = zlib.decompress(blob[len(MAGIC):]).replace(b'"card":3', b'"card":4')
    store.client.set(key, MAGIC + zlib.compress(body))
    with pytest.raises(ArchiveCorrupt):
        RedisEventStore(store.client).read(game)


def test_an_unknown_game_is_still_not_found(store, game_id):
    with pytest.raises(GameNotFound):
        store.meta(game_id)
    with pytest.raises(GameNotFound):
        store.archive(game_id)
    assert store.read(game_id) == []
