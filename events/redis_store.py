"""The event store on Redis Streams (DESIGN.md, Events and the store).

Round trips per append: one (the Lua script) when the store already knows the hash at the
expected version, which it learns from every ``append``, ``read`` and ``wait`` it serves, so the
usual read-fold-decide-append cycle costs one; otherwise two (a pipelined read of meta and the
command id, then the script). The hash chain uses sha256, which Redis 6.2's Lua lacks, so the
hashes must be computed in Python before the script runs, and for that Python needs the previous
hash. A wrong cached hash cannot corrupt the chain: the script re-checks version and last_hash.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from importlib import resources
from typing import Any

import redis
from redis.cluster import RedisCluster

from events.codec import GENESIS, canonical, event_hash
from events.store import (
    AppendResult,
    GameExists,
    GameNotFound,
    NewEvent,
    Snapshot,
    StoredEvent,
    VersionConflict,
)

RedisClient = redis.Redis | RedisCluster

_RESERVED_META = frozenset({"version", "last_hash"})  # owned by the append script
_HASH_CACHE_SIZE = 10_000

# Atomic create: refuse an existing id without a read-then-write race.
_CREATE_LUA = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'version', '0', 'last_hash', ARGV[2])
for i = 3, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('SET', KEYS[2], ARGV[1])
return 1
"""

# Save a snapshot: into the periodic set (one per version, scored by version, so replay finds
# the nearest one at or below any version in one ZREVRANGEBYSCORE), and as the latest unless a
# newer latest is already stored (a replay may backfill an old one after the live path moved on).
_SAVE_SNAPSHOT_LUA = """
local v = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], v, v)
redis.call('ZADD', KEYS[2], v, ARGV[1] .. ':' .. ARGV[2])
local current = redis.call('HGET', KEYS[1], 'version')
if not current or tonumber(current) <= v then
  redis.call('HSET', KEYS[1], 'version', ARGV[1], 'state', ARGV[2])
end
return 1
"""


def connect(url: str, cluster: bool | None = None) -> RedisClient:
    """Return a client for ``url`` with decoded (str) responses; ``cluster`` for Redis Cluster
    (default: $REDIS_CLUSTER is "1")."""
    if cluster is None:
        cluster = os.environ.get("REDIS_CLUSTER") == "1"
    # socket_timeout stays None: wait() blocks in XREAD for longer than any sensible read timeout.
    if cluster:
        return RedisCluster.from_url(url, decode_responses=True)
    return redis.Redis.from_url(url, decode_responses=True)


def _key(game_id: str, part: str) -> str:
    """Return the key of one part of a game, hash-tagged so the game lives in one cluster slot."""
    return f"{{g:{game_id}}}:{part}"


def _text(value: Any) -> str:
    """Return ``value`` as str whether the client decodes responses or not."""
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def _check_id(game_id: str) -> None:
    """Reject ids that would break the key's hash tag."""
    if not game_id or "{" in game_id or "}" in game_id:
        raise ValueError(f"invalid game id {game_id!r}")


def _parse_entry(entry_id: Any, fields: dict[Any, Any]) -> StoredEvent:
    """Turn one stream entry into a StoredEvent."""
    f = {_text(k): _text(v) for k, v in fields.items()}
    return StoredEvent(version=int(_text(entry_id).split("-", 1)[0]), type=f["type"],
                       data=json.loads(f["data"]), seat=f["seat"], cmd=f["cmd"], at=int(f["at"]),
                       prev=f["prev"], hash=f["hash"],
                       command=json.loads(f["command"]) if f.get("command") else None)


class RedisEventStore:
    """EventStore on Redis Streams; one Lua script per append."""

    def __init__(self, client: RedisClient):
        self.client = client
        script = resources.files("events").joinpath("append.lua").read_text(encoding="utf-8")
        self._append = client.register_script(script)
        self._create = client.register_script(_CREATE_LUA)
        self._save_snapshot = client.register_script(_SAVE_SNAPSHOT_LUA)
        # game id -> (version, hash at that version). Log entries never change, so a hash once
        # seen stays true; only the newest per game is kept since appends go after the newest.
        self._known: OrderedDict[str, tuple[int, str]] = OrderedDict()
        self._known_lock = threading.Lock()

    def _remember(self, game_id: str, version: int, hash_: str) -> None:
        """Record the hash at ``version`` unless a newer one is known."""
        with self._known_lock:
            known = self._known.get(game_id)
            if known is None or known[0] <= version:
                self._known[game_id] = (version, hash_)
            self._known.move_to_end(game_id)
            while len(self._known) > _HASH_CACHE_SIZE:
                self._known.popitem(last=False)

    def _known_hash(self, game_id: str, version: int) -> str | None:
        """Return the cached hash at ``version``, if that is what is cached."""
        if version == 0:
            return GENESIS
        with self._known_lock:
            known = self._known.get(game_id)
        return known[1] if known is not None and known[0] == version else None

    def _forget(self, game_id: str) -> None:
        """Drop a cached hash the script has disproved."""
        with self._known_lock:
            self._known.pop(game_id, None)

    def create(self, game_id: str, meta: dict[str, str], secret: str) -> None:
        """Create a game's meta and secret (GameExists if the id is taken)."""
        _check_id(game_id)
        reserved = _RESERVED_META & meta.keys()
        if reserved:
            raise ValueError(f"meta fields {sorted(reserved)} are managed by the store")
        args: list[str] = [secret, GENESIS]
        for name, value in meta.items():
            args += [name, str(value)]
        created = self._create(keys=[_key(game_id, "meta"), _key(game_id, "secret")], args=args)
        if not int(created):
            raise GameExists(game_id)

    def append(self, game_id: str, expected_version: int, events: list[NewEvent],
               command_id: str | None = None, meta: dict[str, str] | None = None) -> AppendResult:
        """Append atomically after ``expected_version``; raise VersionConflict when stale."""
        _check_id(game_id)
        if not events:
            raise ValueError("append needs at least one event")
        if expected_version < 0:
            raise ValueError("expected_version must be >= 0")
        meta = meta or {}
        reserved = _RESERVED_META & meta.keys()
        if reserved:
            raise ValueError(f"meta fields {sorted(reserved)} are managed by the store")
        cmd = command_id or ""
        meta_key, cmds_key = _key(game_id, "meta"), _key(game_id, "cmds")

        prev = self._known_hash(game_id, expected_version)
        if prev is None:
            # One pipelined read answers everything the script would refuse on, so a refusal
            # costs one round trip, and a go-ahead two.
            pipe = self.client.pipeline(transaction=False)
            pipe.hmget(meta_key, ["version", "last_hash"])
            if cmd:
                pipe.hget(cmds_key, cmd)
            replies = pipe.execute()
            version, last_hash = replies[0]
            if cmd and replies[1] is not None:
                return _range(replies[1], duplicate=True)
            if version is None:
                raise GameNotFound(game_id)
            if int(version) != expected_version:
                raise VersionConflict(expected_version, int(version))
            prev = _text(last_hash)

        at = int(time.time() * 1000)
        args: list[Any] = [expected_version, prev, cmd, len(events), len(meta)]
        link = prev
        stored = []
        for i, event in enumerate(events, start=1):
            version = expected_version + i
            seat = str(event.seat)
            # Hash and store what a reader will parse back (tuples become lists, int keys
            # strings), so re-hashing a stored event always gives the stored hash.
            data = json.loads(canonical(event.data))
            body = canonical(data)
            command = None if event.command is None else json.loads(canonical(event.command))
            link_next = event_hash(version, event.type, data, seat, cmd, at, link, command)
            args += [event.type, body, seat, cmd, at, link, link_next,
                     "" if command is None else canonical(command)]
            stored.append(StoredEvent(version, event.type, data, seat, cmd, at, link, link_next,
                                      command))
            link = link_next
        for name, value in meta.items():
            args += [name, str(value)]

        reply = [_text(x) for x in self._append(keys=[meta_key, _key(game_id, "log"), cmds_key],
                                                args=args)]
        status = reply[0]
        if status == "ok":
            result = AppendResult(int(reply[1]), int(reply[2]), events=tuple(stored))
            self._remember(game_id, result.last_version, link)
            return result
        if status == "dup":
            return AppendResult(int(reply[1]), int(reply[2]), duplicate=True)
        if status == "notfound":
            raise GameNotFound(game_id)
        # The version or the hash we chained from was stale: forget it so a retry re-reads.
        self._forget(game_id)
        raise VersionConflict(expected_version, int(reply[1]))

    def read(self, game_id: str, first: int = 1, last: int | None = None) -> list[StoredEvent]:
        """Events with ``first <= version <= last`` in order ([] for an unknown game)."""
        _check_id(game_id)
        end = "+" if last is None else f"{last}-0"
        entries = self.client.xrange(_key(game_id, "log"), f"{max(first, 1)}-0", end)
        events = [_parse_entry(entry_id, fields) for entry_id, fields in entries]
        if events:
            self._remember(game_id, events[-1].version, events[-1].hash)
        return events

    def wait(self, game_id: str, after: int, block_ms: int) -> list[StoredEvent]:
        """Events after ``after``, blocking up to ``block_ms`` for the first one (XREAD BLOCK)."""
        _check_id(game_id)
        # XREAD BLOCK 0 would block forever; a non-positive wait means "do not block".
        block = block_ms if block_ms > 0 else None
        reply = self.client.xread({_key(game_id, "log"): f"{after}-0"}, block=block)
        if not reply:
            return []
        # RESP2 answers [[key, entries]], RESP3 {key: [entries]}.
        streams = reply.values() if isinstance(reply, dict) else [entries for _, entries in reply]
        events = [_parse_entry(eid, fields) for entries in streams for eid, fields in entries]
        if events:
            self._remember(game_id, events[-1].version, events[-1].hash)
        return events

    def last_version(self, game_id: str) -> int:
        """The game's last version (0 before the first event)."""
        _check_id(game_id)
        version = self.client.hget(_key(game_id, "meta"), "version")
        if version is None:
            raise GameNotFound(game_id)
        return int(version)

    def meta(self, game_id: str) -> dict[str, str]:
        """The game's meta hash, including ``version`` and ``last_hash``."""
        _check_id(game_id)
        fields = self.client.hgetall(_key(game_id, "meta"))
        if not fields:
            raise GameNotFound(game_id)
        return {_text(k): _text(v) for k, v in fields.items()}

    def secret(self, game_id: str) -> str:
        """The game's secret seed."""
        _check_id(game_id)
        value = self.client.get(_key(game_id, "secret"))
        if value is None:
            raise GameNotFound(game_id)
        return _text(value)

    def command_version(self, game_id: str, command_id: str) -> tuple[int, int] | None:
        """The (first, last) versions a command id produced, or None if unseen."""
        _check_id(game_id)
        seen = self.client.hget(_key(game_id, "cmds"), command_id)
        if seen is None:
            return None
        result = _range(seen)
        return result.first_version, result.last_version

    def load_snapshot(self, game_id: str, at_most: int | None = None) -> Snapshot | None:
        """The latest snapshot, or with ``at_most`` the newest at or below that version; None
        when there is none. One round trip either way."""
        _check_id(game_id)
        if at_most is None:
            fields = self.client.hgetall(_key(game_id, "snap"))
            if not fields:
                return None
            f = {_text(k): _text(v) for k, v in fields.items()}
            return Snapshot(version=int(f["version"]), state=json.loads(f["state"]))
        found = self.client.zrevrangebyscore(_key(game_id, "snaps"), at_most, "-inf",
                                             start=0, num=1)
        if not found:
            return None
        version, state = _text(found[0]).split(":", 1)
        return Snapshot(version=int(version), state=json.loads(state))

    def save_snapshot(self, game_id: str, snapshot: Snapshot) -> None:
        """Keep ``snapshot`` among the game's periodic snapshots, and as its latest unless a
        newer one is stored (one script, so version and state change together)."""
        _check_id(game_id)
        state = json.dumps(snapshot.state, separators=(",", ":"), ensure_ascii=False)
        self._save_snapshot(keys=[_key(game_id, "snap"), _key(game_id, "snaps")],
                            args=[str(snapshot.version), state])

    def delete_snapshot(self, game_id: str) -> None:
        """Drop every snapshot; they are a cache, so nothing is lost."""
        _check_id(game_id)
        self.client.delete(_key(game_id, "snap"), _key(game_id, "snaps"))

    def game_ids(self) -> Iterator[str]:
        """Every game id in the store, in no particular order (SCAN; on Cluster, every node)."""
        prefix, suffix = "{g:", "}:meta"
        for key in self.client.scan_iter(match="{g:*}:meta", count=1000):
            name = _text(key)
            if name.startswith(prefix) and name.endswith(suffix):
                yield name[len(prefix):-len(suffix)]


def _range(seen: Any, duplicate: bool = False) -> AppendResult:
    """Parse a ``first:last`` command record."""
    first, last = _text(seen).split(":", 1)
    return AppendResult(int(first), int(last), duplicate=duplicate)
