"""What a command produced (GameService and its history half both answer with it)."""

from __future__ import annotations

from dataclasses import dataclass

from events.projector import Projection
from events.store import StoredEvent


@dataclass(frozen=True)
class Outcome:
    """What a command produced: the new version and the events it appended."""

    version: int
    events: list[StoredEvent]
    duplicate: bool = False
    projection: Projection | None = None  # the game after the append (None for a duplicate)
