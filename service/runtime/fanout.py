"""Live streams fanned out in-process (issue 13): one blocking Redis read per stream per process.

Every open SSE connection used to park its own XREAD BLOCK on a connection of its own. Now the
subscribers of one stream (a game's log, or a player's notices) in one process share a *feed*:
one reader thread (a greenlet under gevent, whose monkey-patching turns ``threading`` into
greenlets) blocks in XREAD and publishes each batch it gets to a ring of the latest
``BACKLOG`` batches, waking every local subscriber. The reader starts with the first
subscriber and stops once the last one has left (after its current block, at most a heartbeat).

Each subscriber keeps its own position and:

- registers with its position (``Last-Event-ID``, else the game's version when it connected):
  a new feed starts there, so its reader's first read serves the catch-up; a feed already past
  that position leaves the difference to be read from the log once. Either way it joins the
  live feed with no gap, and whatever it takes from the feed at or below its position is
  skipped (no duplicate). Connecting costs no Redis round trip in the usual case (a client that
  is up to date joining a game others already follow);
- renders a batch for its viewer through ``Batch.once``, so a batch is redacted (and a view
  computed) once per seat, spectator or auditor, not once per subscriber: the cache is keyed by
  the viewer, so no subscriber can be handed another seat's rendering. The SSE feed renders to
  bytes (service/runtime/shared_bytes.py), so every subscriber of one viewer writes the very same
  object, framed as an HTTP chunk once;
- never slows the others down: the reader only appends to the ring. A subscriber that falls
  more than ``BACKLOG`` batches behind (a slow client socket) has lost batches from the ring;
  it notices the hole and catches up from the log, then carries on live, so it stays
  connected and misses nothing (the log is the truth; the ring is only a buffer);
- sends its keep-alive after a whole heartbeat without a batch, as before;
- when paced (``pace``: a stream without a token, service.http.events_feed), writes at most
  once a pace: the batches published meanwhile come as one ``Batch.joined``, rendered by its
  parts (each still once per viewer for everyone). 20 spectators of a game played 20 moves a
  second were 800 writes a second, each waking a stream, and came between a move and the bot's
  reply to it (issue 23 item 8); a game's moves reach its crowd of spectators together instead.

A Redis outage reaches every subscriber of the feed as the reader's exception, raised in the
subscriber's own request (the stream ends with one log line, as before, and the client
reconnects with Last-Event-ID); the failed feed is dropped, so the next subscriber starts a new
reader.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from service.runtime import metrics

log = logging.getLogger(__name__)

BACKLOG = 256  # batches a feed keeps for subscribers that have not taken them yet
# Batches at the head of a feed that keep what was rendered of them, and the seconds any newer
# batch keeps it (a paced subscriber takes a pace's batches at once). An older batch keeps its
# items for a subscriber that falls behind, who renders them again: a game's picture memo holds
# the whole folded state at that batch, and a ring of them was most of an API process's memory
# and of what its cyclic collector walked at 1,024 games (issue 29).
RENDERED_KEPT = 4
RENDERED_SECONDS = 0.5
RENDERED_MOST = 32  # however recent (a game of bots playing hundreds of moves a second)

P = TypeVar("P")  # a position in a stream: a game version, a notice id
T = TypeVar("T")  # one item of a stream: a stored event, a notice


class _Once:
    """One value computed by the first caller; the others wait for it and share it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._done = False
        self._value: Any = None

    def get(self, compute: Callable[[], Any]) -> Any:
        if not self._done:
            with self._lock:
                if not self._done:
                    self._value = compute()  # an error leaves it to the next caller to retry
                    self._done = True
        return self._value


class Batch(Generic[T]):
    """Items one read returned, with what subscribers rendered of them, once per key."""

    def __init__(self, items: list[T], seq: int = 0, published: float = 0.0):
        self.items = items
        self.seq = seq
        self.published = published  # time.monotonic() when a feed published it
        self._lock = threading.Lock()
        self._memo: dict[Hashable, _Once] = {}
        self._parts: list[Batch[T]] | None = None

    @classmethod
    def joined(cls, batches: list[Batch[T]]) -> Batch[T]:
        """Consecutive ``batches`` as one, to be written at once. What was rendered of each
        stays with it: render a joined batch by its ``parts``."""
        if len(batches) == 1:
            return batches[0]
        joined = cls([item for batch in batches for item in batch.items], batches[-1].seq)
        joined._parts = batches
        return joined

    @property
    def parts(self) -> list[Batch[T]]:
        """The batches this one joins, or itself alone."""
        return self._parts or [self]

    def once(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        """``compute()``, run by the first subscriber asking with ``key`` and shared by the rest."""
        with self._lock:
            entry = self._memo.get(key)
            if entry is None:
                entry = self._memo[key] = _Once()
        return entry.get(compute)

    def forget(self) -> None:
        """Drop what was rendered of this batch: whoever asks again computes it again (a
        subscriber already computing keeps its own result)."""
        with self._lock:
            self._memo = {}


@dataclass
class _Feed(Generic[P, T]):
    key: Hashable
    position: P  # of the newest item published (or where the reader started)
    wait: Callable[[P, int], list[T]]
    position_of: Callable[[T], P]
    batches: deque[Batch[T]] = field(default_factory=lambda: deque(maxlen=BACKLOG))
    seq: int = 0  # batches published so far
    # Set (and replaced by a fresh one) at each batch or error: subscribers wait on it. One
    # event set wakes them all at once; a condition variable would wake them one by one, each
    # re-taking its lock (a third of the fan-out's CPU with 1,000 subscribers under gevent).
    changed: threading.Event = field(default_factory=lambda: threading.Event())
    rendered: deque[Batch[T]] = field(default_factory=deque)  # those still keeping theirs
    subscribers: int = 0
    error: BaseException | None = None
    reader: threading.Thread | None = None


class Fanout:
    """The feeds of one process: one reader per followed stream, shared by its subscribers."""

    def __init__(self, block_ms: int):
        self.block_ms = block_ms
        self._lock = threading.Lock()
        self._feeds: dict[Hashable, _Feed[Any, Any]] = {}
        self._calls: dict[Hashable, _Once] = {}
        self._pid = os.getpid()

    def shared(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        """``compute()``, or the result of the same call already running in this process (one
        Redis read for a crowd arriving at once, rather than one each, queueing for the pool)."""
        with self._lock:
            entry = self._calls.get(key)
            mine = entry is None
            if mine:
                entry = self._calls[key] = _Once()
        try:
            return entry.get(compute)
        finally:
            if mine:
                with self._lock:
                    del self._calls[key]

    def readers(self) -> dict[Hashable, int]:
        """Each followed stream's key and its number of local subscribers."""
        with self._lock:
            return {key: feed.subscribers for key, feed in self._feeds.items()}

    def position(self, key: Hashable) -> Any | None:
        """Where ``key``'s live feed has read up to, or None when no one here follows it."""
        with self._lock:
            feed = self._feeds.get(key)
            return None if feed is None or feed.error is not None else feed.position

    def follow(self, key: Hashable, after: P, read: Callable[[P], list[T]],
               wait: Callable[[P, int], list[T]], position_of: Callable[[T], P],
               order: Callable[[P], Any], heartbeat: float,
               end: P | None = None, pace: float = 0.0) -> Iterator[Batch[T] | None]:
        """A stream's items after ``after``: batches to render (those read from the log or taken
        from the shared feed, less what was already sent), or None after a whole ``heartbeat``
        without any. ``read(p)`` reads the log after ``p`` (without blocking), ``wait(p, ms)``
        blocks up to ``ms`` for items after ``p``; ``order`` makes positions comparable.
        ``end``, the log's end as the caller knows it, bounds where a new feed starts, so a
        position past the end (a made-up Last-Event-ID) cannot make the feed skip items that
        other subscribers are owed. With a ``pace`` (seconds), a batch comes at most once a
        pace, joining what was published meanwhile."""
        sent = after
        start = end if end is not None and order(end) < order(after) else after

        def fresh(batch: Batch[T]) -> Batch[T] | None:
            nonlocal sent
            items = [i for i in batch.items if order(position_of(i)) > order(sent)]
            if not items:
                return None
            sent = position_of(items[-1])
            return batch if len(items) == len(batch.items) else Batch(items)

        def catch_up() -> Iterator[Batch[T]]:
            while True:
                items = read(sent)
                batch = fresh(Batch(items)) if items else None
                if batch is None:
                    return
                yield batch

        feed, seq, since = self._subscribe(key, start, wait, position_of)
        try:
            if order(since) > order(sent):
                # Last-Event-ID behind what the feed has already published (the feed itself
                # publishes everything after ``since``): the difference comes from the log.
                yield from catch_up()
            while True:
                batches, lost, error = self._next(feed, seq, heartbeat)
                if error is not None:
                    raise error
                if lost:
                    # Fallen more than BACKLOG batches behind: what the ring dropped is in the
                    # log (a reader publishes only what it read from there).
                    seq = feed.seq
                    yield from catch_up()
                    continue
                if not batches:
                    yield None
                    continue
                seq = batches[-1].seq
                news = [out for out in map(fresh, batches) if out is not None]
                if pace <= 0:
                    yield from news
                elif news:
                    yield Batch.joined(news)
                    time.sleep(pace)  # written: what comes meanwhile goes in the next write
        finally:
            self._unsubscribe(feed)

    def _subscribe(self, key: Hashable, after: P, wait: Callable[[P, int], list[T]],
                   position_of: Callable[[T], P]) -> tuple[_Feed[P, T], int, P]:
        """Join (or start) ``key``'s feed; the feed, its batch count and position then."""
        with self._lock:
            if self._pid != os.getpid():  # forked after feeds started: their readers are gone
                self._feeds, self._pid = {}, os.getpid()
            feed = self._feeds.get(key)
            if feed is None:
                feed = _Feed(key, after, wait, position_of)
                self._feeds[key] = feed
                feed.reader = threading.Thread(target=self._read, args=(feed,),
                                               name=f"fanout {key}", daemon=True)
                feed.reader.start()
                metrics.SSE_FEEDS.inc()
            feed.subscribers += 1
            return feed, feed.seq, feed.position

    def _unsubscribe(self, feed: _Feed[Any, Any]) -> None:
        with self._lock:
            feed.subscribers -= 1

    def _next(self, feed: _Feed[Any, T], seq: int,
              timeout: float) -> tuple[list[Batch[T]], bool, BaseException | None]:
        """Batches published after ``seq`` (waiting up to ``timeout`` for one), whether some
        were already dropped from the ring, and the feed's error."""
        changed = feed.changed  # before looking: a batch published after this sets it
        if feed.seq == seq and feed.error is None:
            changed.wait(timeout)
        with self._lock:
            if feed.error is not None:
                return [], False, feed.error
            if feed.seq == seq:
                return [], False, None
            if feed.batches[0].seq > seq + 1:
                return [], True, None
            count, kept = feed.seq - seq, len(feed.batches)
            return [feed.batches[i] for i in range(kept - count, kept)], False, None

    def _read(self, feed: _Feed[Any, Any]) -> None:
        """The feed's reader: block for new items and publish them until nobody follows."""
        position = feed.position
        while True:
            with self._lock:
                if feed.subscribers == 0:
                    self._drop(feed)
                    return
            try:
                items = feed.wait(position, self.block_ms)
            except Exception as exc:  # raised in every subscriber (outages end their streams)
                with self._lock:
                    feed.error = exc
                    self._drop(feed)
                    changed, feed.changed = feed.changed, threading.Event()
                changed.set()
                log.debug("feed %s stopped: %s", feed.key, exc)
                return
            if not items:
                continue
            position = feed.position_of(items[-1])
            with self._lock:
                feed.seq += 1  # before the event is swapped: see _next
                batch = Batch(items, feed.seq, time.monotonic())
                feed.batches.append(batch)
                feed.rendered.append(batch)
                _forget_old_renderings(feed.rendered, batch.published)
                feed.position = position
                changed, feed.changed = feed.changed, threading.Event()
            changed.set()

    def _drop(self, feed: _Feed[Any, Any]) -> None:
        """Forget ``feed`` (the caller holds the lock) unless a newer one took its key."""
        if self._feeds.get(feed.key) is feed:
            del self._feeds[feed.key]
            metrics.SSE_FEEDS.dec()


def _forget_old_renderings(rendered: deque[Batch[Any]], now: float) -> None:
    """Past a feed's newest RENDERED_KEPT batches, those published RENDERED_SECONDS ago let go
    of what was rendered of them, and any past the newest RENDERED_MOST."""
    while len(rendered) > RENDERED_KEPT and (len(rendered) > RENDERED_MOST
                                             or rendered[0].published <= now - RENDERED_SECONDS):
        rendered.popleft().forget()
