"""What each viewer may see of a Loot game (loot.md §3: hands are secret; §6: captured ships lie
face down): ``view`` of the state and ``redact`` of one event."""

from __future__ import annotations

from typing import Any

from games.core import AUDITOR, Event, Game, State, Viewer
from games.loot.data import GOLD
from games.loot.model import CARD_DRAWN, LOOT_STARTED, capturer, leader


def _ship_view(state: State, ship: dict[str, Any]) -> dict[str, Any]:
    sides = state["sides"]
    return {
        "merchant": ship["m"],
        "gold": GOLD[ship["m"]],
        "owner": ship["owner"],
        "plays": [list(p) for p in ship["plays"]],  # [seat, card] in the order played
        "colours": list(ship["col"]),  # per side (a seat, or a team in team play)
        "strengths": list(ship["str"]),
        "trump": ship["trump"],  # the side of the most recent captain/admiral
        "leader": leader(ship, sides),
        "capturer": capturer(state, ship),
    }


def view(game: Game, state: State, viewer: Viewer) -> dict[str, Any]:
    """Everything ``viewer`` may see: own hand, others' hand counts, the deck as a count, all
    ships in play, score piles as counts (one's own as cards); everything once the game is over."""
    if not state:
        return {}
    n = state["n"]
    over = state["over"]
    sees_all = over or viewer == AUDITOR
    seat = viewer if isinstance(viewer, int) and 0 <= viewer < n else None
    out: dict[str, Any] = {
        "seats": n,
        "viewer": viewer,
        "teams": state["teams"],
        "sides": state["sides"],
        "side_of": [s % state["sides"] for s in range(n)],
        "options": {"empty_deck_mode": state["empty_deck_mode"],
                    "team_capture": state["team_capture"],
                    "end_requires_play": state["end_requires_play"]},
        "turn": state["turn"],
        "hand": list(state["hands"][seat]) if seat is not None else None,
        "hand_counts": [len(h) for h in state["hands"]],
        "deck_count": len(state["deck"]),
        "discard": list(state["discard"]),
        "ships": [_ship_view(state, ship) for ship in state["ships"]],
        "won_counts": [len(w) for w in state["won"]],
        "over": over,
    }
    if seat is not None:
        out["won"] = list(state["won"][seat])  # one's own score pile
    if sees_all:
        out["hands"] = [list(h) for h in state["hands"]]
        out["deck"] = list(state["deck"])
        out["won_all"] = [list(w) for w in state["won"]]
    if over:
        out["result"] = game.result(state)
    return out


def redact(event: Event, viewer: Viewer) -> Event | None:
    """Hide the deck order, the other seats' deal and the card another seat drew."""
    if viewer == AUDITOR:
        return event
    data = event.data
    if event.type == LOOT_STARTED:
        shown = {"seats": data["seats"], "options": data["options"], "first": data["first"],
                 "deck_count": len(data["deck"]), "hand_counts": [len(h) for h in data["hands"]]}
        if isinstance(viewer, int) and 0 <= viewer < len(data["hands"]):
            shown["hand"] = list(data["hands"][viewer])
        return Event(event.type, shown)
    if event.type == CARD_DRAWN and viewer != data["seat"]:
        return Event(event.type, {"seat": data["seat"]})
    return event
