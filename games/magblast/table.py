"""What every part of Mag Blast's decider shares: the draft of events, queries over the table,
and the outcomes several rules lead to (draws with reshuffles, destruction, elimination).

Queries take the folded state; outcomes ``emit`` events into a ``Draft`` that folds as it goes,
so later checks in the same command see what earlier events did.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from games.core import Event, Rng, Seat, State
from games.magblast.data import (
    ACTIONS,
    COMMAND_HULL,
    SHIPS,
    ZONE_LIMIT,
    ZONES,
    hull,
    kind,
)
from games.magblast.model import (
    ACTION_DECK_RESHUFFLED,
    CARDS_DRAWN,
    FLEET_DECK_RESHUFFLED,
    FLEET_DRAWN,
    GAME_ENDED,
    PLAYER_ELIMINATED,
    SHIP_DESTROYED,
    clone,
)


class Draft:
    """The events decided so far and the state they lead to: decide folds as it goes."""

    def __init__(self, state: State, evolve: Callable[[State, Event], State], rng: Rng):
        self.state = clone(state)
        self.events: list[Event] = []
        self.rng = rng
        self._evolve = evolve

    def emit(self, type_: str, **data: Any) -> None:
        event = Event(type_, data)
        self.events.append(event)
        self.state = self._evolve(self.state, event)


# --- queries ------------------------------------------------------------------------------------

def living(state: State) -> list[Seat]:
    return [s for s in range(state["seats"]) if state["alive"][s]]


def after(state: State, seat: Seat) -> list[Seat]:
    """The other living seats in turn order, starting after ``seat`` (magblast.md §4c)."""
    n = state["seats"]
    return [s for s in ((seat + i) % n for i in range(1, n)) if state["alive"][s]]


def fleet(state: State, seat: Seat) -> Iterator[tuple[str, str]]:
    """(ship, zone) for every fleet ship of ``seat``."""
    for zone in ZONES:
        for ship in state["zones"][seat][zone]:
            yield ship, zone


def locate(state: State, ship: str) -> tuple[Seat, str | None] | None:
    """(owner, zone) of a fleet ship on the table, (owner, None) for a living command ship."""
    if ship in SHIPS:
        for seat in range(state["seats"]):
            for zone in ZONES:
                if ship in state["zones"][seat][zone]:
                    return seat, zone
        return None
    if ship in state["races"]:
        seat = state["races"].index(ship)
        return (seat, None) if state["alive"][seat] else None
    return None


def damage(state: State, ship: str) -> int:
    """Permanent (damage cards) plus temporary (squadrons this turn) damage."""
    return sum(d for _, d in state["under"].get(ship, ())) + state["temp"].get(ship, 0)


def remaining(state: State, ship: str) -> int:
    return hull(ship) - damage(state, ship)


def race(state: State, seat: Seat) -> str:
    return state["races"][seat]


def has_power(state: State, seat: Seat, power: str) -> bool:
    """An ongoing power, or a 3x power with a use left (magblast.md §2)."""
    return state["races"][seat] == power and state["alive"][seat] and (
        state["uses"][seat] is None or state["uses"][seat] > 0)


def speed(ship: str) -> int:
    return SHIPS[ship].speed


def is_carrier(state: State, seat: Seat, ship: str) -> bool:
    """Carriers launch Squadrons; BZZGZZRT!'s speed-1 ships too (magblast.md §2 #8)."""
    spec = SHIPS[ship]
    return spec.cls == "carrier" or (race(state, seat) == "bzzgzzrt" and spec.speed == 1)


def is_minesweeper(state: State, seat: Seat, ship: str) -> bool:
    spec = SHIPS[ship]
    return spec.cls == "minesweeper" or (race(state, seat) == "bzzgzzrt" and spec.speed == 2)


def carriers(state: State, seat: Seat) -> list[str]:
    return [ship for ship, _ in fleet(state, seat) if is_carrier(state, seat, ship)]


def under_effect(state: State, seat: Seat, effect: str) -> bool:
    return any(e["fleet"] == seat and kind(e["card"]) == effect for e in state["effects"])


def zone_counts(state: State, seat: Seat) -> dict[str, int]:
    return {zone: len(state["zones"][seat][zone]) for zone in ZONES}


def open_zones(state: State, seat: Seat) -> list[str]:
    return [z for z, n in zone_counts(state, seat).items() if n < ZONE_LIMIT]


def icons(cards: list[str]) -> list[str]:
    return [icon for card in cards for icon in ACTIONS[card].icons]


def pays(cards: list[str]) -> bool:
    """magblast.md §1 Reinforce: 3 icons of one kind, or one each of star, circle, diamond."""
    found = icons(cards)
    return any(found.count(r) >= 3 for r in set(found)) or len(set(found)) == 3


def fleet_hull(state: State, seat: Seat) -> int:
    return sum(SHIPS[ship].hull for ship, _ in fleet(state, seat))


def standing_hull(state: State, seat: Seat) -> int:
    """No Mercy (magblast.md §6.2): hull of every ship, command ship included, minus damage."""
    ships = [ship for ship, _ in fleet(state, seat)] + [race(state, seat)]
    return sum(remaining(state, ship) for ship in ships)


def attackable(state: State, attacker: Seat, defender: Seat) -> bool:
    """Blasts and Squadrons: any other living seat, or only the living neighbours under the
    anti-massacre rule until 2-3 players remain (magblast.md §6.1)."""
    if defender == attacker or not state["alive"][defender]:
        return False
    if state["options"]["attack_mode"] != "neighbours":
        return True
    others = after(state, attacker)
    if len(others) <= 2:
        return True
    return defender in (others[0], others[-1])


# --- outcomes -----------------------------------------------------------------------------------

def draw_actions(draft: Draft, seat: Seat, count: int, reason: str) -> None:
    """Draw from the action deck; an empty deck is the discard pile reshuffled (KR phase 2)."""
    while count > 0:
        deck = draft.state["action_deck"]
        if not deck:
            if not draft.state["action_discard"]:
                return
            draft.emit(ACTION_DECK_RESHUFFLED,
                       deck=draft.rng.shuffled(draft.state["action_discard"]))
            continue
        take = deck[:count]
        draft.emit(CARDS_DRAWN, seat=seat, cards=take, reason=reason)
        count -= len(take)


def can_draw_fleet(state: State) -> bool:
    return bool(state["fleet_deck"] or state["fleet_discard"])


def draw_fleet(draft: Draft, seat: Seat, then: str) -> None:
    """Draw the top fleet ship to place (Mhee Yow-Meex draws 2 and keeps 1); a fleet deck that
    runs out takes its discard pile reshuffled under what is left (magblast.md §1, as AQ)."""
    want = 2 if race(draft.state, seat) == "mhee" else 1
    state = draft.state
    if len(state["fleet_deck"]) < want and state["fleet_discard"]:
        draft.emit(FLEET_DECK_RESHUFFLED,
                   deck=list(state["fleet_deck"]) + draft.rng.shuffled(state["fleet_discard"]))
    ships = draft.state["fleet_deck"][:want]
    if ships:
        draft.emit(FLEET_DRAWN, seat=seat, ships=ships, source="deck", then=then)


def destroy_if_dead(draft: Draft, ship: str, reason: str = "damage") -> None:
    """A ship whose damage reaches its hull is destroyed (magblast.md §5); a command ship takes
    its player out."""
    state = draft.state
    where = locate(state, ship)
    if where is None or damage(state, ship) < hull(ship):
        return
    seat, zone = where
    if zone is None:
        eliminate(draft, seat)
    else:
        destroy(draft, seat, ship, reason)


def destroy(draft: Draft, seat: Seat, ship: str, reason: str) -> None:
    """The fleet ship goes to the fleet discard, its damage cards to the action discard."""
    cards = [c for c, _ in draft.state["under"].get(ship, ())]
    draft.emit(SHIP_DESTROYED, seat=seat, ship=ship, cards=cards, reason=reason)
    recycle(draft, 1)


def recycle(draft: Draft, count: int) -> None:
    """Recyclons v40K: 1 card per fleet ship destroyed, 3 per command ship (magblast.md §2 #5)."""
    for seat in living(draft.state):
        if race(draft.state, seat) == "recyclons":
            draw_actions(draft, seat, count, "recyclons")


def eliminate(draft: Draft, seat: Seat) -> None:
    """KR 전멸: the player is out; every action card and ship card of theirs is discarded."""
    state = draft.state
    ships = [ship for ship, _ in fleet(state, seat)]
    under = [c for ship in [*ships, race(state, seat)] for c, _ in state["under"].get(ship, ())]
    draft.emit(PLAYER_ELIMINATED, seat=seat, hand=list(state["hands"][seat]), ships=ships,
               cards=under, effects=[e["card"] for e in state["effects"] if e["by"] == seat],
               returning=[c for c, owner in state["returning"] if owner == seat])
    recycle(draft, 3)
    check_victory(draft)


def check_victory(draft: Draft) -> None:
    state = draft.state
    alive = living(state)
    if len(alive) > 1 or state["result"] is not None:
        return
    ranking = [alive] + [[s] for s in reversed(state["out"])]
    draft.emit(GAME_ENDED, reason="last_command_ship", winners=alive,
               scores={str(s): (COMMAND_HULL - damage(state, race(state, s))
                                if state["alive"][s] else 0) for s in range(state["seats"])},
               ranking=ranking)


def over(state: State) -> bool:
    return state["result"] is not None
