"""Scripted Mag Blast tables for the rules tests: fleets, hands and decks stacked by hand.

``table(...)`` starts from a real setup and then lays the table out as a test needs it (as the
Faker Blue tests set health by hand); every card not named stays in its deck, so the 54 ships
and 101 action cards are all accounted for.
"""

from __future__ import annotations

from typing import Any

from games.core import Rng, State
from games.magblast import GAME
from games.magblast.data import ACTION_IDS, ACTIONS, COMMAND_SHIPS, SHIP_IDS, SHIPS, ZONES
from games.magblast.data import kind as card_kind

BY_NAME = {}
for _id, _ship in SHIPS.items():
    BY_NAME.setdefault(_ship.name, _id)

DEFAULT_RACES = ("freep", "tribot", "mazons", "brotherhood", "glorp", "mhee", "recyclons",
                 "bzzgzzrt")
A, B, C, D = 0, 1, 2, 3


def ship(name: str) -> str:
    """The id of the (first) fleet ship with that name (magblast.md §3b)."""
    return BY_NAME[name]


# The fleet ships the rules tests name, by their part on a scripted table.
SCOUT, SCOUT2, DINK = ship("Scular"), ship("Chezill"), ship("Dink")
CRUISER, CRUISER2 = ship("Valent"), ship("Corvoss")
DESTROYER, DESTROYER2 = ship("Terral"), ship("Vlero")
DREAD, ZEUS = ship("Ferdt"), ship("Zeus")
SWEEPER, CARRIER, CARRIER2 = ship("Portellis"), ship("Vengarr"), ship("Woden")
GUNSHIP = ship("Falladir")


def card(kind: str, n: int = 1) -> str:
    return f"{kind}-{n}"


def plain(kind: str, n: int = 1) -> str:
    """The n-th copy of ``kind`` that shows no resource icon."""
    return [c for c in ACTION_IDS if card_kind(c) == kind and not ACTIONS[c].icons][n - 1]


def with_icons(kind: str, *icons: str) -> str:
    """The first copy of ``kind`` showing exactly these icons."""
    return next(c for c in ACTION_IDS
                if card_kind(c) == kind and ACTIONS[c].icons == tuple(icons))


def table(fleets: list[dict[str, Any]], hands: list[list[str]] = (), *,
          races: list[str] | None = None, turn: int = A, phase: str = "attack",
          action_top: list[str] = (), fleet_top: list[str] = (), discard: list[str] = (),
          fleet_discard: list[str] = (), under: dict[str, list[str]] | None = None,
          options: dict[str, Any] | None = None, started: bool = True) -> State:
    n = len(fleets)
    fleets = [{z: [v] if isinstance(v, str) else list(v) for z, v in f.items()} for f in fleets]
    state = GAME.fold(GAME.setup(n, GAME.load_options(options or {}), Rng("table")))
    races = list(races or DEFAULT_RACES[:n])
    on_table = [s for f in fleets for ships in f.values() for s in ships]
    named_ships = set(on_table) | set(fleet_top) | set(fleet_discard)
    hands = [list(h) for h in hands] + [[] for _ in range(n - len(hands))]
    under = under or {}
    named_cards = ({c for h in hands for c in h} | set(action_top) | set(discard)
                   | {c for cards in under.values() for c in cards})
    state.update(
        races=races, uses=[COMMAND_SHIPS[r].uses or None for r in races],
        zones=[{z: list(f.get(z, [])) for z in ZONES} for f in fleets],
        dealt=None, placed={}, fleet_discard=list(fleet_discard),
        fleet_deck=list(fleet_top) + [s for s in SHIP_IDS if s not in named_ships],
        hands=hands, action_discard=list(discard),
        action_deck=list(action_top) + [c for c in ACTION_IDS if c not in named_cards],
        under={s: [[c, ACTIONS[c].damage] for c in cards] for s, cards in under.items()},
        turn=turn, turn_number=1, phase=phase, started=[started] * n)
    assert conserved(state), "a scripted table names a ship or card twice"
    return state


def pass_idle_windows(state: State) -> tuple[State, list[Any]]:
    """Send ``no_response`` for every seat a response window asks that has nothing it could
    play (issue 12: every seat the rules let answer is asked, whatever its hand holds); for
    tests about something else than the windows."""
    events: list[Any] = []
    while state["chain"] is not None and not state["chain"]["silent"]:
        pending = GAME.pending(state)
        if len(pending) != 1:
            break
        seat = next(iter(pending))
        if GAME.legal_commands(state, seat) != [{"type": "no_response"}]:
            break
        state, new = GAME.step(state, {"type": "no_response"}, seat, Rng("pass"))
        events += new
    return state, events


def census(state: State) -> tuple[list[str], list[str]]:
    """Every ship and action card, wherever it is (deck, hands, zones, under ships, discards,
    setup deal, chain, effects, squadrons in flight): the conservation check."""
    ships = list(state["fleet_deck"]) + list(state["fleet_discard"])
    for zones in state["zones"]:
        for z in zones.values():
            ships += z
    if state["dealt"]:
        ships += [s for d in state["dealt"] for s in d]
    if state["placing"]:
        ships += state["placing"]["ships"]
    cards = list(state["action_deck"]) + list(state["action_discard"])
    cards += [c for h in state["hands"] for c in h]
    cards += [c for v in state["under"].values() for c, _ in v]
    cards += [e["card"] for e in state["effects"]] + [c for c, _ in state["returning"]]
    if state["chain"]:
        cards += [lk["card"] for lk in state["chain"]["links"] if lk["card"] and not lk["gone"]]
    return sorted(ships), sorted(cards)


def conserved(state: State) -> bool:
    ships, cards = census(state)
    return ships == sorted(SHIP_IDS) and cards == sorted(ACTION_IDS)
