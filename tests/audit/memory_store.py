"""An in-memory EventStore (the protocol in events/store.py), so the real GameService can record
games for the audit tests without Redis."""

from __future__ import annotations

import json
from collections.abc import Iterator

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


class MemoryStore:
    """Append with the same envelope and chain as RedisEventStore; nothing is persisted."""

    def __init__(self) -> None:
        self.logs: dict[str, list[StoredEvent]] = {}
        self.metas: dict[str, dict[str, str]] = {}
        self.secrets: dict[str, str] = {}
        self.cmds: dict[str, dict[str, tuple[int, int]]] = {}
        self.snaps: dict[str, Snapshot] = {}
        self.clock = 1_700_000_000_000

    def create(self, game_id: str, meta: dict[str, str], secret: str) -> None:
        if game_id in self.logs:
            raise GameExists(game_id)
        self.logs[game_id], self.metas[game_id] = [], dict(meta)
        self.secrets[game_id], self.cmds[game_id] = secret, {}

    def append(self, game_id: str, expected_version: int, events: list[NewEvent],
               command_id: str | None = None, meta: dict[str, str] | None = None) -> AppendResult:
        if game_id not in self.logs:
            raise GameNotFound(game_id)
        log, cmd = self.logs[game_id], command_id or ""
        if cmd and cmd in self.cmds[game_id]:
            first, last = self.cmds[game_id][cmd]
            return AppendResult(first, last, duplicate=True)
        if len(log) != expected_version:
            raise VersionConflict(expected_version, len(log))
        self.clock += 1000
        prev = log[-1].hash if log else GENESIS
        stored = []
        for event in events:
            version = len(log) + 1
            data = json.loads(canonical(event.data))
            command = None if event.command is None else json.loads(canonical(event.command))
            digest = event_hash(version, event.type, data, str(event.seat), cmd, self.clock,
                                prev, command)
            log.append(StoredEvent(version, event.type, data, str(event.seat), cmd, self.clock,
                                   prev, digest, command))
            stored.append(log[-1])
            prev = digest
        if cmd:
            self.cmds[game_id][cmd] = (expected_version + 1, len(log))
        return AppendResult(expected_version + 1, len(log), events=tuple(self._copy(stored)))

    @staticmethod
    def _copy(events: list[StoredEvent]) -> list[StoredEvent]:
        # Readers get fresh objects, as from Redis: the projector's evolve may mutate them.
        return [StoredEvent.from_dict(json.loads(json.dumps(e.to_dict()))) for e in events]

    def read(self, game_id: str, first: int = 1, last: int | None = None) -> list[StoredEvent]:
        log = self.logs.get(game_id, [])
        return self._copy(log[max(first, 1) - 1:len(log) if last is None else last])

    def wait(self, game_id: str, after: int, block_ms: int) -> list[StoredEvent]:
        return self.read(game_id, after + 1)

    def last_version(self, game_id: str) -> int:
        return len(self.logs.get(game_id, []))

    def meta(self, game_id: str) -> dict[str, str]:
        return dict(self.metas[game_id])

    def secret(self, game_id: str) -> str:
        return self.secrets[game_id]

    def command_version(self, game_id: str, command_id: str) -> tuple[int, int] | None:
        return self.cmds.get(game_id, {}).get(command_id)

    def load_snapshot(self, game_id: str) -> Snapshot | None:
        return self.snaps.get(game_id)

    def save_snapshot(self, game_id: str, snapshot: Snapshot) -> None:
        self.snaps[game_id] = snapshot

    def game_ids(self) -> Iterator[str]:
        return iter(list(self.logs))
