"""Casualties in a War of the Ring battle (wotr.md §5.4, §7): which side must take hits, the ways
it may take one, the hits nobody needs to choose, and the siege's Elite reduction."""

from __future__ import annotations

from typing import Any

from games.core import Command, State
from games.wotr.data import FP, NATION_SIDE
from games.wotr.engine import Tx, remove_to_pool
from games.wotr.model import (
    BATTLE_STEP,
    CASUALTIES_REMOVED,
    ELITE_REDUCED,
    HITS_SCORED,
    TAKE_HIT,
    Army,
    capacity,
    location,
)


def force_loc(b: dict[str, Any], side: str) -> str:
    return "att" if side == b["attacker"] else b["def_loc"]


def force(state: State, side: str) -> Army:
    return location(state, force_loc(state["battle"], side)) or {}


def casualty_side(b: dict[str, Any]) -> str | None:
    for side in (b["attacker"], b["defender"]):
        if b["hits"][side] > 0:
            return side
    return None


def hit_options(state: State, side: str) -> list[Command]:
    army = force(state, side)
    out = []
    for nation in sorted(army):
        if army[nation][0]:
            out.append({"type": TAKE_HIT, "nation": nation, "kind": "regular"})
        if army[nation][1]:
            out.append({"type": TAKE_HIT, "nation": nation, "kind": "elite"})
    return out


def auto_casualty(tx: Tx) -> bool:
    """Apply casualties nobody needs to choose (wiped out, or only one way); False = prompt."""
    state = tx.state
    b = state["battle"]
    side = casualty_side(b)
    if side is None:
        tx.emit(BATTLE_STEP, stage=b["next"])
        return True
    army = force(state, side)
    loc = force_loc(b, side)
    if b["hits"][side] >= capacity(army):
        gone = {n: [f[0], f[1], 0] for n, f in army.items() if f[0] or f[1]}
        for nation in sorted(gone):
            tx.emit(CASUALTIES_REMOVED, src=loc, dst=remove_to_pool(nation),
                    figures={nation: gone[nation]})
        tx.emit(HITS_SCORED, **{side: -b["hits"][side]})
        return True
    options = hit_options(state, side)
    if len(options) == 1:
        take_hit(tx, side, options[0]["nation"], options[0]["kind"])
        return True
    return False


def take_hit(tx: Tx, side: str, nation: str, kind: str) -> None:
    """§5.4: a hit removes a Regular or reduces an Elite to a Regular (FP: the Regular comes
    from the eliminated figures first, then reinforcements; when none is left the Elite is
    removed)."""
    state = tx.state
    loc = force_loc(state["battle"], side)
    pool = remove_to_pool(nation)
    if kind == "regular":
        tx.emit(CASUALTIES_REMOVED, src=loc, dst=pool, figures={nation: [1, 0, 0]})
    else:
        source = replacement(state, nation)
        if source:
            tx.emit(ELITE_REDUCED, loc=loc, nation=nation, to=pool, replacement=source)
        else:
            tx.emit(CASUALTIES_REMOVED, src=loc, dst=pool, figures={nation: [0, 1, 0]})
    tx.emit(HITS_SCORED, **{side: -1})


def replacement(state: State, nation: str) -> str | None:
    if NATION_SIDE[nation] == FP and state["dead"][nation][0]:
        return "dead"
    if state["reinf"][nation][0]:
        return "reinf"
    return None


def extend_options(state: State) -> list[str]:
    """§7: the besieger may reduce one of its Elites to fight one more siege round."""
    b = state["battle"]
    return [n for n in sorted(b["att"]) if b["att"][n][1] and replacement(state, n)]
