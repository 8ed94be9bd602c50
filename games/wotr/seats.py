"""Who commands what in War of the Ring (wotr.md decisions block: one seat a side, or two seats
per side sharing its dice, alternating): the Nations of each seat, the seat of a side that uses
the next die, the Leading seat, the seat in charge of an army, and each seat's hand.

Seats 0 and 1 are always the Free Peoples and the Shadow (so a 2-seat game is unchanged); the
Nations follow the rulebook's multiplayer chapter [DZ-multi] as wotr.md §16 gives it:

- 3 seats: 0 Free Peoples (every FP Nation), 1 the Witch-king (Sauron), 2 Saruman (Isengard,
  Southrons & Easterlings);
- 4 seats: 0 Gondor (Gondor, Elves), 1 the Witch-king (Sauron), 2 Rohan (Rohan, North,
  Dwarves), 3 Saruman (Isengard, Southrons & Easterlings).

In a 2-seat game the hands are keyed by side (``"fp"``/``"sh"``, as the stored logs have them);
with more seats each seat has its own hidden hand, keyed by its number as a string.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from games.core import Seat, State, ensure
from games.wotr.data import FP, HAND_LIMIT, NATION_SIDE, SH, SIDES

_FP_ALL = tuple(n for n, s in NATION_SIDE.items() if s == FP)
_SH_ALL = tuple(n for n, s in NATION_SIDE.items() if s == SH)
SEATING: dict[int, tuple[tuple[str, tuple[str, ...]], ...]] = {
    2: ((FP, _FP_ALL), (SH, _SH_ALL)),
    3: ((FP, _FP_ALL), (SH, ("sauron",)), (SH, ("isengard", "southrons"))),
    4: ((FP, ("gondor", "elves")), (SH, ("sauron",)), (FP, ("rohan", "north", "dwarves")),
        (SH, ("isengard", "southrons"))),
}
SEAT_NAMES = {2: ("Free Peoples", "Shadow"),
              3: ("Free Peoples", "Witch-king", "Saruman"),
              4: ("Gondor", "Witch-king", "Rohan", "Saruman")}
MULTI_HAND_LIMIT = 4  # [DZ-multi] four-player game: each player's hand limit is 4, not 6


def count(state: State) -> int:
    return state.get("seats", 2)


def side_of(state: State, seat: Seat) -> str:
    return SEATING[count(state)][seat][0]


def nations_of(state: State, seat: Seat) -> tuple[str, ...]:
    return SEATING[count(state)][seat][1]


def seats_of(state: State, side: str) -> list[Seat]:
    return [s for s, (sd, _) in enumerate(SEATING[count(state)]) if sd == side]


def commander(state: State, nation: str) -> Seat:
    """The seat commanding ``nation``."""
    return next(s for s, (_, ns) in enumerate(SEATING[count(state)]) if nation in ns)


def leading(state: State, side: str) -> Seat:
    """[DZ-multi] the Leading Player: Gondor and the Witch-king in round 1; then the token
    passes to the teammate every round."""
    seats = seats_of(state, side)
    return seats[(max(state["round"], 1) - 1) % len(seats)]


def first_to_act(state: State, side: str) -> Seat:
    """[DZ-multi] action resolution: the non-Leading player of a team uses its first die."""
    seats = seats_of(state, side)
    lead = leading(state, side)
    return next((s for s in seats if s != lead), lead)


def teammate(state: State, seat: Seat) -> Seat:
    """The other seat of ``seat``'s side (itself when it plays the side alone)."""
    seats = seats_of(state, side_of(state, seat))
    return next((s for s in seats if s != seat), seat)


def acting(state: State, side: str) -> Seat:
    """The seat of ``side`` that uses the side's next action die (they alternate)."""
    return state.get("next", {}).get(side, SIDES.index(side))


def in_charge(state: State, army: dict[str, list[int]] | None, side: str) -> Seat:
    """[DZ-multi] the seat controlling a (mixed) army: the most Army units, then the most
    Elites, then the Leading seat; an army of Leaders only goes by its Leaders."""
    seats = seats_of(state, side)
    if len(seats) == 1:
        return seats[0]
    lead = leading(state, side)

    def weight(seat: Seat) -> tuple[int, int, int, int]:
        mine = [f for n, f in (army or {}).items() if n in nations_of(state, seat)]
        return (sum(f[0] + f[1] for f in mine), sum(f[1] for f in mine),
                sum(f[2] for f in mine), seat == lead)

    return max(seats, key=weight)


def hand_key(state: State, seat: Seat) -> str:
    return SIDES[seat] if count(state) == 2 else str(seat)


def hand_limit(state: State) -> int:
    return HAND_LIMIT if count(state) == 2 else MULTI_HAND_LIMIT


def hand_of(state: State, seat: Seat) -> list[str]:
    return state["hands"][hand_key(state, seat)]


def seat_of_hand(state: State, key: str) -> Seat:
    return SIDES.index(key) if key in SIDES else int(key)


# --- the lone Free Peoples player of a 3-seat game ([DZ-multi] three-player game, wotr.md §16) --
#
# "The Free Peoples player cannot use two consecutive actions on the same Nation (e.g., he
# cannot use two consecutive actions to recruit and move Gondor troops). He can use two
# consecutive actions on mixed Armies but not on the same individual Army."
#
# ``state["fp_acted"]`` (public, in the view) is what the Free Peoples' last action acted with:
# ``{"nations": [...], "armies": [...], "before": {...} | None}``: the Nations of its musters,
# diplomacy and single-Nation armies, and the regions of a mixed army it moved (from and to) or
# attacked with (its region and the battle's, where it may advance). ``before`` is the record of
# the action before, against which a second move of the same Army die is checked (both moves
# are one action). Drawing a card or skipping a die acts with no Nation; passing is no action.


def alternates(state: State, side: str) -> bool:
    """Whether ``side`` plays under the rule: the Free Peoples of a 3-seat game."""
    return side == FP and count(state) == 3


def last_acted(state: State, second: bool = False) -> dict[str, Any]:
    """What the previous action acted with (for a second move, the action before its first)."""
    record = state.get("fp_acted") or {}
    if second:
        record = record.get("before") or {}
    return record


def acted_with(figures: dict[str, list[int]], regions: Iterable[str]) -> dict[str, list[str]]:
    """The record of an action with ``figures`` (an army's, by Nation): one Nation's, or a mixed
    army's, known by ``regions``."""
    nations = sorted(n for n, f in figures.items() if any(f))
    if len(nations) > 1:
        return {"nations": [], "armies": sorted(set(regions))}
    return {"nations": nations, "armies": []}


def check_alternation(state: State, side: str, nations: Iterable[str] = (),
                      army: dict[str, list[int]] | None = None, region: str | None = None,
                      second: bool = False) -> None:
    """Refuse (``same_nation_twice``) an action of the lone Free Peoples player with a Nation its
    last action acted with (``nations``: a muster's or diplomacy's; ``army`` in ``region``: the
    figures that go), or with the same mixed army."""
    if not alternates(state, side):
        return
    last = last_acted(state, second)
    if army is not None:
        record = acted_with(army, [region] if region else [])
        nations = record["nations"]
        ensure(not set(record["armies"]) & set(last.get("armies", ())), "same_nation_twice",
               "In a three-player game the Free Peoples may not act twice in a row with the same "
               "army (wotr.md §16): that mixed army was in your last action; act with another "
               "army or Nation first.", army=region)
    repeated = sorted(set(nations) & set(last.get("nations", ())))
    ensure(not repeated, "same_nation_twice",
           "In a three-player game the Free Peoples may not act twice in a row with the same "
           "Nation (wotr.md §16): your last action was with {named}; act with another Nation "
           "first (a mixed army may act).", {"named": ", ".join(repeated)}, nations=repeated)
