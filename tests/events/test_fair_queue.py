"""The Redis connection pools serve their waiters in arrival order (events/fair_queue.py)."""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from events import fair_queue
from events.fair_queue import FairPool, FairQueue
from events.redis_store import blocking_client, connect
from tests.conftest import ON_CLUSTER

WAIT = 5.0  # s a test waits for a thread at most


def _until(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.001)


def _waiting(q: FairQueue, got: list[Any]) -> threading.Thread:
    """A thread blocked in ``q.get`` (returns once it waits), appending what it gets."""
    before = len(q._waiters)
    thread = threading.Thread(target=lambda: got.append(q.get(timeout=WAIT)), daemon=True)
    thread.start()
    _until(lambda: len(q._waiters) > before)
    return thread


def test_an_item_put_back_goes_to_the_longest_waiter() -> None:
    q = FairQueue(2)
    first: list[Any] = []
    second: list[Any] = []
    threads = [_waiting(q, first), _waiting(q, second)]
    q.put_nowait("a")
    q.put_nowait("b")
    for thread in threads:
        thread.join(WAIT)
    assert (first, second) == (["a"], ["b"])


def test_a_newcomer_cannot_take_what_was_put_back_for_a_waiter() -> None:
    q = FairQueue(1)
    got: list[Any] = []
    thread = _waiting(q, got)
    q.put_nowait("connection")
    # The waiter may not have run yet; the connection is already its own.
    with pytest.raises(queue.Empty):
        q.get(block=False)
    thread.join(WAIT)
    assert got == ["connection"]


def test_a_newcomer_waits_behind_those_already_waiting() -> None:
    q = FairQueue(1)
    order: list[str] = []

    def take(name: str) -> None:
        q.get(timeout=WAIT)
        order.append(name)
        q.put_nowait("connection")

    early = threading.Thread(target=take, args=("early",), daemon=True)
    early.start()
    _until(lambda: len(q._waiters) == 1)
    late = threading.Thread(target=take, args=("late",), daemon=True)
    late.start()
    _until(lambda: len(q._waiters) == 2)
    q.put_nowait("connection")
    early.join(WAIT)
    late.join(WAIT)
    assert order == ["early", "late"]


def test_a_wait_that_times_out_is_empty_and_leaves_no_waiter_behind() -> None:
    q = FairQueue(1)
    with pytest.raises(queue.Empty):
        q.get(timeout=0.01)
    assert not q._waiters
    q.put_nowait("connection")
    assert q.get(block=False) == "connection"


class _Interrupted(Exception):
    pass


class _Interruptible:
    """A waiter's event whose wait ends in an exception once ``go`` is set, as a gevent.Timeout
    or a killed greenlet ends it (whether or not an item was handed over meanwhile)."""

    def __init__(self) -> None:
        self.go = threading.Event()

    def wait(self, timeout: float | None = None) -> bool:
        self.go.wait(WAIT)
        raise _Interrupted

    def set(self) -> None:
        pass


def _interruptible_waiter(q: FairQueue, monkeypatch: pytest.MonkeyPatch
                          ) -> tuple[_Interruptible, threading.Thread, list[BaseException]]:
    """A thread waiting in ``q.get`` whose wait can be interrupted; what it raised."""
    event = _Interruptible()

    class Waiter(fair_queue._Waiter):
        def __init__(self) -> None:
            super().__init__()
            self.event = event  # type: ignore[assignment]

    raised: list[BaseException] = []

    def get() -> None:
        try:
            q.get(timeout=WAIT)
        except _Interrupted as exc:
            raised.append(exc)

    monkeypatch.setattr(fair_queue, "_Waiter", Waiter)
    thread = threading.Thread(target=get, daemon=True)
    thread.start()
    _until(lambda: len(q._waiters) == 1)
    monkeypatch.undo()
    return event, thread, raised


def test_a_wait_interrupted_after_the_hand_over_passes_the_item_on(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A waiter killed as a connection reaches it must not take that connection with it: the
    pool would be one short for good."""
    q = FairQueue(1)
    event, interrupted, raised = _interruptible_waiter(q, monkeypatch)
    later: list[Any] = []
    thread = _waiting(q, later)
    q.put_nowait("connection")  # to the first waiter, which is then interrupted
    event.go.set()
    interrupted.join(WAIT)
    thread.join(WAIT)
    assert raised and later == ["connection"]


def test_a_wait_interrupted_before_the_hand_over_leaves_no_waiter_behind(
        monkeypatch: pytest.MonkeyPatch) -> None:
    q = FairQueue(1)
    event, interrupted, raised = _interruptible_waiter(q, monkeypatch)
    event.go.set()
    interrupted.join(WAIT)
    assert raised and not q._waiters
    q.put_nowait("connection")
    assert q.get(block=False) == "connection"


def test_idle_items_are_reused_newest_first_and_never_beyond_the_size() -> None:
    q = FairQueue(2)
    q.put_nowait(None)
    q.put_nowait("used last")
    with pytest.raises(queue.Full):
        q.put_nowait("one too many")
    assert q.get(block=False) == "used last"
    assert q.get(block=False) is None
    with pytest.raises(queue.Empty):
        q.get(block=False)


@pytest.mark.skipif(ON_CLUSTER, reason="a cluster client's pools are per node")
def test_the_store_and_its_blocking_reads_use_fair_pools(redis_url: str) -> None:
    client = connect(redis_url)
    reads = blocking_client(client)
    try:
        assert isinstance(client.connection_pool.pool, FairQueue)
        assert isinstance(reads.connection_pool.pool, FairQueue)
        assert client.ping() and reads.ping()
    finally:
        reads.close()
        client.close()


@pytest.mark.skipif(ON_CLUSTER, reason="a cluster client's pools are per node")
def test_new_connections_share_one_description_of_the_library(
        redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """redis-py 8 read its package metadata for every new connection (0.6 ms): a pool growing
    under a burst paid it per connection. The store's clients, and RQ's, describe it once."""
    import redis.utils

    from events.redis_store import DRIVER_INFO
    from workers.scheduling import connection_like

    looked_up: list[str] = []
    monkeypatch.setattr(redis.utils, "get_lib_version", lambda: looked_up.append("redis") or "0")
    client = connect(redis_url)
    clients = [client, blocking_client(client), connection_like(client)]
    try:
        for each in clients:
            connection = each.connection_pool.make_connection()
            assert connection.driver_info is DRIVER_INFO
            connection.disconnect()
        assert looked_up == []
        assert DRIVER_INFO.formatted_name == "redis-py"
    finally:
        for each in clients:
            each.close()


def test_a_pool_of_one_connection_serves_its_waiters_in_turn(redis_url: str) -> None:
    if ON_CLUSTER:
        pytest.skip("a pool of one server")
    pool = FairPool.from_url(redis_url, max_connections=1, timeout=WAIT)
    order: list[int] = []
    held = pool.get_connection()

    def use(n: int) -> None:
        connection = pool.get_connection()
        order.append(n)
        connection.send_command("PING")
        assert connection.read_response() in (b"PONG", "PONG")
        pool.release(connection)

    threads = []
    for n in range(4):
        thread = threading.Thread(target=use, args=(n,), daemon=True)
        thread.start()
        _until(lambda n=n: len(pool.pool._waiters) == n + 1)
        threads.append(thread)
    pool.release(held)
    for thread in threads:
        thread.join(WAIT)
    pool.disconnect()
    assert order == [0, 1, 2, 3]
