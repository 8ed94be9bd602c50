"""The Redis connection pools serve their waiters in arrival order (events/fair_queue.py)."""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
import redis

from events.fair_queue import FairQueue
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


def test_a_pool_of_one_connection_serves_its_waiters_in_turn(redis_url: str) -> None:
    if ON_CLUSTER:
        pytest.skip("a pool of one server")
    pool = redis.BlockingConnectionPool.from_url(redis_url, max_connections=1, timeout=WAIT,
                                                 queue_class=FairQueue)
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
