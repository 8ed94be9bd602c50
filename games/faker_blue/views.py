"""What each viewer may see of a Faker Blue game, for states (view, secrets) and events (redact).

The table's hidden information (SEED, 카드 적용 단계): a face-down card is known only to its owner
until a challenge flips it; an unchallenged card goes to the hidden pile still face down, so the
hidden pile's cards are never shown to seats or spectators, not even after the game. Only the
auditor sees everything. A card seen with an Alchemist stays visible to the one who looked while
it is still in that hand.
"""

from __future__ import annotations

from typing import Any

from games.core import AUDITOR, Event, Prompt, Seat, State, Viewer
from games.faker_blue.model import (
    CARD_DRAWN,
    CARD_INSPECTED,
    CARD_USED,
    CARDS_DEALT,
    CARDS_DISCARDED,
    DEFENCE_DECLARED,
    GAME_STARTED,
    PLAYERS_ELIMINATED,
)


def _seat(state: State, viewer: Viewer) -> Seat | None:
    return viewer if isinstance(viewer, int) and 0 <= viewer < state["seats"] else None


def _peeked(state: State, seat: Seat | None) -> list[dict[str, Any]]:
    """Other players' hand cards this seat has seen with an Alchemist."""
    if seat is None:
        return []
    known = set(state["known"].get(str(seat), ()))
    return [{"seat": s, "card": c} for s, hand in enumerate(state["hands"]) if s != seat
            for c in hand if c in known]


def _play(state: State, viewer: Viewer) -> dict[str, Any] | None:
    play = state["play"]
    if play is None:
        return None
    cards = []
    for c in play["cards"]:
        shown = dict(c)
        if not (viewer == AUDITOR or c["owner"] == viewer or c["truthful"] is not None):
            shown["card"] = None
        cards.append(shown)
    return {**play, "cards": cards, "hits": [dict(h) for h in play["hits"]],
            "passed": list(play["passed"])}


def view(state: State, viewer: Viewer, pending: dict[Seat, Prompt]) -> dict[str, Any]:
    """Everything ``viewer`` may see: own hand, counts of the others, public pile, the window."""
    if not state:
        return {}
    seat = _seat(state, viewer)
    out: dict[str, Any] = {
        "viewer": viewer, "seats": state["seats"], "first": state["first"],
        "turn": state["turn"], "turn_number": state["turn_number"], "step": state["step"],
        "health": list(state["health"]), "supply": state["supply"], "box": state["box"],
        "alive": list(state["alive"]), "out": [list(g) for g in state["out"]],
        "hand_counts": [len(h) for h in state["hands"]], "deck": len(state["deck"]),
        "public": list(state["public"]), "hidden": len(state["hidden"]),
        "options": state["options"], "play": _play(state, viewer),
        "pending": {str(s): p.to_dict() for s, p in pending.items()},
        "result": state["result"],
        "hand": list(state["hands"][seat]) if seat is not None else [],
        "peeked": _peeked(state, seat),
    }
    if viewer == AUDITOR:
        out.update(hands=[list(h) for h in state["hands"]], deck_cards=list(state["deck"]),
                   hidden_cards=list(state["hidden"]))
    return out


def secrets(state: State, viewer: Viewer) -> set[str]:
    """Card ids ``viewer`` must not see now: others' hands and face-down cards, the draw pile,
    and the hidden pile (for every non-auditor, even after the end)."""
    if viewer == AUDITOR or not state:
        return set()
    seat = _seat(state, viewer)
    out = set(state["deck"]) | set(state["hidden"])
    for s, hand in enumerate(state["hands"]):
        if s != seat:
            out.update(hand)
    if state["play"] is not None:
        out.update(c["card"] for c in state["play"]["cards"]
                   if c["truthful"] is None and c["owner"] != seat)
    out.difference_update(p["card"] for p in _peeked(state, seat))
    if state["result"] is not None:  # hands compared on a health tie are shown to all
        for shown in state["result"].get("tiebreak", ()):
            out.difference_update(shown["hand"])
    return out


def redact(event: Event, viewer: Viewer) -> Event:
    """``event`` as ``viewer`` may see it: drawn cards and face-down identities go to their
    owner only; the deck order and hidden-pile cards to the auditor only."""
    if viewer == AUDITOR:
        return event
    data = dict(event.data)
    kind = event.type
    if kind == GAME_STARTED:
        data["deck"] = len(data["deck"])
    elif kind == CARDS_DEALT:
        hands = data.pop("hands")
        data["counts"] = [len(h) for h in hands]
        own = isinstance(viewer, int) and 0 <= viewer < len(hands)
        data["hand"] = list(hands[viewer]) if own else []
    elif kind in (CARD_DRAWN, CARD_USED, DEFENCE_DECLARED):
        if viewer != data["seat"]:
            data["card"] = None
    elif kind == CARD_INSPECTED:
        if viewer not in (data["seat"], data["target"]):
            data["card"] = None
    elif kind == PLAYERS_ELIMINATED:
        data["cards"] = [len(cards) for cards in data["cards"]]
    elif kind == CARDS_DISCARDED:
        data["hidden"] = len(data["hidden"])
    return Event(kind, data)
