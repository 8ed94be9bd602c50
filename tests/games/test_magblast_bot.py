"""The Mag Blast ``basic`` bot's habits, each on a scripted table (it sees only its view)."""

from __future__ import annotations

from games.core import Rng
from games.magblast import GAME
from games.magblast.bot import basic_bot, shortlist
from games.magblast.data import ZONES
from tests.games.magblast_table import (
    CRUISER,
    CRUISER2,
    DESTROYER,
    DESTROYER2,
    DINK,
    DREAD,
    SCOUT,
    SCOUT2,
    ZEUS,
    A,
    B,
    plain,
    table,
)

LASER, BEAM = plain("laser_blast", 1), plain("beam_blast", 1)


def four(*ships):
    return dict(zip(ZONES, ships, strict=True))


def choose(state, seat):
    return basic_bot(GAME.seen(state, seat), Rng("bot"))


def run(state, *moves):
    for seat, command in moves:
        state, _ = GAME.step(state, command, seat, Rng("test"))
    return state


def test_basic_covers_an_empty_zone_in_the_maneuver():
    a = {"n": [SCOUT, DINK], "e": [CRUISER], "s": [DREAD], "w": []}
    state = table([a, four(DESTROYER2, CRUISER2, ZEUS, SCOUT2)], [[]], phase="maneuver")
    command = choose(state, A)
    assert command["type"] == "move" and command["zone"] == "w"


def test_basic_fires_at_the_exposed_command_ship_first():
    b = {"n": [DESTROYER2], "e": [CRUISER2], "s": [ZEUS], "w": []}
    state = table([four(DESTROYER, CRUISER, DREAD, SCOUT), b], [[LASER]])
    assert choose(state, A)["target"] == "tribot"


def test_basic_finishes_a_ship_it_can_destroy():
    state = table([four(DESTROYER, CRUISER, DREAD, SCOUT),
                   four(DESTROYER2, CRUISER2, ZEUS, SCOUT2)], [[BEAM]],
                  under={DESTROYER2: [plain("laser_blast", 2)]})
    state["zones"][A]["n"] = [DESTROYER]
    command = choose(state, A)
    assert (command["type"], command["target"]) == ("blast", DESTROYER2)  # 1 + 3 on a hull of 4


def test_basic_holds_evasive_action_for_big_hits():
    fleets = [four(DESTROYER, CRUISER, DREAD, SCOUT), four(DESTROYER2, CRUISER2, ZEUS, SCOUT2)]
    small = run(table(fleets, [[LASER], ["evasive_action-1"]]),
                (A, {"type": "blast", "card": LASER, "ship": DESTROYER, "target": DESTROYER2,
                     "sound": "pew"}))
    assert choose(small, B) == {"type": "no_response"}
    big = run(table(fleets, [[BEAM], ["evasive_action-1"]]),
              (A, {"type": "blast", "card": BEAM, "ship": CRUISER, "target": CRUISER2,
                   "sound": "pew"}))
    assert choose(big, B) == {"type": "respond", "card": "evasive_action-1"}


def test_basic_fluxes_an_answer_that_cancels_its_own_attack():
    fleets = [four(DESTROYER, CRUISER, DREAD, SCOUT), four(DESTROYER2, CRUISER2, ZEUS, SCOUT2)]
    state = run(table(fleets, [[BEAM, "temporal_flux-1"], ["evasive_action-1"]]),
                (A, {"type": "blast", "card": BEAM, "ship": CRUISER, "target": CRUISER2,
                     "sound": "pew"}), (B, {"type": "respond", "card": "evasive_action-1"}))
    assert choose(state, A) == {"type": "respond", "card": "temporal_flux-1"}


def test_the_expert_does_not_search_moving_again_a_ship_it_moved_this_turn():
    """A ship may move again within its speed of where it started, and a search that found
    moving it a shade better each time shuffled it forever (a self-play game of 8,700 steps in
    one Maneuver phase); the expert's shortlist keeps each ship to one move a turn."""
    a = {"n": [SCOUT, DINK], "e": [CRUISER], "s": [DREAD], "w": []}
    state = table([a, four(DESTROYER2, CRUISER2, ZEUS, SCOUT2)], [[]], phase="maneuver")
    first = {"type": "move", "ship": SCOUT, "zone": "e"}
    before = GAME.seen(state, A)
    assert first in before.legal and first in shortlist(before, {"type": "end_phase"}, 99)
    state = run(state, (A, first))
    seen = GAME.seen(state, A)
    again = [c for c in seen.legal if c["type"] == "move" and c["ship"] == SCOUT]
    assert again, "the rules let the moved ship move again"
    searched = shortlist(seen, {"type": "end_phase"}, 99)
    assert not [c for c in searched if c in again]
    assert {"type": "end_phase"} in searched
    assert [c for c in searched if c["type"] == "move" and c["ship"] == DINK]
    assert again[0] in shortlist(seen, again[0], 99)  # basic's own choice is always kept
