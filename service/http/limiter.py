"""Rate limits (429): commands per player per second, kept in each API process; creating
players and games and filing disputes per minute, counted in Redis."""

from __future__ import annotations

import math
import threading
import time
import uuid
from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

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


# Sliding log: the subject's admitted actions of the last ``period`` seconds, by time. A refused
# action is not recorded, so a client that keeps trying gets in as soon as its oldest action is
# ``period`` old. Returns nil when admitted, else the time of the oldest action still counted.
_ADMIT_LUA = """
local now, period, limit = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - period)
if redis.call('ZCARD', KEYS[1]) >= limit then
  return redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2]
end
redis.call('ZADD', KEYS[1], now, ARGV[4])
redis.call('PEXPIRE', KEYS[1], math.ceil(period * 1000) + 1000)
return false
"""


class WindowLimiter:
    """At most ``limit`` actions per subject in any ``period`` seconds, counted in Redis so that
    every API process shares one count (a per-process count would multiply the limit by the
    number of processes). For rare, costly actions: creating players and games, disputes.

    A sliding window, one script call per action: a fixed window (one counter per minute) lets a
    burst across the minute's edge reach twice the limit, and answers differently a few
    milliseconds apart for no reason a client can see.
    """

    def __init__(self, client: Any, name: str, limit: int, what: str, period: int = 60,
                 clock: Callable[[], float] = time.time):
        self.name = name
        self.limit = limit
        self.what = what
        self.period = period
        self.clock = clock
        self._admit = client.register_script(_ADMIT_LUA)

    def check(self, subject: str) -> None:
        """Count one action by ``subject``; RateLimited (429) past the limit."""
        if self.limit <= 0:
            return
        now = self.clock()
        oldest = self._admit(keys=[f"ratelimit:{self.name}:{subject}"],
                             args=[repr(now), self.period, self.limit,
                                   f"{now!r}:{uuid.uuid4().hex}"])
        if oldest is not None:
            retry_after = max(1, math.ceil(float(oldest) + self.period - now))
            raise RateLimited("rate_limited",
                              f"At most {self.limit} {self.what} every {self.period} seconds; "
                              f"try again in {retry_after} s.", retry_after=retry_after)


@dataclass(frozen=True)
class Quotas:
    """The per-minute limits on creating players (per client address) and games, and on
    disputes (per player)."""

    players: WindowLimiter
    games: WindowLimiter
    disputes: WindowLimiter

    @classmethod
    def from_config(cls, config: Any, client: Any) -> Quotas:
        return cls(WindowLimiter(client, "players", config.players_per_minute, "new players"),
                   WindowLimiter(client, "games", config.games_per_minute, "new games"),
                   WindowLimiter(client, "disputes", config.disputes_per_minute, "disputes"))
