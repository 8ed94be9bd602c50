"""War of the Ring random playouts (issue 11, requirement 3): random legal games never raise,
figures are conserved at every version (map + besieged boxes + battle + reinforcements +
eliminated = totals), the offered legal commands are exactly what ``decide`` accepts on sampled
states, and the audit transcript of a sample verifies.

The default run plays a few games so the suite stays fast; ``WOTR_FULL_PLAYOUTS=1`` plays the
issue's counts (200 ``full`` and 1,000 ``south`` games)."""

from __future__ import annotations

import copy
import os

import pytest

from events.audit import verify
from games.core import Rejected, Rng
from games.wotr import GAME
from games.wotr.data import CARDS, FACES, NATIONS
from games.wotr.model import figures_total
from tests.audit.recorder import export, record_game

FULL = os.environ.get("WOTR_FULL_PLAYOUTS") == "1"
COUNTS = {"full": 200 if FULL else 2, "south": 1000 if FULL else 5}


def _playout(scenario: str, seed: int, check_every: int = 0) -> tuple[int, str]:
    state = GAME.fold(GAME.setup(2, GAME.load_options({"scenario": scenario}),
                                 Rng(f"setup-{seed}")))
    totals = state["totals"]
    for step in range(20_000):
        if GAME.result(state) is not None:
            return step, GAME.result(state)["reason"]
        pending = GAME.pending(state)
        seat = sorted(pending)[Rng(f"pick-{seed}", step).below(len(pending))]
        legal = GAME.legal_commands(state, seat)
        if check_every and step % check_every == 0:
            _check_exact(state, seat, legal)
        command = legal[Rng(f"bot-{seed}", step).below(len(legal))]
        for event in GAME.decide(state, command, seat, Rng(f"game-{seed}", step)):
            state = GAME.evolve(state, event)
            assert figures_total(state) == totals, event
    pytest.fail("the game did not end")


def _variants(state, command) -> list[dict]:
    """Near misses of a legal command: every other value of one field at a time."""
    out = []
    regions = state["regions"]
    for key, values in (("to", [*regions[:40], "", "siege"]), ("from", regions[:40]),
                        ("die", FACES["fp"] + FACES["sh"]),
                        ("card", ["", *list(CARDS)[::5]]), ("x", range(0, 5)),
                        ("nation", ["", *NATIONS]), ("kind", ["regular", "elite"]),
                        ("yes", [True, False])):
        if key in command:
            for value in values:
                out.append({**command, key: value})
    if "figures" in command:
        for kind in ("regular", "elite", "leader"):
            for count in range(0, 6):
                out.append({**command, "figures": {**command["figures"], kind: count}})
    if command["type"] == "muster":
        for recruit in command["recruits"]:
            for region in regions[::3]:
                out.append({**command, "recruits": [{**recruit, "region": region}]})
    return out


def _check_exact(state, seat, legal) -> None:
    """Every offered command is accepted; every near miss not offered is rejected."""
    offered = {repr(c) for c in legal}
    for command in legal:
        GAME.decide(copy.deepcopy(state), command, seat, Rng("exact"))
    for base in legal[:: max(1, len(legal) // 6)]:
        for variant in _variants(state, base):
            if repr(variant) in offered:
                continue
            with pytest.raises(Rejected):
                GAME.decide(state, variant, seat, Rng("exact"))
    other = 1 - seat
    if other not in GAME.pending(state):
        assert GAME.legal_commands(state, other) == []


@pytest.mark.parametrize("seed", range(COUNTS["south"]))
def test_random_south_games_end_and_conserve_figures(seed):
    steps, reason = _playout("south", seed, check_every=9 if seed < 2 else 0)
    assert steps > 0 and reason in ("military_victory", "ring_destroyed")


@pytest.mark.parametrize("seed", range(COUNTS["full"]))
def test_random_full_games_end_and_conserve_figures(seed):
    steps, _ = _playout("full", seed, check_every=25 if seed < 1 else 0)
    assert steps > 0


@pytest.mark.parametrize("play", range(2))
def test_audit_verify_passes_on_recorded_games(play):
    seed = f"wotr-audit-{play}"
    rec = record_game("wotr", 2, seed, play, options={"scenario": "south"})
    finding = verify(export(rec, seed))
    assert finding.ok, str(finding)
