"""The encoded answers to long reads (a page of the log, an audit transcript), kept per process
for as long as the log they show stays the same (issue 23 item 5).

A 1,000-event page or a whole transcript costs one API process 10-40 ms of CPU to read, redact
and encode; anyone may ask for a finished game's again and again, and a bystander's move that
lands behind such a read waits for it. An answer depends only on the game's version, who is
reading (their seat, a spectator, the auditor) and the range asked for, so the bytes made for
one reader serve the next at the cost of a lookup. Small pages are cheap to make and would only
churn the cache: they are not kept.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable

from cachetools import LRUCache

MAX_BYTES = 32 * 1024 * 1024  # per API process: ~30 transcripts of 1,000 events
MIN_EVENTS = 100  # a page of fewer events is made afresh each time


class LongReads:
    """Encoded answers by key, least recently used dropped first past ``max_bytes``."""

    def __init__(self, max_bytes: int = MAX_BYTES):
        self._answers: LRUCache[Hashable, bytes] = LRUCache(maxsize=max_bytes, getsizeof=len)
        self._lock = threading.Lock()  # one per process, whatever runs its requests

    def encoded(self, key: Hashable, events: int, make: Callable[[], bytes]) -> bytes:
        """The answer kept under ``key``, else ``make()``'s (kept when it holds ``events`` of
        MIN_EVENTS or more; an answer larger than the whole cache is not kept)."""
        with self._lock:
            kept = self._answers.get(key)
        if kept is not None:
            return kept
        answer = make()
        if events >= MIN_EVENTS and len(answer) <= self._answers.maxsize:
            with self._lock:
                self._answers[key] = answer
        return answer


LONG_READS = LongReads()
