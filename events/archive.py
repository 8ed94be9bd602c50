"""The compact archive of a finished game (issue 13): one compressed blob holding its whole log,
meta, secret and command records, so the game's streams and hashes can leave Redis memory.

Pure Python (no Redis), like events/codec.py: an offline tool can read an archive too.

What is stored, and what is recomputed. Every event's content (type, data, seat, command id,
time, command as sent) is kept as is. Its ``prev`` and ``hash`` are not: they are a function of
that content and the previous hash (events/codec.py), and at 64 random hex digits each they are
most of a compressed log (a 2-player Loot game: 18 KB with them, 4 KB without). ``unpack``
recomputes the chain from the genesis hash and checks that it ends at the ``last_hash`` kept in
the meta, so any edited byte of any event is detected exactly as the live chain would detect it,
and ``RedisEventStore.archive`` checks that unpacking gives back every event, hash and record
equal to the live ones before it removes them. Command records (``first:last[:sha256]``) are
derived from the batches likewise, with a flag per batch saying which form the record had.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass, field
from typing import Any

from events.codec import GENESIS, canonical, command_digest, event_hash
from events.store import CommandRecord, StoredEvent, StoreError

MAGIC = b"TSA1"  # format 1: zlib over canonical JSON
LEVEL = 9
# Per batch: its record is "first:last" (PLAIN), "first:last:sha256 of its command" (HASHED), or
# stored verbatim (anything else, e.g. a record from before commands were hashed).
PLAIN, HASHED = 0, 1


class ArchiveCorrupt(StoreError):
    """An archive that does not unpack, or whose events do not hash to its chain head."""


@dataclass(frozen=True)
class Archive:
    """A game as archived: everything the store would otherwise keep in its live keys."""

    meta: dict[str, str]
    secret: str
    events: tuple[StoredEvent, ...]
    cmds: dict[str, str] = field(default_factory=dict)  # command id -> stored record

    @property
    def version(self) -> int:
        return int(self.meta.get("version", 0))

    def read(self, first: int = 1, last: int | None = None) -> list[StoredEvent]:
        """Events with ``first <= version <= last`` (versions are 1..n, in order)."""
        first = max(first, 1)
        last = self.version if last is None else min(last, self.version)
        return list(self.events[first - 1:last]) if last >= first else []

    def command_record(self, command_id: str) -> CommandRecord | None:
        seen = self.cmds.get(command_id)
        if seen is None:
            return None
        first, last, *rest = seen.split(":", 2)
        return CommandRecord(int(first), int(last), rest[0] if rest and rest[0] else None)


def _batches(events: tuple[StoredEvent, ...]) -> list[list[StoredEvent]]:
    """Consecutive events with one command id: the batches of the appends."""
    out: list[list[StoredEvent]] = []
    for event in events:
        if out and out[-1][0].cmd == event.cmd:
            out[-1].append(event)
        else:
            out.append([event])
    return out


def _derived(batch: list[StoredEvent]) -> tuple[str, str | None]:
    """The plain and the hashed record a batch's command id would have."""
    plain = f"{batch[0].version}:{batch[-1].version}"
    command = next((e.command for e in batch if e.command is not None), None)
    return plain, None if command is None else f"{plain}:{command_digest(command)}"


def pack(archive: Archive) -> bytes:
    """The compressed blob of ``archive`` (MAGIC + zlib of canonical JSON)."""
    events = []
    previous_cmd = None
    for e in archive.events:
        # A batch's events share its command id: written once, then 0 for "as above".
        row: list[Any] = [e.type, e.data, e.seat, 0 if e.cmd == previous_cmd else e.cmd, e.at]
        if e.command is not None:
            row.append(e.command)
        events.append(row)
        previous_cmd = e.cmd
    flags: list[Any] = []
    listed = set()
    for batch in _batches(archive.events):
        cmd = batch[0].cmd
        record = archive.cmds.get(cmd)
        if record is None:
            flags.append(None)
            continue
        listed.add(cmd)
        plain, hashed = _derived(batch)
        flags.append(PLAIN if record == plain else HASHED if record == hashed else record)
    extra = {cmd: record for cmd, record in archive.cmds.items() if cmd not in listed}
    body = {"meta": archive.meta, "secret": archive.secret, "events": events, "cmds": flags,
            "extra_cmds": extra}
    return MAGIC + zlib.compress(canonical(body), LEVEL)


def unpack(blob: bytes) -> Archive:
    """The archive in ``blob``, its hash chain recomputed and checked against its head."""
    if not blob.startswith(MAGIC):
        raise ArchiveCorrupt("not a Tablestream archive (format 1)")
    try:
        body = json.loads(zlib.decompress(blob[len(MAGIC):]))
    except (zlib.error, ValueError) as exc:
        raise ArchiveCorrupt(f"archive does not decompress: {exc}") from None
    meta = body["meta"]
    events = []
    prev, cmd = GENESIS, ""
    for version, row in enumerate(body["events"], start=1):
        kind, data, seat, cmd_field, at = row[:5]
        command = row[5] if len(row) > 5 else None
        cmd = cmd if cmd_field == 0 else cmd_field
        link = event_hash(version, kind, data, seat, cmd, at, prev, command)
        events.append(StoredEvent(version, kind, data, seat, cmd, at, prev, link, command))
        prev = link
    if len(events) != int(meta.get("version", 0)) or (events and prev != meta.get("last_hash")):
        raise ArchiveCorrupt("the archived events do not hash to the archived chain head")
    stored = tuple(events)
    cmds = dict(body.get("extra_cmds", {}))
    for batch, flag in zip(_batches(stored), body["cmds"], strict=True):
        if flag is None:
            continue
        plain, hashed = _derived(batch)
        cmds[batch[0].cmd] = plain if flag == PLAIN else hashed if flag == HASHED else flag
    return Archive(meta=meta, secret=body["secret"], events=stored, cmds=cmds)
