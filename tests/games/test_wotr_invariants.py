"""War of the Ring's basic invariant over random games (issue 24, point 2): after every command
no region holds figures of both sides, except a besieged Stronghold (garrison inside, besiegers
outside), and between actions no region is over its stacking limit (engine.invariant_breaks).

The rule that keeps it (the seed, wotr.md §4): "공격군이 전투 지역으로 들어가지 않습니다" — the
attacker does not enter the battle's region: the attacking figures stay in their own region,
which stays the attacker's and is never a retreat destination for the defender.

The default run plays a few games a scenario; ``WOTR_FULL_PLAYOUTS=1`` plays 1,000 ``south`` and
200 ``full`` games (bench/wotr_invariants.py plays any count and prints the figures)."""

from __future__ import annotations

import os

import pytest

from games.core import Rng
from games.wotr import GAME
from games.wotr.engine import invariant_breaks

FULL = os.environ.get("WOTR_FULL_PLAYOUTS") == "1"
COUNTS = {"south": 1000 if FULL else 6, "full": 200 if FULL else 1}


def random_game(scenario: str, seed: str, seats: int = 2) -> tuple[int, list[str]]:
    """A random legal game of ``seats`` seats; (commands played, the first broken invariant with
    its command)."""
    state = GAME.fold(GAME.setup(seats, GAME.load_options({"scenario": scenario}),
                                 Rng(f"setup-{seed}")))
    for step in range(20_000):
        if GAME.result(state) is not None:
            return step, []
        pending = GAME.pending(state)
        seat = sorted(pending)[Rng(f"pick-{seed}", step).below(len(pending))]
        legal = GAME.legal_commands(state, seat)
        command = legal[Rng(f"bot-{seed}", step).below(len(legal))]
        state = GAME.fold(GAME.decide(state, command, seat, Rng(f"game-{seed}", step)), state)
        broken = invariant_breaks(state)
        if broken:
            return step, [f"after {command} (step {step}): {b}" for b in broken]
    return 20_000, ["the game did not end"]


@pytest.mark.parametrize(("scenario", "seed"), [(s, n) for s, count in COUNTS.items()
                                                 for n in range(count)])
def test_no_region_ever_holds_both_sides_outside_a_siege(scenario, seed):
    steps, broken = random_game(scenario, f"inv-{seed}")
    assert broken == [] and steps > 0


@pytest.mark.parametrize("seats", [3, 4])
def test_no_region_ever_holds_both_sides_with_two_seats_a_side(seats):
    steps, broken = random_game("south", f"inv-seats-{seats}", seats)
    assert broken == [] and steps > 0
