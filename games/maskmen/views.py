"""What each viewer may see (maskmen.md §2: hands are secret, set-aside cards are seen by nobody;
played cards and the strength markers are public). The auditor sees everything."""

from __future__ import annotations

from typing import Any

from games.core import AUDITOR, Event, Prompt, Seat, State, Viewer
from games.maskmen import knowledge
from games.maskmen.data import DATA, WRESTLER_OF
from games.maskmen.model import CARDS_PLAYED, SEASON_DEALT


def _seat_of(viewer: Viewer, seats: int) -> Seat | None:
    if isinstance(viewer, int) and not isinstance(viewer, bool) and 0 <= viewer < seats:
        return viewer
    return None


def view(state: State, viewer: Viewer, pending: dict[Seat, Prompt],
         display: bool = True) -> dict[str, Any]:
    """The table as ``viewer`` sees it: own hand, other hands as counts, the public record.
    Without ``display`` the strength markers' layout (for people, derived from ``beats``) is
    left out: the expert's playouts build a view per decision and no bot reads it."""
    if not state:
        return {}
    seats = state["seats"]
    me = _seat_of(viewer, seats)
    rnd = state["round"]
    style = DATA.editions[state["edition"]].display
    out: dict[str, Any] = {
        "viewer": viewer,
        "seat": me,
        "seats": seats,
        "edition": state["edition"],
        "season": state["season"],
        "seasons": state["seasons"],
        "wins_needed": state["wins_needed"],
        "hand": list(state["hands"][me]) if me is not None else None,
        "hand_counts": [len(h) for h in state["hands"]],
        "set_aside_count": len(state["set_aside"]),
        "played": _as_seen(state["played"], viewer),
        "round": {
            "number": rnd["number"],
            "leader": rnd["leader"],
            "current": dict(rnd["current"]) if rnd["current"] else None,
            "plays": [{**p, "cards": _as_seen(p["cards"], viewer)} for p in rnd["plays"]],
            "given_up": list(rnd["given_up"]),
        },
        "turn": state["turn"],
        "pending": {str(s): p.to_dict() for s, p in pending.items()},
        "knowledge": {
            "debuted": list(state["debuted"]),
            "proofs": [list(p) for p in state["proofs"]],
            "beats": {w: list(b) for w, b in state["beats"].items()},
        },
        "out": list(state["out"]),
        "scores": list(state["scores"]),
        "season_wins": list(state["season_wins"]),
        "history": [{**h, "points": list(h["points"])} for h in state["history"]],
        "result": state["result"],
    }
    if display:
        out["knowledge"]["display"] = knowledge.display(state["beats"], state["debuted"], style)
    if viewer == AUDITOR:
        out["hands"] = [list(h) for h in state["hands"]]
        out["set_aside"] = list(state["set_aside"])
    return out


def _as_seen(cards: list[str], viewer: Viewer) -> list[str]:
    """Played cards as the table sees them: copies of one wrestler are identical, so a card is
    its wrestler (issue 12: "RED-9 led" would tell that no red 1-8 was chosen instead)."""
    return list(cards) if viewer == AUDITOR else [WRESTLER_OF[c] for c in cards]


def redact(event: Event, viewer: Viewer) -> Event | None:
    """A deal shows each seat its own hand and everyone the hand sizes; a play shows the copies
    to their holder only (issue 12); the rest is public."""
    if viewer == AUDITOR:
        return event
    if event.type == CARDS_PLAYED:
        d = event.data
        if viewer == d["seat"]:
            return event
        count = d.get("count", len(d["cards"]))
        return Event(CARDS_PLAYED, {**d, "count": count, "cards": [d["wrestler"]] * count})
    if event.type != SEASON_DEALT:
        return event
    d = event.data
    hands = d["hands"]
    me = _seat_of(viewer, len(hands))
    return Event(SEASON_DEALT, {
        "season": d["season"],
        "leader": d["leader"],
        "hand": list(hands[me]) if me is not None else None,
        "hand_counts": [len(h) for h in hands],
        "set_aside_count": len(d["set_aside"]),
    })


def secrets(state: State, viewer: Viewer) -> set[str]:
    """Other seats' hand cards and the set-aside cards (hidden from all but the auditor)."""
    if not state or viewer == AUDITOR:
        return set()
    me = _seat_of(viewer, state["seats"])
    hidden = set(state["set_aside"])
    for seat, hand in enumerate(state["hands"]):
        if seat != me:
            hidden.update(hand)
    return hidden
