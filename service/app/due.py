"""What a running game waits for, and when (DESIGN.md, Workers): bot turns, turn clocks, their
warnings and takeback lapses. Pure over a projection: the job scheduler (workers/scheduling.py)
issues these, and the lobby keeps each game's earliest one in the due index (service/app/lobby.py)
that the sweeper reads instead of every game.

The index also holds when a game would fall idle (issue 23 item 17): a running game with human
seats in which nothing has happened for ``idle_after()`` seconds (24 h unless
``TABLESTREAM_IDLE_AFTER_SECONDS`` says otherwise; 0 turns it off). The sweeper hands such a
game's human seats to bots unless a seated player is following it live (workers/sweeper.py).
No job is issued for it: it is the sweeper's alone.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

from events.projector import Projection


@dataclass(frozen=True)
class Due:
    """A job a projection calls for: a bot turn now, or a clock expiry at ``at``."""

    # "bot", "clock", "undo" (a takeback request that lapses unanswered) or "warn" (a player is
    # told their clock is about to run out)
    kind: str
    seat: int
    since: int
    at: float  # epoch seconds: when the prompt opened (bot) or its deadline (clock, undo)
    # A bot that searches for seconds (expert): its turn goes to the search queue, so clocks and
    # quick bots never wait behind it (issue 23 item 7).
    search: bool = False


SEARCHING_LEVELS = frozenset({"expert"})


IDLE_AFTER_ENV = "TABLESTREAM_IDLE_AFTER_SECONDS"
IDLE_AFTER = 24 * 3600.0


def idle_after() -> float:
    """Seconds without an event after which a running game with human seats is idle (0: never)."""
    value = os.environ.get(IDLE_AFTER_ENV)
    return float(value) if value else IDLE_AFTER


def idle_at(projection: Projection, after: float | None = None) -> float | None:
    """When the game falls idle (epoch seconds), or None: not running, no human seat left to
    hand to a bot, or the policy is off. Rounded up to a 24th of ``after`` (an hour by
    default), so the due index changes once an hour of play, not with every move."""
    after = idle_after() if after is None else after
    if after <= 0 or projection.status != "running" \
            or not any(seat["kind"] == "human" and not seat.get("bot")
                       for seat in projection.seats):
        return None
    last = projection.data.get("last_at") or projection.data.get("created_at") or 0
    step = max(1.0, after / 24)
    return math.ceil((last / 1000 + after) / step) * step


def warning_lead(clock_seconds: float) -> float:
    """How long before a turn clock runs out its player is warned: a quarter of the clock, at
    most 30 s; none for clocks under 20 s, where a warning would only be noise."""
    return 0.0 if clock_seconds < 20 else min(30.0, clock_seconds / 4)


def due_jobs(projection: Projection) -> list[Due]:
    """Every job the projection calls for: bot seats that must act, clocked human seats."""
    if projection.status != "running":
        return []
    due = []
    for key, opened in sorted(projection.opened.items()):
        seat = int(key)
        level = projection.seats[seat].get("bot")
        if level:
            due.append(Due("bot", seat, opened["since"], opened["at"] / 1000,
                           search=level in SEARCHING_LEVELS))
        else:
            deadline = projection.deadline(seat)
            if deadline is not None:
                due.append(Due("clock", seat, opened["since"], deadline))
                lead = warning_lead(deadline - opened["at"] / 1000)
                if lead:
                    due.append(Due("warn", seat, opened["since"], deadline - lead))
    undo = projection.data.get("undo")
    seconds = projection.data["options"].get("reaction_seconds", 0)
    if undo and undo.get("waiting") and seconds:
        due.append(Due("undo", undo["by"], undo["at_version"], undo["at"] / 1000 + seconds))
    return due


def earliest_due(projection: Projection, jobs: list[Due] | None = None) -> float | None:
    """When the soonest job this game calls for falls due (epoch seconds), or None;
    ``jobs``, its ``due_jobs`` when the caller has them already."""
    jobs = due_jobs(projection) if jobs is None else jobs
    idle = idle_at(projection)
    return min([*(due.at for due in jobs), *([idle] if idle is not None else [])], default=None)
