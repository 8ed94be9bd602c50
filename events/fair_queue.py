"""Redis connection pools that serve their waiters first come, first served: ``FairPool``,
redis-py's BlockingConnectionPool with ``FairQueue`` as its ``queue_class``.

The pool's default, ``queue.LifoQueue``, lets a newcomer take a connection put back while
others were already waiting for one: the waiter that was woken finds the queue empty again and
waits anew, at the back. Under gevent a woken waiter runs only in the loop's callback turn,
while a request arriving on a socket runs at once, so at 1,024 games in flight some moves
waited 1-2 s for a connection that newer requests kept taking (most waited none): the tail of
the move latency (issue 29 item 3). Here a connection put back goes to the longest waiter;
only with nobody waiting is it kept, newest first (the connection used last is reused first,
as with LifoQueue).
"""

from __future__ import annotations

import queue
import threading
from collections import deque
from typing import Any

import redis


class _Waiter:
    __slots__ = ("event", "given", "item")

    def __init__(self) -> None:
        self.event = threading.Event()
        self.item: Any = None
        self.given = False


class FairQueue:
    """What BlockingConnectionPool asks of its queue (``get``, ``put_nowait``, ``queue``),
    served in arrival order."""

    def __init__(self, maxsize: int = 0):
        self.maxsize = maxsize
        self.queue: list[Any] = []  # the idle items, the newest last (read by the pool)
        self._waiters: deque[_Waiter] = deque()
        self._lock = threading.Lock()

    def qsize(self) -> int:
        return len(self.queue)

    def put_nowait(self, item: Any) -> None:
        """Hand ``item`` to the longest waiter, else keep it (``queue.Full`` past maxsize)."""
        with self._lock:
            if self._waiters:
                waiter = self._waiters.popleft()
                waiter.item, waiter.given = item, True
                waiter.event.set()
                return
            if self.maxsize and len(self.queue) >= self.maxsize:
                raise queue.Full
            self.queue.append(item)

    def put(self, item: Any, block: bool = True, timeout: float | None = None) -> None:
        self.put_nowait(item)

    def get(self, block: bool = True, timeout: float | None = None) -> Any:
        """An idle item, else the next one put back once those waiting before have theirs
        (``queue.Empty`` after ``timeout`` seconds, or at once when not ``block``)."""
        with self._lock:
            # Items are kept only while nobody waits, so none is taken from a waiter here.
            if self.queue:
                return self.queue.pop()
            if not block:
                raise queue.Empty
            waiter = _Waiter()
            self._waiters.append(waiter)
        try:
            waiter.event.wait(timeout)
            with self._lock:
                if waiter.given:  # also when it came just as the wait timed out
                    return waiter.item
                self._waiters.remove(waiter)
        except BaseException:
            # Interrupted (a gevent.Timeout, a greenlet killed): whatever was handed over
            # goes on to the next waiter, or the pool would lose that connection for good.
            self._forget(waiter)
            raise
        raise queue.Empty

    def _forget(self, waiter: _Waiter) -> None:
        with self._lock:
            if not waiter.given:
                if waiter in self._waiters:
                    self._waiters.remove(waiter)
                return
        self.put_nowait(waiter.item)

    def get_nowait(self) -> Any:
        return self.get(block=False)


class FairPool(redis.BlockingConnectionPool):
    """A BlockingConnectionPool whose waiters are served in arrival order (``FairQueue``): the
    pool class of every Redis client we make (``connection_pool_class`` for a cluster's nodes)."""

    def __init__(self, *args: Any, queue_class: type = FairQueue, **kwargs: Any):
        super().__init__(*args, queue_class=queue_class, **kwargs)
