"""A per-player command rate limit (429), kept in each API process."""

from __future__ import annotations

import threading
import time
from collections import defaultdict, deque

from service.errors import RateLimited


class RateLimiter:
    """At most ``per_second`` commands per player in any one-second window, per process."""

    def __init__(self, per_second: int):
        self.per_second = per_second
        self._seen: dict[str, deque[float]] = defaultdict(deque)
        self._lock = threading.Lock()

    def check(self, player_id: str) -> None:
        if self.per_second <= 0:
            return
        now = time.monotonic()
        with self._lock:
            seen = self._seen[player_id]
            while seen and now - seen[0] >= 1.0:
                seen.popleft()
            if len(seen) >= self.per_second:
                raise RateLimited("rate_limited",
                                  f"At most {self.per_second} commands a second; slow down.",
                                  retry_after=1)
            seen.append(now)
