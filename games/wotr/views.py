"""What each viewer may see of a War of the Ring game (wotr.md decisions block: the map, dice and
reinforcements are public; each side's hand and a combat card chosen before the reveal are
secret; the decks are face down). ``view``, ``secrets`` and ``redact``."""

from __future__ import annotations

import functools
from typing import Any

from games.core import AUDITOR, Event, Game, State, Text, Viewer, plain_copy
from games.wotr import seats
from games.wotr.data import SIDES
from games.wotr.engine import battle_seat, vp
from games.wotr.model import CARD_DRAWN, COMBAT_CARD_CHOSEN, GAME_STARTED


def _seat(state: State, viewer: Viewer) -> int | None:
    return viewer if isinstance(viewer, int) and 0 <= viewer < seats.count(state) else None


def _side(state: State, viewer: Viewer) -> str | None:
    seat = _seat(state, viewer)
    return None if seat is None else seats.side_of(state, seat)


def _battle(state: State, viewer: Viewer) -> dict[str, Any] | None:
    """The battle as ``viewer`` sees it, sharing with the state what it does not change (the
    view copies it)."""
    b = state["battle"]
    if b is None or b["revealed"] is not None:
        return b
    out = dict(b, cards=dict(b["cards"]), x=dict(b["x"]))
    # §5.1: chosen secretly, revealed together: only whether each side has chosen shows.
    out["chosen"] = {s: b["cards"][s] is not None for s in SIDES}
    # the seed: a card played is laid face down, so whether one was played is public
    out["played"] = {s: bool(b["cards"][s]) for s in SIDES}
    for s in SIDES:
        if viewer not in (AUDITOR, battle_seat(state, s)):
            out["cards"][s] = None
            out["x"][s] = None
    return out


def view(game: Game, state: State, viewer: Viewer) -> dict[str, Any]:
    if not state:
        return {}
    seat, side = _seat(state, viewer), _side(state, viewer)
    sees_all = viewer == AUDITOR or state["over"]
    count = seats.count(state)
    vps = {s: vp(state, s) for s in SIDES}
    out: dict[str, Any] = {
        "summary": summary(state, seat, vps),
        "viewer": viewer, "side": side, "scenario": state["scenario"],
        "regions": list(state["regions"]), "round": state["round"],
        "max_rounds": state["max_rounds"], "vp_to_win": dict(state["vp"]),
        "vp": vps, "turn": state["turn"],
        "hand": list(seats.hand_of(state, seat)) if seat is not None else None,
        "hand_counts": {key: len(hand) for key, hand in state["hands"].items()},
        "seats": count,
        "seating": [{"seat": seat, "name": seats.SEAT_NAMES[count][seat],
                     "side": seats.side_of(state, seat),
                     "nations": list(seats.nations_of(state, seat)),
                     "hand": seats.hand_key(state, seat)}
                    for seat in range(count)],
        "nations": list(seats.nations_of(state, seat)) if seat is not None else None,
        "acting": {s: seats.acting(state, s) for s in SIDES},
        "deck_counts": {s: len(state["decks"][s]) for s in SIDES},
        "pending": {str(s): p.to_dict() for s, p in game.pending(state).items()},
        "over": state["over"], "winner": state["winner"], "reason": state["reason"],
        "outcome": outcome(state),
    }
    # The parts shown as they are in the state, copied in one go (the view must not share
    # what ``evolve`` changes in place).
    out.update(plain_copy({
        "dice": state["dice"], "action": state["action"], "order": state.get("order"),
        "armies": state["armies"], "boxes": state["boxes"], "reinforcements": state["reinf"],
        "eliminated": state["dead"], "control": state["control"], "politics": state["politics"],
        "exiles": state.get("exiles", {}),
        "fp_acted": state.get("fp_acted"),  # §16, 3 seats: public
        "discards": state["discards"], "battle": _battle(state, AUDITOR if sees_all else viewer),
        **({"hands": state["hands"], "decks": state["decks"]} if sees_all else {}),
    }))
    return out

def outcome(state: State) -> str | None:
    """How the game ended, in words (issue 24 point 8): a military victory by VP, or the Ring's
    clock (``max_rounds``, wotr.md decisions block): the Free Peoples held out to the last round
    and the Ring reached Mount Doom, whatever the VP."""
    if not state.get("over"):
        return None
    winner = state["winner"]
    vps = {s: vp(state, s) for s in SIDES}
    if state["reason"] == "ring_destroyed":
        return Text("The Free Peoples held out to the end of round {round}: the Ring reached "
                    "Mount Doom and was destroyed. The Shadow took {vp} of the {goal} victory "
                    "points it needed.", round=state["max_rounds"], vp=vps["sh"],
                    goal=state["vp"]["sh"])
    if winner == "fp":
        return Text("The Free Peoples won a military victory: {vp} victory points of enemy "
                    "Settlements (the goal was {goal}).", vp=vps[winner],
                    goal=state["vp"][winner])
    return Text("The Shadow won a military victory: {vp} victory points of enemy Settlements "
                "(the goal was {goal}).", vp=vps[winner], goal=state["vp"][winner])


def _figures(army: dict[str, list[int]]) -> str:
    return _listed(_key(army))


def _listed(key: tuple[Any, ...] | None) -> str:
    """Figures as ``_key`` lists them, Nation by Nation (Regulars/Elites/Leaders)."""
    return " ".join([f"{n} {r}/{e}/{lead}" for n, r, e, lead in key or ()])


def summary(state: State, seat: int | None, vps: dict[str, int] | None = None) -> list[str]:
    """A few lines of text first in the view, for the terminal client (its screen shows the
    start of the view): the round, dice, VP, the battle, one's hand, and every army
    (Regulars/Elites/Leaders)."""
    vps = vps or {s: vp(state, s) for s in SIDES}
    lines = [Text("round {round}/{rounds}, {side} to act; VP fp {fp}/{fp_goal}, sh {sh}/{sh_goal}",
                  round=state["round"], rounds=state["max_rounds"], side=state["turn"],
                  fp=vps["fp"], fp_goal=state["vp"]["fp"], sh=vps["sh"], sh_goal=state["vp"]["sh"]),
             Text("dice fp {fp}; sh {sh}", fp=",".join(state["dice"]["fp"]) or "-",
                  sh=",".join(state["dice"]["sh"]) or "-")]
    b = state["battle"]
    if b is not None:
        lines.append(Text("battle: {attacker} attacks {region} ({kind}, round {round}, {stage}); "
                          "attackers {figures}", attacker=b["attacker"], region=b["region"],
                          kind=b["kind"], round=b["round"], stage=b["stage"],
                          figures=_figures(b["att"])))
    order = state.get("order")
    if order:
        lines.append(Text("{side} {order} {src} -> {dst}: which figures go?", side=order["side"],
                          order=order["order"], src=order["from"], dst=order["to"]))
    last = state.get("fp_acted")
    if last and (last["nations"] or last["armies"]):
        lines.append(Text("fp last acted with {what}: not again in a row (3 players)",
                          what=", ".join([*last["nations"],
                                          *(f"the army at {r}" for r in last["armies"])])))
    if seat is not None:
        lines.append(Text("hand: {cards}", cards=", ".join(seats.hand_of(state, seat)) or "-"))
    boxes = state["boxes"]
    lines.extend(_army_line(region, _key(army), _key(boxes.get(region)))
                 for region, army in sorted(state["armies"].items()))
    return lines


def _key(army: dict[str, list[int]] | None) -> tuple[Any, ...] | None:
    return None if not army else tuple([(n, *f) for n, f in sorted(army.items())])


@functools.lru_cache(maxsize=4096)
def _army_line(region: str, army: tuple[Any, ...], box: tuple[Any, ...] | None) -> Text:
    """One army's summary line; armies mostly stand still, so each line is made once (a Text
    is immutable)."""
    if box:
        return Text("{region}: {figures} [besieged: {garrison}]", region=region,
                    figures=_listed(army), garrison=_listed(box))
    return Text("{region}: {figures}", region=region, figures=_listed(army))


def secrets(state: State, viewer: Viewer) -> set[str]:
    """Card ids ``viewer`` must not see now: the other hand, both decks, an unrevealed card."""
    if not state or state["over"] or viewer == AUDITOR:
        return set()
    seat = _seat(state, viewer)
    own = None if seat is None else seats.hand_key(state, seat)
    hidden = set(state["decks"]["fp"]) | set(state["decks"]["sh"])
    for key, hand in state["hands"].items():
        if key != own:
            hidden.update(hand)  # with two seats a side a teammate's hand is hidden too
    b = state["battle"]
    for s in SIDES:
        if (b is not None and b["revealed"] is None and b["cards"][s]
                and battle_seat(state, s) != seat):
            hidden.add(b["cards"][s])
    return hidden


def redact(event: Event, viewer: Viewer) -> Event | None:
    """Hide the deck order, the card the other side drew and a combat card before the reveal."""
    if viewer == AUDITOR:
        return event
    data = event.data
    if event.type == GAME_STARTED:
        return Event(event.type, {**{k: v for k, v in data.items() if k != "decks"},
                                  "deck_counts": {s: len(d) for s, d in data["decks"].items()}})
    if event.type not in (COMBAT_CARD_CHOSEN, CARD_DRAWN) or _holds(data, viewer):
        return event
    public = {k: data[k] for k in ("side", "seat") if k in data}
    if event.type == COMBAT_CARD_CHOSEN:
        public["played"] = bool(data["card"])
    return Event(event.type, public)


def _holds(data: dict[str, Any], viewer: Viewer) -> bool:
    """Whether ``viewer`` holds the hand a card event names (its seat with two seats a side,
    else its side: seat 0 the Free Peoples, seat 1 the Shadow)."""
    if "seat" in data:
        return viewer == data["seat"]
    return isinstance(viewer, int) and 0 <= viewer < 2 and SIDES[viewer] == data["side"]
