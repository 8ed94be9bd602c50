"""Rate limits (429): commands per player per second, kept in each API process; creating
players and games and filing disputes per minute, counted in Redis; and what keeps one player
from slowing down another (issue 23): caps on live streams, reads paid for by their cost, and
limits on bot work."""

from __future__ import annotations

import ipaddress
import logging
import math
import threading
import time
import uuid
from collections import defaultdict, deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from games.core import Text
from service.app.errors import BadRequest, RateLimited

log = logging.getLogger(__name__)


# An IPv6 subscriber is handed a whole /64 (or more), and picks any of its 2^64 addresses for
# each connection, so per-address limits count IPv6 callers by their /64 (as IPv4 callers by
# their one address); an IPv4 address written as IPv6 (::ffff:a.b.c.d) counts as itself.
IPV6_PREFIX = 64


def limited_address(address: str) -> str:
    """What the per-address limits count ``address`` as: itself (IPv4, or anything that is not
    an address), or its IPv6 network of /IPV6_PREFIX (``2001:db8:1:2::/64``)."""
    if ":" not in address:
        return address
    try:
        ip = ipaddress.IPv6Address(address.split("%", 1)[0])
    except ValueError:
        return address
    if ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    if ip.is_loopback:
        return str(ip)
    return str(ipaddress.IPv6Network((ip, IPV6_PREFIX), strict=False))


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
                                  "At most {per_second} commands a second; slow down.",
                                  params={"per_second": self.per_second},
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
                              "At most {limit} {what} every {period} seconds; try again in "
                              "{retry_after} s.",
                              params={"limit": self.limit, "what": self.what,
                                      "period": self.period, "retry_after": retry_after},
                              retry_after=retry_after)


@dataclass(frozen=True)
class Quotas:
    """The per-minute limits on creating players (per client address) and games, and on
    disputes (per player)."""

    players: WindowLimiter
    games: WindowLimiter
    disputes: WindowLimiter

    @classmethod
    def from_config(cls, config: Any, client: Any) -> Quotas:
        return cls(WindowLimiter(client, "players", config.players_per_minute,
                                 Text("new players")),
                   WindowLimiter(client, "games", config.games_per_minute, Text("new games")),
                   WindowLimiter(client, "disputes", config.disputes_per_minute,
                                 Text("disputes")))


# --- live streams (issue 23 item 4) -------------------------------------------------------------

# A lease per open stream: members are stream ids scored by when their lease runs out. Expired
# leases (a process killed with its streams open) are dropped before counting. Returns the
# number of live leases when full (refused), else false (taken).
_LEASE_LUA = """
local now, limit = tonumber(ARGV[1]), tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local open = redis.call('ZCARD', KEYS[1])
if open >= limit then return open end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4])
redis.call('PEXPIRE', KEYS[1], math.ceil((tonumber(ARGV[3]) - now) * 1000))
return false
"""

STREAM_RETRY_AFTER = 10  # seconds a refused stream is told to wait
REFUSAL_MEMORY = 1.0  # seconds a process refuses a full caller again without asking Redis
REFUSALS_REMEMBERED = 10_000


class StreamSlots:
    """Caps on open live streams (``/events/stream``, ``/me/events/stream``): per client
    address for streams without a token, per player for signed-in ones (both counted in Redis,
    fleet-wide), and per API process, where streams without a token may hold only part of the
    process's connections: the rest is the reserve of signed-in players and plain requests.

    4,000 tokenless streams from one address once took every connection of every process and
    other players' requests timed out (issue 23 item 4); now the address gets its first
    ``per_address`` and a 429 ``too_many_streams`` for the rest."""

    def __init__(self, client: Any, per_address: int, per_player: int, per_process: int,
                 anonymous_per_process: int, lease_seconds: float = 60.0,
                 clock: Callable[[], float] = time.time):
        self.per_address = per_address
        self.per_player = per_player
        self.per_process = per_process
        self.anonymous_per_process = anonymous_per_process
        self.lease = lease_seconds
        self.clock = clock
        self._lease = client.register_script(_LEASE_LUA)
        self._client = client
        self._lock = threading.Lock()
        self._refused: dict[str, float] = {}  # key -> refused until (self.clock)
        self.open = 0  # this process's streams
        self.anonymous = 0  # of which without a token

    @classmethod
    def from_config(cls, config: Any, client: Any) -> StreamSlots:
        # A lease outlives several heartbeats: each one the stream writes renews it.
        return cls(client, config.streams_per_address, config.streams_per_player,
                   config.streams_per_process, config.anonymous_streams_per_process,
                   lease_seconds=max(60.0, 4 * config.sse_heartbeat_seconds))

    def take(self, player_id: str | None, address: str) -> StreamSlot:
        """One slot for a stream of ``player_id`` (None: without a token, from ``address``);
        RateLimited (429) when the caller or this process has none left."""
        anonymous = player_id is None
        key = _slots_key(player_id, address)
        limit = self.per_address if anonymous else self.per_player
        if self._refused.get(key, 0.0) > self.clock():
            raise self._caller_full(anonymous)  # refused a moment ago: no need to ask Redis
        self._take_local(anonymous)
        member = uuid.uuid4().hex
        try:
            if limit > 0:
                now = self.clock()
                if self._lease(keys=[key], args=[repr(now), limit, repr(now + self.lease),
                                                  member]) is not None:
                    self._remember_refusal(key)
                    raise self._caller_full(anonymous)
        except BaseException:
            self._give_back_local(anonymous)
            raise
        return StreamSlot(self, key if limit > 0 else None, member, anonymous)

    def tokenless_refusal(self, address: str) -> RateLimited | None:
        """The 429 a stream without a token from ``address`` gets now, when this process can
        tell without Redis (the address was refused a moment ago, or the process's streams
        without a token are all taken); None when only ``take`` can tell. Lock-free: a
        reading a moment stale refuses what a ``take`` would have refused a moment ago."""
        if self._refused.get(_slots_key(None, address), 0.0) > self.clock():
            return self._caller_full(anonymous=True)
        return self._process_full(anonymous=True)

    def _caller_full(self, anonymous: bool) -> RateLimited:
        limit = self.per_address if anonymous else self.per_player
        who = "from one address without a token" if anonymous else "per player"
        return _too_many_streams(f"At most {limit} live streams {who}; close one first.")

    def _process_full(self, anonymous: bool) -> RateLimited | None:
        if 0 < self.per_process <= self.open:
            return _too_many_streams("This server holds all the live streams it can; "
                                     "try again later.")
        if anonymous and 0 < self.anonymous_per_process <= self.anonymous:
            return _too_many_streams("This server's streams without a token are all taken "
                                     "(the rest are kept for signed-in players); sign in "
                                     "or try again later.")
        return None

    def _remember_refusal(self, key: str) -> None:
        """A caller refused stays refused here for REFUSAL_MEMORY seconds without a Redis
        round trip: a burst of thousands of streams costs the process little but parsing."""
        with self._lock:
            if len(self._refused) >= REFUSALS_REMEMBERED:
                self._refused.clear()
            self._refused[key] = self.clock() + REFUSAL_MEMORY

    def _take_local(self, anonymous: bool) -> None:
        with self._lock:
            refusal = self._process_full(anonymous)
            if refusal is not None:
                raise refusal
            self.open += 1
            self.anonymous += anonymous

    def _give_back_local(self, anonymous: bool) -> None:
        with self._lock:
            self.open -= 1
            self.anonymous -= anonymous

    def renew(self, key: str, member: str) -> None:
        self._client.zadd(key, {member: self.clock() + self.lease}, xx=True)
        self._client.pexpire(key, math.ceil(self.lease * 1000))

    def forget(self, key: str | None, member: str, anonymous: bool) -> None:
        self._give_back_local(anonymous)
        if key is not None:
            try:
                self._client.zrem(key, member)
            except Exception:  # an outage: the lease runs out by itself
                pass


class StreamSlot:
    """One open stream's place: held by the stream once it starts (``hold``), given back when
    it ends or is closed, or by the request's teardown when no stream was made; once."""

    def __init__(self, slots: StreamSlots, key: str | None, member: str, anonymous: bool):
        self.slots = slots
        self.key = key
        self.member = member
        self.anonymous = anonymous
        self.renewed = time.monotonic()
        self.released = False

    def hold(self, stream: Iterator[Any]) -> HeldStream:
        return HeldStream(self, stream)

    def renew_if_due(self) -> None:
        """Renew the lease a third of the way through it (each chunk asks; heartbeats
        come more often than that)."""
        if self.key is not None and time.monotonic() - self.renewed > self.slots.lease / 3:
            self.renewed = time.monotonic()
            try:
                self.slots.renew(self.key, self.member)
            except Exception:  # an outage: the stream goes on (its lease is renewed next time)
                log.warning("could not renew a stream's lease", exc_info=True)

    def release(self) -> None:
        if not self.released:
            self.released = True
            self.slots.forget(self.key, self.member, self.anonymous)


class HeldStream:
    """A stream's chunks, renewing its slot's lease as they go; closing it (whether or not it
    was ever iterated) frees the slot."""

    def __init__(self, slot: StreamSlot, stream: Iterator[Any]):
        self.slot = slot
        self.stream = stream

    def __iter__(self) -> HeldStream:
        return self

    def __next__(self) -> Any:
        # Renewed once the last chunk is written, before waiting for the next, never between a
        # chunk and its write: the renewal waits its turn for a Redis connection, which at
        # 1,024 games is a second behind the moves, and held up one push in sixteen (issue 29).
        self.slot.renew_if_due()
        try:
            chunk = next(self.stream)
        except BaseException:
            self.close()
            raise
        return chunk

    def close(self) -> None:
        try:
            close = getattr(self.stream, "close", None)
            if close is not None:
                close()
        finally:
            self.slot.release()


def _slots_key(player_id: str | None, address: str) -> str:
    return f"streams:player:{player_id}" if player_id else f"streams:address:{address}"


def _too_many_streams(detail: str) -> RateLimited:
    return RateLimited("too_many_streams", detail, retry_after=STREAM_RETRY_AFTER)


# --- reads by cost (issue 23 item 5) ------------------------------------------------------------

# A token bucket: ``capacity`` units, refilled at ``rate`` units a second. Returns false when
# ``cost`` was taken, else the seconds until the bucket holds it.
_BUCKET_LUA = """
local now, rate, capacity, cost = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]),
  tonumber(ARGV[4])
local held = redis.call('HMGET', KEYS[1], 'units', 'at')
local units, at = tonumber(held[1]) or capacity, tonumber(held[2]) or now
units = math.min(capacity, units + math.max(0, now - at) * rate)
if units < cost then return tostring((cost - units) / rate) end
redis.call('HSET', KEYS[1], 'units', tostring(units - cost), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(capacity / rate * 1000) + 1000)
return false
"""


class ReadBudget:
    """Reads paid for by their work: a read of ``n`` events costs ``1 + n`` units (a page of
    the log, an audit transcript, a replay or explanation that folds ``n`` events), any other
    read 1. Each caller has a bucket in Redis (fleet-wide): a signed-in player's by player, one
    without a token's by address; it holds ``burst`` units and refills at ``per_second``.

    16 clients without a token reading ``events?limit=1000`` and ``/audit`` in a loop once took
    a bystander's move from 5 ms to 570 ms (issue 23 item 5): each such read now costs a
    thousand units, so an address gets a few a second and a 429 ``read_budget_exceeded`` for
    the rest, answered before any of the work."""

    def __init__(self, client: Any, anonymous: tuple[int, int], player: tuple[int, int],
                 clock: Callable[[], float] = time.time):
        self.anonymous = anonymous  # (per second, burst) for an address without a token
        self.player = player  # (per second, burst) for a signed-in player
        self.clock = clock
        self._take = client.register_script(_BUCKET_LUA)

    @classmethod
    def from_config(cls, config: Any, client: Any) -> ReadBudget:
        return cls(client, (config.read_units_per_second, config.read_units_burst),
                   (config.player_read_units_per_second, config.player_read_units_burst))

    def charge(self, cost: int, player_id: str | None, address: str) -> None:
        """Take ``cost`` units from the caller's bucket; RateLimited (429) when it lacks them."""
        rate, burst = self.anonymous if player_id is None else self.player
        if rate <= 0:
            return
        key = f"readbudget:address:{address}" if player_id is None \
            else f"readbudget:player:{player_id}"
        cost = max(1, min(int(cost), burst))  # a read bigger than the bucket waits for it full
        wait = self._take(keys=[key], args=[repr(self.clock()), rate, burst, cost])
        if wait is not None:
            retry_after = max(1, math.ceil(float(wait)))
            who = Text("an address without a token") if player_id is None else Text("a player")
            raise RateLimited("read_budget_exceeded",
                              "This read costs {cost} units (1 + the events it reads); {who} may "
                              "read {rate} units a second. Try again in {retry_after} s.",
                              params={"cost": cost, "who": who, "rate": rate,
                                      "retry_after": retry_after},
                              retry_after=retry_after, cost=cost)


# --- bots (issue 23 item 7) ---------------------------------------------------------------------

BOT_GAMES_RETRY_AFTER = 60  # seconds: bot-only games take minutes


class BotGames:
    """Limits on the bot work one player can order: each seat's think time, and the bot-only
    games (no human seat: they play on by themselves) a player may have running at once. Three
    games of 8 expert bots thinking 5 s a move once held the one job worker for a bystander's
    bot 3-8 s (issue 23 item 7); searches now have a worker of their own, and these keep its
    queue short."""

    def __init__(self, client: Any, lobby: Any, per_player: int, max_think_ms: int):
        self.redis = client
        self.lobby = lobby
        self.per_player = per_player
        self.max_think_ms = max_think_ms

    @classmethod
    def from_config(cls, config: Any, client: Any, lobby: Any) -> BotGames:
        return cls(client, lobby, config.bot_games_per_player, config.max_think_ms)

    def check(self, player_id: str, seats: list[dict[str, Any]]) -> None:
        """Refuse a game whose bots think too long (400 ``think_time_too_long``), or one more
        bot-only game than the player may run (429 ``too_many_bot_games``)."""
        think = max((seat.get("think_ms") or 0 for seat in seats), default=0)
        if self.max_think_ms > 0 and think > self.max_think_ms:
            raise BadRequest("think_time_too_long",
                             "A bot may think at most {max_think_ms} ms a decision on this server.",
                             params={"max_think_ms": self.max_think_ms},
                             details={"max_think_ms": self.max_think_ms})
        if self.per_player <= 0 or not _bots_only(seats):
            return
        running = self.running(player_id)
        if len(running) >= self.per_player:
            raise RateLimited("too_many_bot_games",
                              "You have {running} bot-only games running; at most {per_player} at "
                              "once. Try again when one ends.",
                              params={"running": len(running), "per_player": self.per_player},
                              retry_after=BOT_GAMES_RETRY_AFTER)

    def running(self, player_id: str) -> list[str]:
        """The player's bot-only games still open or running (the ended ones are forgotten)."""
        key = _bot_games_key(player_id)
        ids = sorted(_text(raw) for raw in self.redis.smembers(key))
        rows = self.lobby.rows(ids)
        running = [i for i in ids if rows.get(i, {}).get("status") in ("open", "running")]
        ended = set(ids) - set(running)
        if ended:
            self.redis.srem(key, *ended)
        return running

    def created(self, player_id: str, game_id: str, seats: list[dict[str, Any]]) -> None:
        """Count ``game_id`` among the player's bot-only games (if it is one)."""
        if self.per_player > 0 and _bots_only(seats):
            self.redis.sadd(_bot_games_key(player_id), game_id)


def _bots_only(seats: list[dict[str, Any]]) -> bool:
    return all(seat["kind"] == "bot" for seat in seats)


def _bot_games_key(player_id: str) -> str:
    return f"players:{player_id}:botgames"


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else value
