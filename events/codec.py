"""Canonical JSON and the event hash chain; pure Python so an offline auditor needs no Redis."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from json.encoder import encode_basestring  # what canonical() escapes a str with
from typing import Any

from events.store import StoredEvent

GENESIS = "0" * 64  # the first event's prev


def canonical(obj: Any) -> bytes:
    """Encode ``obj`` as canonical JSON: sorted keys, no spaces, UTF-8, no NaN."""
    # allow_nan=False: NaN/Infinity are not JSON, and other implementations could not re-hash them.
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False).encode("utf-8")


def command_digest(command: Any) -> str:
    """The sha256 hex digest of a command as sent (canonical JSON), to tell a retry of it from
    another command under the same id."""
    return hashlib.sha256(canonical(command)).hexdigest()


def event_hash(version: int, type: str, data: Any, seat: str, cmd: str, at: int,
               prev: str, command: Any = None) -> str:
    """Return the sha256 hex digest of an event's canonical envelope chained to ``prev``.

    The command as sent is part of the envelope when the event carries one, so an edited
    command breaks the chain like an edited event.
    """
    body = {"version": version, "type": type, "data": data, "seat": seat, "cmd": cmd, "at": at,
            "prev": prev}
    if command is not None:
        body["command"] = command
    return hashlib.sha256(canonical(body)).hexdigest()


def envelope_hash(version: int, type: str, data: bytes, seat: str, cmd: str, at: int,
                  prev: str, command: bytes | None = None) -> str:
    """``event_hash`` of an event whose ``data`` and ``command`` are given as their canonical
    JSON (an append has them already): the envelope's canonical JSON put together around them,
    the same bytes ``canonical`` writes for the whole envelope, without encoding them again."""
    parts = [b'{"at":', str(int(at)).encode(), b',"cmd":', _string(cmd)]
    if command is not None:
        parts += [b',"command":', command]
    parts += [b',"data":', data, b',"prev":', _string(prev), b',"seat":', _string(seat),
              b',"type":', _string(type), b',"version":', str(int(version)).encode(), b"}"]
    return hashlib.sha256(b"".join(parts)).hexdigest()


def _string(value: str) -> bytes:
    """A str as ``canonical`` writes it (the encoder's own string escaping)."""
    if type(value) is not str:
        raise TypeError(f"an envelope field is a str, not {type(value).__name__}")
    return encode_basestring(value).encode("utf-8")


def stored_event_hash(event: StoredEvent) -> str:
    """Recompute the hash an event should carry from its own fields."""
    return event_hash(event.version, event.type, event.data, event.seat, event.cmd, event.at,
                      event.prev, event.command)


def verify_chain(events: Sequence[StoredEvent], first_version: int = 1,
                 prev: str = GENESIS) -> int | None:
    """Return the first version at which the chain breaks, or None when it holds."""
    # first_version/prev let an auditor check a tail that starts after an already-verified prefix.
    expected_prev = prev
    for offset, event in enumerate(events):
        expected_version = first_version + offset
        # A gap, a duplicate or a swap shows up as a version out of place; report the slot where
        # the expected version is missing, since the event found there is not the one that belongs.
        if event.version != expected_version:
            return expected_version
        if event.prev != expected_prev or stored_event_hash(event) != event.hash:
            return expected_version
        expected_prev = event.hash
    return None
