"""Appends heard live: each append publishes its events on its game's channel (append.lua), and
a process hears every game its callers wait on through one pub/sub connection (issue 29).

Before, each game a process followed parked an XREAD BLOCK of its own, re-sent after every
move: a round trip per move and process, a tenth of an API process's CPU in a real game. Now
the events come to the process in the append's own publish, and many games' moves share a read
of the one socket.

The log stays the truth; a channel is only a hint that carries the events along:

- a waiter joins a game's channel (SUBSCRIBE, confirmed before it goes on) and then reads the
  log once after its position, so nothing appended just before the subscription took hold is
  missed; after that it takes what it hears;
- what it hears is kept per channel (the latest ``KEPT`` appends); a waiter whose position is
  behind what is kept, or who hears a gap, reads the log instead;
- a wait that hears nothing for its whole block reads the log once (as the XREAD it replaces
  would have been re-sent), so even a publish that never came is caught within a block;
- when the connection fails, every waiter gets the error (a stream then ends, and its client
  reconnects with Last-Event-ID, as on an XREAD's error) and the next wait starts afresh;
- a channel nobody waited on for ``IDLE_SECONDS`` is left (UNSUBSCRIBE), and the listener stops
  once it has no channel.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

import orjson

from events.store import StoredEvent

log = logging.getLogger(__name__)

KEPT = 64  # appends heard kept per channel, for waiters not yet caught up with them
IDLE_SECONDS = 30.0  # a channel nobody waited on this long is left
LISTEN_SECONDS = 1.0  # the listener's longest read: how often it looks for idle channels
JOIN_TIMEOUT = 5.0  # s a waiter waits for its SUBSCRIBE to be confirmed


def payload(events: list[StoredEvent]) -> str:
    """What an append publishes: its events, each as [version, type, data, seat, cmd, at,
    prev, hash, command]."""
    rows = [[e.version, e.type, e.data, e.seat, e.cmd, e.at, e.prev, e.hash, e.command]
            for e in events]
    try:
        return orjson.dumps(rows).decode()
    except TypeError:  # orjson.JSONEncodeError: e.g. an integer beyond 64 bits
        return json.dumps(rows, separators=(",", ":"), ensure_ascii=False)


def parse(message: str) -> list[StoredEvent]:
    """The events of a ``payload``."""
    return [StoredEvent(int(v), t, d, s, c, int(a), p, h, command)
            for v, t, d, s, c, a, p, h, command in orjson.loads(message)]


class _Channel:
    def __init__(self) -> None:
        self.joined = threading.Event()  # its SUBSCRIBE confirmed
        self.heard: deque[StoredEvent] = deque()  # the latest events heard, in order
        self.changed = threading.Event()  # set (and replaced) when something is heard
        self.epoch = 0  # connections it was subscribed on: a new one may have missed appends
        # Read from the log up to this version since this epoch's subscription: everything
        # after it is heard. (None: not read since.)
        self.synced: tuple[int, int] | None = None
        self.error: BaseException | None = None  # the connection failed for good
        self.waiters = 0
        self.used = time.monotonic()

    def hear(self, events: list[StoredEvent]) -> None:
        self.heard.extend(events)
        while len(self.heard) > KEPT:
            self.heard.popleft()


class LiveChannels:
    """The channels one process listens to, on one pub/sub connection of ``client`` (a client
    that does not retry by itself: a lost connection must be known, as appends may have been
    published while it was down)."""

    def __init__(self, client: Any):
        self.client = client
        self._lock = threading.Lock()
        self._channels: dict[str, _Channel] = {}
        self._pubsub: Any = None
        self._starting = False  # a connection is being opened (without the lock held)

    def wait(self, channel: str, after: int, block_ms: int,
             read: Callable[[int], list[StoredEvent]]) -> list[StoredEvent]:
        """Events after version ``after``, waiting up to ``block_ms`` for the first one;
        ``read(after)`` reads them from the log."""
        entry = self._join(channel)
        try:
            deadline = time.monotonic() + block_ms / 1000
            while True:
                changed = entry.changed  # before looking: what is heard after this sets it
                if entry.error is not None:
                    raise entry.error
                if not self._synced(entry, after):
                    found = self._sync(entry, channel, after, read)
                    if found:
                        return found
                    continue
                found, behind = self._heard(entry, after)
                if found or behind:
                    return found if found else read(after)
                left = deadline - time.monotonic()
                if left <= 0:
                    return read(after)  # a whole block without news: the log says for sure
                changed.wait(left)
        finally:
            with self._lock:
                entry.waiters -= 1
                entry.used = time.monotonic()

    def _synced(self, entry: _Channel, after: int) -> bool:
        """Whether every event after ``after`` will be heard (or was)."""
        with self._lock:
            return entry.synced is not None and entry.synced[0] == entry.epoch \
                and after >= entry.synced[1]

    def _sync(self, entry: _Channel, channel: str, after: int,
              read: Callable[[int], list[StoredEvent]]) -> list[StoredEvent]:
        """Read the log after ``after`` once the subscription holds: what came before it
        took hold is there, what comes after is heard."""
        if not entry.joined.wait(JOIN_TIMEOUT):
            raise TimeoutError(f"no confirmation of SUBSCRIBE {channel}")
        if entry.error is not None:
            raise entry.error
        epoch = entry.epoch
        found = read(after)
        through = found[-1].version if found else after
        with self._lock:
            if entry.epoch == epoch:
                if entry.synced is None or entry.synced[0] != epoch:
                    entry.synced = (epoch, through)
                else:
                    entry.synced = (epoch, min(entry.synced[1], through))
        return found

    def _heard(self, entry: _Channel, after: int) -> tuple[list[StoredEvent], bool]:
        """What ``entry`` heard after ``after``, and whether some of it was not kept."""
        with self._lock:
            heard = list(entry.heard)
        if not heard or heard[-1].version <= after:
            return [], False
        if heard[0].version > after + 1:
            return [], True  # a gap: what came between was dropped, or never heard
        return [e for e in heard if e.version > after], False

    def _join(self, channel: str) -> _Channel:
        """``channel``'s entry, subscribed to (or about to be) and counted as waited on. The
        connection is opened without the lock held: a Redis slow to answer would otherwise
        stop every wait and every message of the process for up to its connect timeout."""
        start = False
        with self._lock:
            entry = self._channels.get(channel)
            if entry is None:
                entry = self._channels[channel] = _Channel()
                if self._pubsub is not None:
                    try:
                        self._pubsub.subscribe(channel)
                    except Exception:
                        del self._channels[channel]
                        raise
                elif not self._starting:  # else the start under way subscribes it too
                    self._starting = start = True
            entry.waiters += 1
        if start:
            self._start()
        return entry

    def _start(self) -> None:
        """Open a pub/sub connection on every channel and start its listener (lock not held;
        the caller set ``_starting``). When that fails, every waiter gets the error (a stream
        then ends, and its client reconnects) and so does the caller."""
        pubsub = self.client.pubsub(ignore_subscribe_messages=False)
        with self._lock:
            first = list(self._channels)
        try:
            pubsub.subscribe(*first)
        except Exception as exc:
            pubsub.close()
            with self._lock:
                self._starting = False
                entries = list(self._channels.values())
                self._channels = {}
                for entry in entries:
                    entry.error = exc
                    entry.joined.set()
            self._wake(entries)
            raise
        with self._lock:
            late = [name for name in self._channels if name not in first]
            try:
                if late:  # joined while the connection was being opened
                    pubsub.subscribe(*late)
            except Exception as exc:  # the listener's first read fails too, and reconnects
                log.debug("live channels: subscribing %d more failed: %s", len(late), exc)
            self._pubsub = pubsub
            self._starting = False
        threading.Thread(target=self._listen, args=(pubsub,), name="live channels",
                         daemon=True).start()

    def _wake(self, entries: list[_Channel]) -> None:
        """Wake every waiter of ``entries`` (to look at their error or epoch)."""
        with self._lock:
            wake = [entry.changed for entry in entries]
            for entry in entries:
                entry.changed = threading.Event()
        for changed in wake:
            changed.set()

    def _listen(self, pubsub: Any) -> None:
        try:
            swept = time.monotonic()
            while True:
                message = pubsub.get_message(timeout=LISTEN_SECONDS)
                if message is not None:
                    self._dispatch(message)
                if time.monotonic() - swept >= LISTEN_SECONDS:  # not after every message
                    swept = time.monotonic()
                    if self._leave_idle(pubsub):
                        return
        except Exception as exc:
            log.debug("live channels connection lost: %s", exc)
            self._reconnect(pubsub, exc)

    def _dispatch(self, message: dict[str, Any]) -> None:
        kind, channel = message["type"], message["channel"]
        if kind not in ("subscribe", "message"):
            return
        events = parse(message["data"]) if kind == "message" else []
        with self._lock:
            entry = self._channels.get(channel)
            if entry is None:
                return
            if kind == "subscribe":
                entry.joined.set()
                return
            entry.hear(events)
            changed, entry.changed = entry.changed, threading.Event()
        changed.set()

    def _leave_idle(self, pubsub: Any) -> bool:
        """Unsubscribe from channels no one waited on lately; True when none is left (the
        listener then stops, and the next wait opens a new connection)."""
        now = time.monotonic()
        with self._lock:
            idle = [name for name, entry in self._channels.items()
                    if entry.waiters == 0 and now - entry.used > IDLE_SECONDS]
            for name in idle:
                del self._channels[name]
            if self._channels:
                if idle:
                    pubsub.unsubscribe(*idle)
                return False
            self._pubsub = None
        pubsub.close()
        return True

    def _reconnect(self, lost: Any, error: BaseException) -> None:
        """After the connection was lost: subscribe again on a new one (every waiter then
        reads the log once, for what was published meanwhile), or, when that fails too, give
        every waiter the error (a stream ends and its client reconnects)."""
        try:
            lost.close()
        except Exception:  # already broken
            pass
        with self._lock:
            if self._pubsub is lost:
                self._pubsub = None
            entries = list(self._channels.values())
            for entry in entries:
                entry.joined.clear()
                entry.epoch += 1
            start = bool(self._channels) and self._pubsub is None and not self._starting
            if start:
                self._starting = True
        self._wake(entries)
        if not start:
            return
        try:
            self._start()
        except Exception as again:
            # Worth a warning only while someone waits (not when a server shuts down).
            level = logging.WARNING if any(e.waiters for e in entries) else logging.DEBUG
            log.log(level, "live channels: Redis unreachable: %s", again)
