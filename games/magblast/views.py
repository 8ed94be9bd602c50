"""What each viewer may see of a Mag Blast game, for states (view, secrets) and events (redact).

Secret (magblast.md §1, KR 게임 준비): hands (each seat sees its own), the order and faces of both
draw decks, the six ships dealt at setup and the four placed face down until all are revealed
together, a fleet ship drawn and not yet placed (its drawer sees it), and cards taken at random
from a hand (the two players involved see them). Everything on the table is public: fleets,
damage cards under ships, both discard piles, cards in the response chain, Asteroids and
Minefields, power use counters. The auditor sees everything.
"""

from __future__ import annotations

from typing import Any

from games.core import AUDITOR, Event, Prompt, Seat, State, Viewer
from games.magblast.model import (
    ACTION_DECK_RESHUFFLED,
    CARDS_DRAWN,
    FLEET_DECK_RESHUFFLED,
    FLEET_DRAWN,
    FLEET_PLACED,
    FLEETS_DEALT,
    GAME_STARTED,
    HAND_RAIDED,
    HANDS_DEALT,
)


def _seat(state: State, viewer: Viewer) -> Seat | None:
    return viewer if isinstance(viewer, int) and 0 <= viewer < state["seats"] else None


def view(state: State, viewer: Viewer, pending: dict[Seat, Prompt]) -> dict[str, Any]:
    """Everything ``viewer`` may see now."""
    if not state:
        return {}
    seat = _seat(state, viewer)
    placing = state["placing"]
    out: dict[str, Any] = {
        "viewer": viewer, "seats": state["seats"], "options": state["options"],
        "races": list(state["races"]), "alive": list(state["alive"]), "out": list(state["out"]),
        "uses": list(state["uses"]), "turn": state["turn"], "turn_number": state["turn_number"],
        "phase": state["phase"], "started": list(state["started"]),
        "zones": [{z: list(ships) for z, ships in zones.items()} for zones in state["zones"]],
        "under": {ship: [list(e) for e in cards] for ship, cards in state["under"].items()},
        "temp": dict(state["temp"]), "fired": {s: list(t) for s, t in state["fired"].items()},
        "effects": [dict(e) for e in state["effects"]],
        "returning": [list(r) for r in state["returning"]],
        "fleet_deck": len(state["fleet_deck"]), "action_deck": len(state["action_deck"]),
        "fleet_discard": list(state["fleet_discard"]),
        "action_discard": list(state["action_discard"]),
        "hand_counts": [len(h) for h in state["hands"]],
        "hand": list(state["hands"][seat]) if seat is not None else [],
        "dealt": (list(state["dealt"][seat]) if seat is not None and state["dealt"] else []),
        "placed": sorted(int(s) for s in state["placed"]),
        "my_placement": dict(state["placed"].get(str(seat), {})) if seat is not None else {},
        "placing": None if placing is None else {
            "seat": placing["seat"], "count": len(placing["ships"]),
            "ships": list(placing["ships"]) if placing["seat"] == viewer else []},
        "origins": dict(state["origins"]),
        "chain": None if state["chain"] is None else {
            "links": [dict(link) for link in state["chain"]["links"]],
            "passed": list(state["chain"]["passed"]), "silent": state["chain"]["silent"]},
        "dh": None if state["dh"] is None else dict(state["dh"]),
        "no_mercy": state["no_mercy"],
        "proposal": None if state["proposal"] is None else dict(state["proposal"]),
        "pending": {str(s): p.to_dict() for s, p in pending.items()},
        "result": state["result"],
    }
    if viewer == AUDITOR:
        out.update(hands=[list(h) for h in state["hands"]],
                   fleet_deck_cards=list(state["fleet_deck"]),
                   action_deck_cards=list(state["action_deck"]),
                   all_dealt=state["dealt"], all_placed=state["placed"],
                   placing_ships=list(placing["ships"]) if placing else [])
    return out


def secrets(state: State, viewer: Viewer) -> set[str]:
    """Card and ship ids ``viewer`` must not see now."""
    if viewer == AUDITOR or not state:
        return set()
    seat = _seat(state, viewer)
    out = set(state["fleet_deck"]) | set(state["action_deck"])
    for s, hand in enumerate(state["hands"]):
        if s != seat:
            out.update(hand)
    if state["dealt"]:
        for s, ships in enumerate(state["dealt"]):
            if s != seat:
                out.update(ships)
    placing = state["placing"]
    if placing is not None and placing["seat"] != seat:
        out.update(placing["ships"])
    return out


def redact(event: Event, viewer: Viewer) -> Event:
    """``event`` as ``viewer`` may see it."""
    if viewer == AUDITOR:
        return event
    data = dict(event.data)
    kind = event.type
    own = isinstance(viewer, int)
    if kind == GAME_STARTED:
        data["fleet_deck"] = len(data["fleet_deck"])
        data["action_deck"] = len(data["action_deck"])
    elif kind in (FLEETS_DEALT, HANDS_DEALT):
        key = "ships" if kind == FLEETS_DEALT else "hands"
        rows = data.pop(key)
        data["counts"] = [len(r) for r in rows]
        data[key] = [list(r) if own and i == viewer else [] for i, r in enumerate(rows)]
    elif kind == FLEET_PLACED:
        if viewer != data["seat"]:
            data["zones"] = None
    elif kind == CARDS_DRAWN:
        if viewer != data["seat"]:
            data["count"] = len(data["cards"])
            data["cards"] = []
    elif kind in (ACTION_DECK_RESHUFFLED, FLEET_DECK_RESHUFFLED):
        data["deck"] = len(data["deck"])
    elif kind == FLEET_DRAWN:
        if viewer != data["seat"] and data["source"] == "deck":
            data["count"] = len(data["ships"])
            data["ships"] = []
    elif kind == HAND_RAIDED:
        if viewer not in (data["seat"], data["target"]):
            data["count"] = len(data["cards"])
            data["cards"] = []
    return Event(kind, data)
