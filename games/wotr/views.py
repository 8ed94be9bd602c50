"""What each viewer may see of a War of the Ring game (wotr.md decisions block: the map, dice and
reinforcements are public; each side's hand and a combat card chosen before the reveal are
secret; the decks are face down). ``view``, ``secrets`` and ``redact``."""

from __future__ import annotations

import copy
from typing import Any

from games.core import AUDITOR, Event, Game, State, Viewer
from games.wotr.data import SIDES
from games.wotr.engine import vp
from games.wotr.model import CARD_DRAWN, COMBAT_CARD_CHOSEN, GAME_STARTED


def _side(viewer: Viewer) -> str | None:
    return SIDES[viewer] if isinstance(viewer, int) and 0 <= viewer < 2 else None


def _battle(state: State, viewer: Viewer) -> dict[str, Any] | None:
    b = state["battle"]
    if b is None:
        return None
    out = copy.deepcopy(b)
    if b["revealed"] is None:
        # §5.1: chosen secretly, revealed together: only whether each side has chosen shows.
        out["chosen"] = {s: b["cards"][s] is not None for s in SIDES}
        for s in SIDES:
            if viewer not in (AUDITOR, SIDES.index(s)):
                out["cards"][s] = None
                out["x"][s] = None
    return out


def view(game: Game, state: State, viewer: Viewer) -> dict[str, Any]:
    if not state:
        return {}
    side = _side(viewer)
    sees_all = viewer == AUDITOR or state["over"]
    out: dict[str, Any] = {
        "summary": summary(state, side),
        "viewer": viewer, "side": side, "scenario": state["scenario"],
        "regions": list(state["regions"]), "round": state["round"],
        "max_rounds": state["max_rounds"], "vp_to_win": dict(state["vp"]),
        "vp": {s: vp(state, s) for s in SIDES}, "turn": state["turn"],
        "dice": copy.deepcopy(state["dice"]), "action": copy.deepcopy(state["action"]),
        "order": copy.deepcopy(state.get("order")),
        "armies": copy.deepcopy(state["armies"]), "boxes": copy.deepcopy(state["boxes"]),
        "reinforcements": copy.deepcopy(state["reinf"]), "eliminated": copy.deepcopy(state["dead"]),
        "control": dict(state["control"]), "politics": copy.deepcopy(state["politics"]),
        "hand": list(state["hands"][side]) if side else None,
        "hand_counts": {s: len(state["hands"][s]) for s in SIDES},
        "deck_counts": {s: len(state["decks"][s]) for s in SIDES},
        "discards": copy.deepcopy(state["discards"]),
        "battle": _battle(state, AUDITOR if sees_all else viewer),
        "pending": {str(s): p.to_dict() for s, p in game.pending(state).items()},
        "over": state["over"], "winner": state["winner"], "reason": state["reason"],
    }
    if sees_all:
        out["hands"] = copy.deepcopy(state["hands"])
        out["decks"] = copy.deepcopy(state["decks"])
    return out


def _figures(army: dict[str, list[int]]) -> str:
    return " ".join(f"{n} {r}/{e}/{lead}" for n, (r, e, lead) in sorted(army.items()))


def summary(state: State, side: str | None) -> list[str]:
    """A few lines of text first in the view, for the terminal client (its screen shows the
    start of the view): the round, dice, VP, the battle, one's hand, and every army
    (Regulars/Elites/Leaders)."""
    vps = {s: vp(state, s) for s in SIDES}
    lines = [f"round {state['round']}/{state['max_rounds']}, {state['turn']} to act; "
             f"VP fp {vps['fp']}/{state['vp']['fp']}, sh {vps['sh']}/{state['vp']['sh']}",
             f"dice fp {','.join(state['dice']['fp']) or '-'}; "
             f"sh {','.join(state['dice']['sh']) or '-'}"]
    b = state["battle"]
    if b is not None:
        lines.append(f"battle: {b['attacker']} attacks {b['region']} ({b['kind']}, round "
                     f"{b['round']}, {b['stage']}); attackers {_figures(b['att'])}")
    order = state.get("order")
    if order:
        lines.append(f"{order['side']} {order['order']} {order['from']} -> {order['to']}: "
                     "which figures go?")
    if side:
        lines.append(f"hand: {', '.join(state['hands'][side]) or '-'}")
    for region in sorted(state["armies"]):
        box = state["boxes"].get(region)
        besieged = f" [besieged: {_figures(box)}]" if box else ""
        lines.append(f"{region}: {_figures(state['armies'][region])}{besieged}")
    return lines


def secrets(state: State, viewer: Viewer) -> set[str]:
    """Card ids ``viewer`` must not see now: the other hand, both decks, an unrevealed card."""
    if not state or state["over"] or viewer == AUDITOR:
        return set()
    side = _side(viewer)
    hidden = set(state["decks"]["fp"]) | set(state["decks"]["sh"])
    for s in SIDES:
        if s != side:
            hidden.update(state["hands"][s])
            b = state["battle"]
            if b is not None and b["revealed"] is None and b["cards"][s]:
                hidden.add(b["cards"][s])
    return hidden


def redact(event: Event, viewer: Viewer) -> Event | None:
    """Hide the deck order, the card the other side drew and a combat card before the reveal."""
    if viewer == AUDITOR:
        return event
    data = event.data
    side = _side(viewer)
    if event.type == GAME_STARTED:
        return Event(event.type, {**{k: v for k, v in data.items() if k != "decks"},
                                  "deck_counts": {s: len(d) for s, d in data["decks"].items()}})
    if event.type in (CARD_DRAWN, COMBAT_CARD_CHOSEN) and data["side"] != side:
        return Event(event.type, {"side": data["side"]})
    return event
