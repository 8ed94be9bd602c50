"""The event store protocol (STYLE.md rule 7): what the application layer may ask of a store."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class NewEvent:
    """An event about to be appended: the payload the rules decided, plus who caused it."""

    type: str
    data: dict[str, Any]
    seat: str = "system"  # "0", "1", ... for a seat's command; "system" for clocks and workers
    command: dict[str, Any] | None = None  # the command as sent, on the first event it caused


@dataclass(frozen=True)
class StoredEvent:
    """An event in the log with its envelope (DESIGN.md, Events and the store)."""

    version: int
    type: str
    data: dict[str, Any]
    seat: str
    cmd: str
    at: int  # server time, milliseconds since the epoch
    prev: str
    hash: str
    command: dict[str, Any] | None = None  # the command as sent (first event of its batch)

    def to_dict(self) -> dict[str, Any]:
        out = {"version": self.version, "type": self.type, "data": self.data, "seat": self.seat,
               "cmd": self.cmd, "at": self.at, "prev": self.prev, "hash": self.hash}
        if self.command is not None:
            out["command"] = self.command
        return out

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> StoredEvent:
        return cls(raw["version"], raw["type"], raw["data"], raw["seat"], raw["cmd"], raw["at"],
                   raw["prev"], raw["hash"], raw.get("command"))


@dataclass(frozen=True)
class AppendResult:
    first_version: int
    last_version: int
    # the command id was seen before: nothing appended, the earlier range returned
    duplicate: bool = False
    # What was appended (empty for a duplicate); not part of equality, which is about the range.
    events: tuple[StoredEvent, ...] = field(default=(), compare=False)
    # The replies of the append's outbox when the store wrote it (see Outbox), else None.
    outbox: OutboxReplies | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Outbox:
    """Writes outside the game that ride on an append's own round trip, made only when the
    append is (a transactional outbox): an XADD to each stream in ``streams`` (key, field, value,
    approximate max length), then an HVALS of each hash in ``reads``. A failure among them never
    fails or undoes the append; its stream id comes back empty."""

    streams: tuple[tuple[str, str, str, int], ...] = ()
    reads: tuple[str, ...] = ()


@dataclass(frozen=True)
class OutboxReplies:
    ids: tuple[str, ...]  # the new entries' stream ids ("" where the XADD failed)
    reads: tuple[tuple[str, ...], ...]  # the values of each hash read


@dataclass
class Snapshot:
    version: int
    state: dict[str, Any] = field(default_factory=dict)


class StoreError(Exception):
    pass


class VersionConflict(StoreError):
    """The stream's last version is not the expected one (HTTP 409)."""

    def __init__(self, expected: int, actual: int):
        super().__init__(f"expected version {expected}, stream is at {actual}")
        self.expected = expected
        self.actual = actual


class GameNotFound(StoreError):
    pass


class GameArchived(StoreError):
    """The game was archived (finished and settled): nothing more is appended to it."""


class GameExists(StoreError):
    """``create`` was given an id that is already taken."""


class StoreUnavailable(StoreError):
    """The store refuses writes for a while (its disk cannot take them): HTTP 503."""

    def __init__(self, reason: str, retry_after: int = 10):
        super().__init__(reason)
        self.reason = reason
        self.retry_after = retry_after


class CommandReused(StoreError):
    """The command id was used before for another command: nothing was appended.

    Its ``first_version``..``last_version`` are what the id produced the first time.
    """

    def __init__(self, first_version: int, last_version: int):
        super().__init__(f"command id already used for versions {first_version}-{last_version}")
        self.first_version = first_version
        self.last_version = last_version


@dataclass(frozen=True)
class CommandRecord:
    """What a command id produced: its version range and the hash of the command as sent
    (None for a machine's command, or a record older than the hash)."""

    first_version: int
    last_version: int
    command_hash: str | None = None


class EventStore(Protocol):
    def create(self, game_id: str, meta: dict[str, str], secret: str) -> None:
        """Create a game's meta and secret (fails if the id exists); ``append`` with
        ``new_secret`` creates a game with its first events in one step instead."""

    def append(self, game_id: str, expected_version: int, events: list[NewEvent],
               command_id: str | None = None, meta: dict[str, str] | None = None,
               command_hash: str | None = None,
               outbox: Callable[[tuple[StoredEvent, ...]], Outbox | None] | None = None,
               new_secret: str | None = None) -> AppendResult:
        """Append atomically after ``expected_version``; raise VersionConflict when stale.
        ``new_secret``: the events are a new game's first; it is created with them, from
        ``meta`` and this secret, in the same step (GameExists if the id is taken).

        A ``command_id`` seen before returns its first range as a duplicate, unless both then
        and now came with a ``command_hash`` and they differ: CommandReused, nothing appended.
        ``outbox``, given the events as they will be stored, may name writes to make with the
        append (the result's ``outbox`` has their replies); a store that cannot (e.g. on Redis
        Cluster, where the keys are in other slots) never calls it and returns ``outbox`` None.
        """

    def read(self, game_id: str, first: int = 1, last: int | None = None) -> list[StoredEvent]:
        """Events with ``first <= version <= last`` in order."""

    def wait(self, game_id: str, after: int, block_ms: int) -> list[StoredEvent]:
        """Events after ``after``, blocking up to ``block_ms`` for the first one (XREAD BLOCK)."""

    def last_version(self, game_id: str) -> int: ...

    def meta(self, game_id: str) -> dict[str, str]: ...

    def secret(self, game_id: str) -> str: ...

    def command_version(self, game_id: str, command_id: str) -> tuple[int, int] | None: ...

    def command_record(self, game_id: str, command_id: str) -> CommandRecord | None: ...

    def load_snapshot(self, game_id: str, at_most: int | None = None) -> Snapshot | None:
        """The latest snapshot, or the newest at or below ``at_most`` (replay, explain)."""

    def save_snapshot(self, game_id: str, snapshot: Snapshot) -> None:
        """Keep ``snapshot`` (periodic snapshots stay; the latest is replaced only by a newer)."""

    def game_ids(self) -> Iterator[str]: ...

    def archive(self, game_id: str) -> bool:
        """Move a finished game into its compact archive (events/archive.py): every read above
        keeps answering the same; an append answers a recorded command id's first range, else
        raises GameArchived. True once archived; False when the log moved meanwhile."""

    def archived(self, game_id: str) -> Any:
        """The game's ``events.archive.Archive``, or None while it is live."""
