"""Mag Blast command-ship powers (magblast.md §2) and the variants (§6: anti-massacre, No Mercy).
Cranium Consortium's answer is in test_magblast_chain.py."""

from __future__ import annotations

from games.core import Rng
from games.magblast import GAME
from games.magblast.data import ZONES
from tests.games.dsl import given_state
from tests.games.magblast_table import (
    CARRIER,
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
    C,
    D,
    conserved,
    pass_idle_windows,
    plain,
    table,
    with_icons,
)

BEAM, BEAM2 = plain("beam_blast", 1), plain("beam_blast", 2)
LASER, MAG = plain("laser_blast", 1), plain("mag_blast", 1)
STAR = [with_icons("laser_blast", "star"), with_icons("beam_blast", "star"),
        with_icons("mag_blast", "star")]


def four(*ships):
    return dict(zip(ZONES, ships, strict=True))


FLEETS = [four(DESTROYER, CRUISER, DREAD, SCOUT), four(DESTROYER2, CRUISER2, ZEUS, SCOUT2)]


def run(state, *moves):
    events = []
    for seat, command in moves:
        state, new = GAME.step(state, command, seat, Rng("test"))
        state, passes = pass_idle_windows(state)  # the seats asked with nothing to answer
        events += new + passes
    return state, events


def blast(card, ship_, target):
    return {"type": "blast", "card": card, "ship": ship_, "target": target, "sound": "pew"}


def test_overseers_of_kalgon_take_blasts_from_the_discard_instead_of_drawing():
    state = table(FLEETS, [[]], races=["kalgon", "tribot"], phase="discard",
                  discard=[BEAM, MAG, LASER, "spacedock-1"])
    state, _ = run(state, (A, {"type": "discard", "cards": []}))
    assert GAME.pending(state)[A].kinds == ("draw", "salvage_blasts")
    given_state(GAME, state).when({"type": "salvage_blasts", "cards": ["spacedock-1"]},
                                  A).rejected("not_in_discard")
    after, _ = run(state, (A, {"type": "salvage_blasts", "cards": [BEAM, MAG]}))
    assert after["hands"][A] == [BEAM, MAG] and after["uses"][A] == 2
    assert after["phase"] == "reinforce"
    drew, _ = run(state, (A, {"type": "draw"}))
    assert len(drew["hands"][A]) == 5 and drew["uses"][A] == 3


def test_kalgon_with_no_use_left_draws_as_usual():
    state = table(FLEETS, [[]], races=["kalgon", "tribot"], phase="discard", discard=[BEAM])
    state["uses"][A] = 0
    state, _ = run(state, (A, {"type": "discard", "cards": []}))
    assert state["phase"] == "reinforce" and len(state["hands"][A]) == 5


def test_the_glorp_take_half_squadron_damage_on_fleet_ships_only():
    fleets = [four(CARRIER, CRUISER, DREAD, SCOUT), {"n": [DESTROYER2], "e": [CRUISER2],
                                                      "s": [ZEUS], "w": []}]
    state = table(fleets, [["bomber-1", "fighter-1"]], races=["freep", "glorp"])
    state, _ = run(state, (A, {"type": "launch", "card": "bomber-1", "carrier": CARRIER,
                               "target": DESTROYER2}),
                   (A, {"type": "launch", "card": "fighter-1", "carrier": CARRIER,
                        "target": "glorp"}))
    assert state["temp"] == {DESTROYER2: 2, "glorp": 2}


def test_alpha_mazons_play_a_direct_hit_effect_without_a_direct_hit():
    card = plain("catastrophic_damage")
    state = table(FLEETS, [[BEAM, card]], races=["mazons", "tribot"])
    state, _ = run(state, (A, blast(BEAM, CRUISER, CRUISER2)))
    given_state(GAME, state).when({"type": "dh_effect", "card": card},
                                  A).rejected("no_direct_hit")
    state, _ = run(state, (A, {"type": "dh_effect", "card": card, "power": True}))
    assert CRUISER2 in state["fleet_discard"] and state["uses"][A] == 2
    assert GAME.view(state, B)["uses"] == [2, 3]  # the use counter is on the table


def test_freep_takes_three_random_cards_from_another_hand_in_the_maneuver():
    hand = [plain("laser_blast", n) for n in range(1, 5)]
    state = table(FLEETS, [[], hand], races=["freep", "tribot"], phase="maneuver")
    state, events = run(state, (A, {"type": "raid_hand", "seat": B}))
    assert len(state["hands"][A]) == 3 and len(state["hands"][B]) == 1
    assert state["uses"][A] == 2
    assert GAME.redact(events[-1], B).data["cards"] == events[-1].data["cards"]


def test_recyclons_draw_one_per_fleet_ship_destroyed_and_three_per_command_ship():
    b = {"n": [DINK], "e": [CRUISER2], "s": [ZEUS], "w": []}
    state = table([FLEETS[0], b, four("ship-06", "ship-07", "ship-08", "ship-09")],
                  [[LASER, plain("laser_blast", 2)]], races=["freep", "tribot", "recyclons"],
                  under={"tribot": [MAG, BEAM]})
    state, _ = run(state, (A, blast(LASER, DESTROYER, DINK)))
    assert len(state["hands"][C]) == 1
    state, _ = run(state, (A, blast(plain("laser_blast", 2), SCOUT, "tribot")))
    assert len(state["hands"][C]) == 4
    assert conserved(state)


def test_tri_bot_buys_any_ship_of_the_fleet_discard():
    state = table(FLEETS, [STAR], races=["tribot", "freep"], phase="reinforce",
                  fleet_discard=[CARRIER, DINK])
    state, _ = run(state, (A, {"type": "reinforce", "cards": STAR, "ship": CARRIER}))
    assert state["placing"]["ships"] == [CARRIER] and state["uses"][A] == 2
    given_state(GAME, table(FLEETS, [STAR], races=["freep", "tribot"], phase="reinforce",
                            fleet_discard=[CARRIER])).when(
        {"type": "reinforce", "cards": STAR, "ship": CARRIER}, A).rejected("no_power")


def test_mhee_yow_meex_draw_two_ships_and_keep_one():
    state = table(FLEETS, [STAR], races=["mhee", "freep"], phase="reinforce",
                  fleet_top=[CARRIER, DINK])
    state, _ = run(state, (A, {"type": "reinforce", "cards": STAR}),
                   (A, {"type": "place_ship", "ship": DINK, "zone": "e"}))
    assert state["zones"][A]["e"] == [CRUISER, DINK]
    assert state["fleet_discard"] == [CARRIER]


def test_bzzgzzrt_speed_one_ships_launch_and_speed_two_ships_sweep():
    state = table(FLEETS, [["fighter-1"], ["minefield-1"]], races=["bzzgzzrt", "freep"],
                  turn=B)
    state, _ = run(state, (B, {"type": "play_card", "card": "minefield-1", "seat": A}),
                   (B, {"type": "end_turn"}))
    state["phase"] = "attack"
    state, _ = run(state, (A, {"type": "sweep", "ship": SCOUT, "card": "minefield-1"}),
                   (A, {"type": "launch", "card": "fighter-1", "carrier": CRUISER,
                        "target": ZEUS}))
    assert state["temp"] == {ZEUS: 2}


def test_brotherhood_of_peace_moves_a_blast_onto_an_enemy_ship():
    state = table(FLEETS, [[]], races=["brotherhood", "freep"], phase="discard",
                  under={CRUISER: [BEAM, LASER], CRUISER2: [BEAM2]})
    after, _events = run(state, (A, {"type": "transfer_blast", "ship": CRUISER, "blast": BEAM,
                                    "target": CRUISER2}))
    assert after["under"][CRUISER] == [[LASER, 1]]
    assert CRUISER2 in after["fleet_discard"]  # 3 + 3 on a hull of 5
    assert after["uses"][A] == 2 and after["phase"] == "discard"
    given_state(GAME, state).when({"type": "transfer_blast", "ship": CRUISER, "blast": BEAM,
                                   "target": DREAD}, A).rejected("not_an_enemy_ship")


# --- variants -------------------------------------------------------------------------------

def _four_players(options):
    fleets = [four(DESTROYER, CRUISER, DREAD, SCOUT), four(DESTROYER2, CRUISER2, ZEUS, SCOUT2),
              four("ship-38", "ship-15", "ship-29", "ship-06"),
              four("ship-36", "ship-16", "ship-30", "ship-07")]
    return table(fleets, [[BEAM]], options=options)


def test_anti_massacre_attacks_only_the_left_or_right_neighbour():
    state = _four_players({"attack_mode": "neighbours"})
    given_state(GAME, state).when(blast(BEAM, CRUISER, "ship-15"), A).rejected("neighbours_only")
    given_state(GAME, state).when(blast(BEAM, CRUISER, "ship-16"), A).then_state()
    given_state(GAME, state).when(blast(BEAM, CRUISER, CRUISER2), A).then_state()
    state["alive"][D] = False
    state["fleet_deck"] += state["zones"][D]["n"] + state["zones"][D]["e"] + \
        state["zones"][D]["s"] + state["zones"][D]["w"]
    state["zones"][D] = {z: [] for z in ZONES}
    given_state(GAME, state).when(blast(BEAM, CRUISER, "ship-15"), A).then_state()


def test_free_for_all_attacks_anyone():
    given_state(GAME, _four_players({})).when(blast(BEAM, CRUISER, "ship-15"), A).then_state()


def test_no_mercy_is_offered_only_when_two_remain_and_the_option_is_on():
    assert "propose_no_mercy" not in GAME.pending(table(FLEETS, options={}))[A].kinds
    assert "propose_no_mercy" in GAME.pending(table(FLEETS, options={"no_mercy": True}))[A].kinds
    assert "propose_no_mercy" not in GAME.pending(_four_players({"no_mercy": True}))[A].kinds


def test_no_mercy_needs_both_and_restarts_with_the_lowest_standing_hull():
    state = table(FLEETS, [[BEAM]], options={"no_mercy": True}, under={"freep": [MAG]})
    state, _ = run(state, (A, {"type": "propose_no_mercy"}))
    assert GAME.pending(state)[B].kinds == ("accept_no_mercy", "refuse_no_mercy")
    assert GAME.default_command(state, B) == {"type": "refuse_no_mercy"}
    refused, _ = run(state, (B, {"type": "refuse_no_mercy"}))
    assert not refused["no_mercy"] and A in GAME.pending(refused)
    assert "propose_no_mercy" not in GAME.pending(refused)[A].kinds  # once a turn
    agreed, events = run(state, (B, {"type": "accept_no_mercy"}))
    # A: 4+5+9+3 + 8-5 = 24, B: 4+5+12+3 + 8 = 32
    assert events[0].data["hulls"] == {"0": 24, "1": 32} and events[0].data["first"] == A
    assert agreed["no_mercy"] and agreed["turn"] == A and agreed["phase"] == "discard"


def test_no_mercy_fires_one_blast_per_turret():
    state = table(FLEETS, [[BEAM, MAG, BEAM2]])
    state["no_mercy"] = True
    state["zones"][B]["s"] = [ZEUS]
    state, _ = run(state, (A, blast(BEAM, DREAD, ZEUS)), (A, blast(MAG, DREAD, ZEUS)))
    assert state["under"][ZEUS] == [[BEAM, 3], [MAG, 5]]
    given_state(GAME, state).when(blast(BEAM2, DREAD, ZEUS), A).rejected("already_fired")
