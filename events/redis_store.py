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
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from importlib import resources
from typing import Any

import orjson
import redis
from redis.backoff import NoBackoff
from redis.client import NEVER_DECODE
from redis.cluster import REDIS_ALLOWED_KEYS, RedisCluster
from redis.driver_info import DriverInfo
from redis.exceptions import ClusterDownError, SlotNotCoveredError, TryAgainError
from redis.retry import Retry

from events.archive import Archive, ArchiveCorrupt, pack, unpack
from events.codec import GENESIS, canonical, envelope_hash
from events.fair_queue import FairPool
from events.live import LiveChannels
from events.live import payload as live_payload
from events.store import (
    AppendResult,
    CommandRecord,
    CommandReused,
    GameArchived,
    GameExists,
    GameNotFound,
    NewEvent,
    Outbox,
    OutboxReplies,
    Snapshot,
    StoredEvent,
    StoreUnavailable,
    VersionConflict,
)

RedisClient = redis.Redis | RedisCluster

_RESERVED_META = frozenset({"version", "last_hash"})  # owned by the append script
_HASH_CACHE_SIZE = 10_000

# Atomic create: refuse an existing id (live or archived) without a read-then-write race.
_CREATE_LUA = """
if redis.call('EXISTS', KEYS[1]) == 1 or redis.call('EXISTS', KEYS[3]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'version', '0', 'last_hash', ARGV[2])
for i = 3, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('SET', KEYS[2], ARGV[1])
return 1
"""

# Save a snapshot: into the periodic set (one per version, scored by version, so replay finds
# the nearest one at or below any version in one ZREVRANGEBYSCORE), and as the latest unless a
# newer latest is already stored (a replay may backfill an old one after the live path moved on).
_SAVE_SNAPSHOT_LUA = """
if redis.call('EXISTS', KEYS[3]) == 0 then return 0 end
local v = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], v, v)
redis.call('ZADD', KEYS[2], v, ARGV[1] .. ':' .. ARGV[2])
local current = redis.call('HGET', KEYS[1], 'version')
if not current or tonumber(current) <= v then
  redis.call('HSET', KEYS[1], 'version', ARGV[1], 'state', ARGV[2])
end
return 1
"""


# Archiving (issue 13): write the blob only while the live log is still at the version it was
# packed from; then, in a second script run after the blob was read back and checked, remove
# the live keys only if the blob is there and the log has not moved. A crash between the two
# leaves both (reads prefer the live keys; the next attempt redoes it), never neither.
_ARCHIVE_WRITE_LUA = """
if redis.call('HGET', KEYS[1], 'version') ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[2])
return 1
"""
_ARCHIVE_DROP_LUA = """
if redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
if redis.call('HGET', KEYS[1], 'version') ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7])
return 1
"""
# Parts of a game that archiving removes from memory (snap/snaps are caches: not archived).
_LIVE_PARTS = ("meta", "log", "cmds", "secret", "snap", "snaps")
_ARCHIVE_CACHE_SIZE = 256  # unpacked archives kept per process (they never change)

# Timeouts and pools, set on purpose (issue 9 item 1): redis-py 8 defaults to a 5 s socket
# timeout and 100 connections a pool, which cut idle SSE streams and turned a burst into 500s.
SOCKET_TIMEOUT = 2.0  # s, every ordinary command: each takes milliseconds, so a hung Redis
CONNECT_TIMEOUT = 1.0  # fails fast (503) instead of parking the request
POOL_SIZE = 100  # ordinary commands, per process: each holds a connection for a round trip
# s a request waits for a free connection before it is refused (503). Under a full load a
# process has far more requests in flight (gevent: up to --worker-connections) than connections,
# and each waits its turn: at 1,024 games a turn took over 2 s and moves failed (issue 13). A
# hung Redis still fails them within SOCKET_TIMEOUT, since its holders give their connection back.
POOL_WAIT = 10.0
# Blocking reads (XREAD BLOCK, one per game or inbox followed by the process's SSE streams:
# service.runtime.fanout) have their own pool, so parked reads never take the connections moves
# need, sized like gunicorn's --worker-connections (a stream each, at worst), and a socket
# timeout longer than any block they may ask for, so a hung Redis still cannot park them forever.
MAX_BLOCK_MS = 60_000
STREAM_POOL_SIZE = 2000
STREAM_POOL_WAIT = 5.0
# What each connection tells the server of its library (CLIENT SETINFO), made once per process:
# left to redis-py 8, every new connection read the package's metadata again (0.6 ms of CPU),
# and a pool growing under a burst of 4,000 connections paid it for each of its connections.
DRIVER_INFO = DriverInfo()


def _setting(name: str, default: float) -> float:
    """A number from the environment (``REDIS_SOCKET_TIMEOUT`` etc.), else ``default``."""
    value = os.environ.get(name)
    return float(value) if value else default


def client_options(blocking: bool = False) -> dict[str, Any]:
    """The connection settings of a store client (``blocking``: for XREAD BLOCK)."""
    socket_timeout = _setting("REDIS_SOCKET_TIMEOUT", SOCKET_TIMEOUT)
    options: dict[str, Any] = {
        "decode_responses": True,
        "socket_connect_timeout": _setting("REDIS_CONNECT_TIMEOUT", CONNECT_TIMEOUT),
        "socket_timeout": socket_timeout + MAX_BLOCK_MS / 1000 if blocking else socket_timeout,
        "max_connections": int(_setting("REDIS_STREAM_POOL_SIZE" if blocking
                                        else "REDIS_POOL_SIZE",
                                        STREAM_POOL_SIZE if blocking else POOL_SIZE)),
        # A burst waits for a connection instead of failing with "Too many connections".
        "timeout": STREAM_POOL_WAIT if blocking else _setting("REDIS_POOL_WAIT", POOL_WAIT),
        # One immediate retry on a fresh connection covers a Redis restart (pooled sockets are
        # dead); none after a timeout, which would only double the wait on a hung server. A
        # retried append is safe: its command id makes the second run a duplicate.
        "retry": Retry(NoBackoff(), 1, supported_errors=(redis.ConnectionError,)),
        "driver_info": DRIVER_INFO,
    }
    return options


def connect(url: str, cluster: bool | None = None, blocking: bool = False) -> RedisClient:
    """Return a client for ``url`` with decoded (str) responses; ``cluster`` for Redis Cluster
    (default: $REDIS_CLUSTER is "1"); ``blocking`` for the client of blocking reads."""
    if cluster is None:
        cluster = os.environ.get("REDIS_CLUSTER") == "1"
    options = client_options(blocking)
    if cluster:
        retry = options.pop("retry")
        return RedisCluster.from_url(url, connection_pool_class=FairPool,
                                     retry=Retry(NoBackoff(), retry.get_retries()), **options)
    pool = FairPool.from_url(url, **options)
    return redis.Redis(connection_pool=pool)


def pubsub_client(client: redis.Redis) -> redis.Redis:
    """A client on ``client``'s server for a pub/sub connection (events.live) that never
    reconnects by itself: appends published while it was down must be known to be missed."""
    kwargs = dict(client.connection_pool.connection_kwargs)
    kwargs.update(client_options(blocking=True))
    kwargs.pop("timeout", None)  # a BlockingConnectionPool's
    kwargs["retry"] = Retry(NoBackoff(), 0)
    return redis.Redis(connection_pool=redis.ConnectionPool(
        connection_class=client.connection_pool.connection_class, **kwargs))


_CLUSTER_OWN_KEYS = frozenset({"host", "port", "db", "retry", "connection_pool"})


def blocking_client(client: RedisClient) -> RedisClient:
    """A client on ``client``'s server(s) for blocking reads, with a pool of its own."""
    return _own_pool_client(client, client_options(blocking=True))


SIDE_POOL_SIZE = 4


def side_client(client: RedisClient) -> RedisClient:
    """A client on ``client``'s server(s) with a small pool of its own, for a process's own
    upkeep done in the background (re-checking its cached tokens): it never queues behind the
    requests in flight for the ordinary pool, which under a full load is a second or more."""
    options = client_options()
    options["max_connections"] = SIDE_POOL_SIZE
    return _own_pool_client(client, options)


def _own_pool_client(client: RedisClient, options: dict[str, Any]) -> RedisClient:
    """A client on ``client``'s server(s) with ``options`` and a pool of its own."""
    if isinstance(client, RedisCluster):
        # The nodes' connection settings (password, TLS...), less what RedisCluster refuses.
        kwargs = {k: v for k, v in client.nodes_manager.connection_kwargs.items()
                  if k in REDIS_ALLOWED_KEYS and k not in _CLUSTER_OWN_KEYS}
        kwargs.update(options, connection_pool_class=FairPool, retry=Retry(NoBackoff(), 1))
        # Through a URL, as connect() does: only then does RedisCluster build each node's pool
        # from connection_pool_class (a blocking pool of our size).
        node = client.get_default_node() or client.get_nodes()[0]
        return RedisCluster(url=f"redis://{node.host}:{node.port}", **kwargs)
    kwargs = dict(client.connection_pool.connection_kwargs)
    kwargs.update(options)
    return redis.Redis(connection_pool=FairPool(
        connection_class=client.connection_pool.connection_class, **kwargs))


# Error replies that mean "the store cannot serve now" rather than "this request is wrong": the
# append-only file cannot be written (MISCONF), the server is loading, a replica or a cluster
# without a master, out of memory. Inside a script they come wrapped, hence a search.
_OUTAGE_REPLIES = re.compile(r"(?:^|-|: )(MISCONF|LOADING|READONLY|MASTERDOWN|CLUSTERDOWN|"
                             r"TRYAGAIN|OOM|BUSY)\b")


def is_outage(error: BaseException) -> bool:
    """True when ``error`` says the store is down, hung or refusing writes for a while."""
    if isinstance(error, redis.ConnectionError | redis.TimeoutError | SlotNotCoveredError
                  | ClusterDownError | TryAgainError | redis.ReadOnlyError):
        return True
    if isinstance(error, redis.ResponseError):
        return bool(_OUTAGE_REPLIES.search(str(error)))
    return False


WRITE_CHECK_SECONDS = 1.0


def aof_write_error(client: RedisClient) -> str | None:
    """Why a server's append-only file cannot be written now (``aof_last_write_status``), or None.

    While it lasts Redis keeps acknowledged writes only in memory (with ``everysec``/``no``) and
    refuses new ones; on Cluster any node in that state counts.
    """
    info = client.info("persistence")
    nodes = info.values() if info and all(isinstance(v, dict) for v in info.values()) else [info]
    for node in nodes:
        if int(node.get("aof_enabled", 0)) and node.get("aof_last_write_status", "ok") != "ok":
            return f"the append-only file cannot be written ({node['aof_last_write_status']})"
    return None


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
    if not isinstance(entry_id, str):  # a client that does not decode responses
        entry_id, fields = _text(entry_id), {_text(k): _text(v) for k, v in fields.items()}
    f = fields  # decoded by the client already (connect): a long read parses 1,000s of these
    return StoredEvent(version=int(entry_id.partition("-")[0]), type=f["type"],
                       data=json.loads(f["data"]), seat=f["seat"], cmd=f["cmd"], at=int(f["at"]),
                       prev=f["prev"], hash=f["hash"],
                       command=json.loads(f["command"]) if f.get("command") else None)


class RedisEventStore:
    """EventStore on Redis Streams; one Lua script per append."""

    def __init__(self, client: RedisClient, blocking: RedisClient | None = None):
        self.client = client
        self._blocking = blocking
        self._blocking_lock = threading.Lock()
        self._write_check = (0.0, None)  # (checked at, monotonic; the error or None)
        # An append's outbox needs its keys in the script's slot: not on Redis Cluster.
        self.has_outbox = not isinstance(client, RedisCluster)
        # Nor its publish (a cluster's would go to every node): there, followers XREAD.
        self.has_live = not isinstance(client, RedisCluster)
        self._live: LiveChannels | None = None
        script = resources.files("events").joinpath("append.lua").read_text(encoding="utf-8")
        self._append = client.register_script(script)
        self._create = client.register_script(_CREATE_LUA)
        self._save_snapshot = client.register_script(_SAVE_SNAPSHOT_LUA)
        self._archive_write = client.register_script(_ARCHIVE_WRITE_LUA)
        self._archive_drop = client.register_script(_ARCHIVE_DROP_LUA)
        self._archives: OrderedDict[str, Archive] = OrderedDict()
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
        """Create a game's meta and secret (GameExists if the id is taken). The service creates
        a game with ``append(..., new_secret=...)`` instead, its first events in the same step:
        a create refused between the two left a meta and secret with no log (issue 23 item 3)."""
        _check_id(game_id)
        reserved = _RESERVED_META & meta.keys()
        if reserved:
            raise ValueError(f"meta fields {sorted(reserved)} are managed by the store")
        self._check_writable()
        args: list[str] = [secret, GENESIS]
        for name, value in meta.items():
            args += [name, str(value)]
        created = self._create(keys=[_key(game_id, "meta"), _key(game_id, "secret"),
                                     _key(game_id, "archive")], args=args)
        if not int(created):
            raise GameExists(game_id)

    def append(self, game_id: str, expected_version: int, events: list[NewEvent],
               command_id: str | None = None, meta: dict[str, str] | None = None,
               command_hash: str | None = None,
               outbox: Callable[[tuple[StoredEvent, ...]], Outbox | None] | None = None,
               new_secret: str | None = None) -> AppendResult:
        """Append atomically after ``expected_version``; raise VersionConflict when stale
        (CommandReused when ``command_id`` was first sent with another ``command_hash``).

        ``outbox`` (events.store.Outbox) rides in the script, after the append's own writes;
        not on Redis Cluster, whose other keys live in other slots (it is never called there).
        ``new_secret``: the events are a new game's first (``create``), which the script
        creates with ``meta`` and this secret, or refuses with GameExists.
        """
        _check_id(game_id)
        if not events:
            raise ValueError("append needs at least one event")
        if expected_version < 0 or (new_secret and expected_version != 0):
            raise ValueError("expected_version must be >= 0 (0 for a new game)")
        meta = meta or {}
        reserved = _RESERVED_META & meta.keys()
        if reserved:
            raise ValueError(f"meta fields {sorted(reserved)} are managed by the store")
        self._check_writable()
        cmd = command_id or ""
        body = (command_hash or "") if cmd else ""
        meta_key, cmds_key = _key(game_id, "meta"), _key(game_id, "cmds")

        prev = self._known_hash(game_id, expected_version)  # GENESIS for a new game
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
                return _duplicate(_record(replies[1]), body)
            if version is None:
                return self._append_archived(game_id, cmd, body)
            if int(version) != expected_version:
                raise VersionConflict(expected_version, int(version))
            prev = _text(last_hash)

        at = int(time.time() * 1000)
        head: list[Any] = [expected_version, prev, cmd, len(events), len(meta), body,
                           new_secret or ""]
        args: list[Any] = []
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
            command_body = None if command is None else canonical(command)
            link_next = envelope_hash(version, event.type, body, seat, cmd, at, link,
                                      command_body)
            args += [event.type, body, seat, cmd, at, link, link_next,
                     "" if command_body is None else command_body]
            stored.append(StoredEvent(version, event.type, data, seat, cmd, at, link, link_next,
                                      command))
            link = link_next
        for name, value in meta.items():
            args += [name, str(value)]
        # The followers of the game hear its events from the append itself (events.live).
        live = ([_key(game_id, "live"), live_payload(stored)] if self.has_live
                else ["", ""])
        args = head + live + args
        keys = [meta_key, _key(game_id, "log"), cmds_key, _key(game_id, "secret"),
                _key(game_id, "archive")]
        extra = outbox(tuple(stored)) if outbox is not None and self.has_outbox else None
        if extra is not None:
            keys += [key for key, _, _, _ in extra.streams]
            args += [len(extra.streams), len(extra.reads)]
            for _, name, value, length in extra.streams:
                args += [length, name, value]
            keys += extra.reads

        raw = self._append(keys=keys, args=args)
        reply = [_text(x) for x in raw[:3]]
        status = reply[0]
        if status == "ok":
            replies = None
            if extra is not None:
                replies = OutboxReplies(tuple(_text(i) for i in raw[3]),
                                        tuple(tuple(_text(v) for v in r) for r in raw[4]))
            result = AppendResult(int(reply[1]), int(reply[2]), events=tuple(stored),
                                  outbox=replies)
            self._remember(game_id, result.last_version, link)
            return result
        if status == "dup":
            return AppendResult(int(reply[1]), int(reply[2]), duplicate=True)
        if status == "reused":
            raise CommandReused(int(reply[1]), int(reply[2]))
        if status == "notfound":
            return self._append_archived(game_id, cmd, args[5])
        if status == "exists":
            raise GameExists(game_id)
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
        with self._known_lock:
            known = self._known.get(game_id)
        if known is not None and first > known[0]:
            return []  # past the end of a log this process has seen: the usual "no news"
        archive = self.archived(game_id)
        if archive is None:
            return []
        events = archive.read(first, last)
        if events:
            self._remember(game_id, events[-1].version, events[-1].hash)
        return events

    def wait(self, game_id: str, after: int, block_ms: int) -> list[StoredEvent]:
        """Events after ``after``, blocking up to ``block_ms`` for the first one (XREAD BLOCK)."""
        _check_id(game_id)
        # XREAD BLOCK 0 would block forever; a non-positive wait means "do not block".
        block = min(block_ms, MAX_BLOCK_MS) if block_ms > 0 else None
        if block is not None and self.has_live:
            # Heard from the appends' publishes, one connection for all the games followed.
            events = self.live_channels().wait(_key(game_id, "live"), after, block,
                                               lambda version: self.read(game_id, version + 1))
            if events:
                self._remember(game_id, events[-1].version, events[-1].hash)
            return events
        client = self.client if block is None else self.blocking_client()
        reply = client.xread({_key(game_id, "log"): f"{after}-0"}, block=block)
        if not reply:
            return []
        # RESP2 answers [[key, entries]], RESP3 {key: [entries]}.
        streams = reply.values() if isinstance(reply, dict) else [entries for _, entries in reply]
        events = [_parse_entry(eid, fields) for entries in streams for eid, fields in entries]
        if events:
            self._remember(game_id, events[-1].version, events[-1].hash)
        return events

    def live_channels(self) -> LiveChannels:
        """The process's live channels (made on first use, on their own connection)."""
        with self._blocking_lock:
            if self._live is None:
                self._live = LiveChannels(pubsub_client(self.client))
            return self._live

    def blocking_client(self) -> RedisClient:
        """The client of blocking reads (made on first use, on the same server)."""
        with self._blocking_lock:
            if self._blocking is None:
                self._blocking = blocking_client(self.client)
            return self._blocking

    def write_error(self) -> str | None:
        """Why the server cannot persist writes now (its append-only file failed), or None.

        Checked at most once a WRITE_CHECK_SECONDS per store, so a move pays for INFO rarely;
        and by one caller at a time: the others, meanwhile, go by the last answer (under load
        every request in flight used to find the check due and send an INFO of its own).
        """
        checked, error = self._write_check
        now = time.monotonic()
        if now - checked < WRITE_CHECK_SECONDS:
            return error
        self._write_check = (now, error)  # claimed: the next WRITE_CHECK_SECONDS are this one's
        try:
            error = self._aof_error()
        except BaseException:
            self._write_check = (checked, error)  # not checked after all: the next call does
            raise
        self._write_check = (now, error)
        return error

    def _aof_error(self) -> str | None:
        try:
            return aof_write_error(self.client)
        except redis.ResponseError as exc:
            if is_outage(exc):
                raise
            return None  # INFO not allowed to this user (ACL): Redis's own MISCONF still holds

    def _check_writable(self) -> None:
        """Refuse a write while the append-only file cannot be written (issue 9 item 7): Redis
        would keep it only in memory, and a stop in that state loses it."""
        error = self.write_error()
        if error is not None:
            raise StoreUnavailable(error)

    def last_version(self, game_id: str) -> int:
        """The game's last version (0 before the first event)."""
        _check_id(game_id)
        version = self.client.hget(_key(game_id, "meta"), "version")
        if version is None:
            return self._archive_of(game_id).version
        return int(version)

    def meta(self, game_id: str) -> dict[str, str]:
        """The game's meta hash, including ``version`` and ``last_hash``."""
        _check_id(game_id)
        fields = self.client.hgetall(_key(game_id, "meta"))
        if not fields:
            return dict(self._archive_of(game_id).meta)
        return {_text(k): _text(v) for k, v in fields.items()}

    def secret(self, game_id: str) -> str:
        """The game's secret seed."""
        _check_id(game_id)
        value = self.client.get(_key(game_id, "secret"))
        if value is None:
            return self._archive_of(game_id).secret
        return _text(value)

    def command_version(self, game_id: str, command_id: str) -> tuple[int, int] | None:
        """The (first, last) versions a command id produced, or None if unseen."""
        _check_id(game_id)
        record = self.command_record(game_id, command_id)
        return None if record is None else (record.first_version, record.last_version)

    def command_record(self, game_id: str, command_id: str) -> CommandRecord | None:
        """What a command id produced and the hash of its command, or None if unseen."""
        _check_id(game_id)
        # One round trip either way: the record, and whether the game was archived (then its
        # command records are in the archive).
        pipe = self.client.pipeline(transaction=False)
        pipe.hget(_key(game_id, "cmds"), command_id)
        pipe.exists(_key(game_id, "archive"))
        seen, archived = pipe.execute()
        if seen is not None:
            return _record(seen)
        archive = self.archived(game_id) if archived else None
        return None if archive is None else archive.command_record(command_id)

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
        try:
            state = orjson.dumps(snapshot.state).decode()
        except TypeError:  # orjson.JSONEncodeError: e.g. an integer beyond 64 bits
            state = json.dumps(snapshot.state, separators=(",", ":"), ensure_ascii=False)
        # The script keeps no snapshot of an archived game (no live meta): it would bring
        # back into memory what archiving took out.
        self._save_snapshot(keys=[_key(game_id, "snap"), _key(game_id, "snaps"),
                                  _key(game_id, "meta")],
                            args=[str(snapshot.version), state])

    def delete_snapshot(self, game_id: str) -> None:
        """Drop every snapshot; they are a cache, so nothing is lost."""
        _check_id(game_id)
        self.client.delete(_key(game_id, "snap"), _key(game_id, "snaps"))

    def game_ids(self) -> Iterator[str]:
        """Every game id in the store, live or archived, in no particular order (SCAN; on
        Cluster, every node). Costs O(all games ever): for repairs, never a request path."""
        seen: set[str] = set()
        for part in ("meta", "archive"):
            prefix, suffix = "{g:", "}:" + part
            for key in self.client.scan_iter(match="{g:*}:" + part, count=1000):
                name = _text(key)
                if name.startswith(prefix) and name.endswith(suffix):
                    game_id = name[len(prefix):-len(suffix)]
                    if game_id not in seen:  # both, for a moment, while it is archived
                        seen.add(game_id)
                        yield game_id

    # --- the archive (issue 13) ----------------------------------------------------------------

    def archive(self, game_id: str) -> bool:
        """Move a game's log, meta, secret and command records into one compressed blob under
        its hash tag (events/archive.py) and drop its live keys and snapshots; True when it is
        archived (now or before), False when its log moved on meanwhile (try again later).

        Write, read back and compare, then remove: a crash at any point leaves the live keys,
        the blob, or both, never neither; running it again finishes the job. The caller decides
        when a game is done with (GameService archives finished games after a grace period).
        """
        _check_id(game_id)
        self._check_writable()
        pipe = self.client.pipeline(transaction=False)
        pipe.hgetall(_key(game_id, "meta"))
        pipe.get(_key(game_id, "secret"))
        pipe.hgetall(_key(game_id, "cmds"))
        pipe.xrange(_key(game_id, "log"))
        fields, secret, cmds, entries = pipe.execute()
        if not fields:
            if self.archived(game_id) is None:
                raise GameNotFound(game_id)
            return True
        meta = {_text(k): _text(v) for k, v in fields.items()}
        events = tuple(_parse_entry(entry_id, entry) for entry_id, entry in entries)
        if len(events) != int(meta["version"]):
            return False  # an append landed between the reads: not a settled game
        live = Archive(meta=meta, secret=_text(secret), events=events,
                       cmds={_text(k): _text(v) for k, v in cmds.items()})
        blob = pack(live)
        version = meta["version"]
        keys = [_key(game_id, "meta"), _key(game_id, "archive")]
        if not int(self._archive_write(keys=keys, args=[version, blob])):
            return False
        stored = self._fetch_archive(game_id)
        if stored is None or unpack(stored) != live:
            raise ArchiveCorrupt(f"the archive of game {game_id} does not read back equal to "
                                 "its log; the live keys are kept")
        keys += [_key(game_id, part) for part in _LIVE_PARTS if part != "meta"]
        dropped = bool(int(self._archive_drop(keys=keys, args=[version])))
        if dropped:
            with self._known_lock:
                self._archives[game_id] = live
                self._archives.move_to_end(game_id)
                while len(self._archives) > _ARCHIVE_CACHE_SIZE:
                    self._archives.popitem(last=False)
        return dropped

    def archived(self, game_id: str) -> Archive | None:
        """The game's archive, or None while it is live (or unknown). Archives never change,
        so each process keeps the last few it unpacked."""
        _check_id(game_id)
        with self._known_lock:
            cached = self._archives.get(game_id)
            if cached is not None:
                self._archives.move_to_end(game_id)
                return cached
        blob = self._fetch_archive(game_id)
        if blob is None:
            return None
        archive = unpack(blob)
        with self._known_lock:
            self._archives[game_id] = archive
            while len(self._archives) > _ARCHIVE_CACHE_SIZE:
                self._archives.popitem(last=False)
        return archive

    def _fetch_archive(self, game_id: str) -> bytes | None:
        """The raw blob (bytes, whatever the client decodes), or None."""
        return self.client.execute_command("GET", _key(game_id, "archive"),
                                           **{NEVER_DECODE: []})

    def _archive_of(self, game_id: str) -> Archive:
        archive = self.archived(game_id)
        if archive is None:
            raise GameNotFound(game_id)
        return archive

    def _append_archived(self, game_id: str, cmd: str, command_hash: str) -> AppendResult:
        """An append met no live meta: the first answer to a command id the archived game
        recorded, else GameArchived (nothing is appended to an archived game), else
        GameNotFound."""
        archive = self._archive_of(game_id)
        record = archive.command_record(cmd) if cmd else None
        if record is not None:
            return _duplicate(record, command_hash)
        raise GameArchived(game_id)


def _record(seen: Any) -> CommandRecord:
    """Parse a ``first:last:sha`` command record (``first:last`` before commands were hashed)."""
    first, last, *rest = _text(seen).split(":", 2)
    return CommandRecord(int(first), int(last), rest[0] if rest and rest[0] else None)


def _duplicate(record: CommandRecord, command_hash: str) -> AppendResult:
    """The first answer to a command id sent again, unless it came with another command."""
    if command_hash and record.command_hash and record.command_hash != command_hash:
        raise CommandReused(record.first_version, record.last_version)
    return AppendResult(record.first_version, record.last_version, duplicate=True)
