"""Mag Blast phase 5: Blasts, Squadrons, Direct Hits and their effects, the other action cards,
destruction, elimination and victory (KR 5단계 : 공격; magblast.md §4b, §5). Seat A attacks."""

from __future__ import annotations

from games.core import Rng
from games.magblast import GAME
from games.magblast.data import ZONES
from tests.games.dsl import ev, given_state
from tests.games.magblast_table import (
    CARRIER,
    CRUISER,
    CRUISER2,
    DESTROYER,
    DESTROYER2,
    DINK,
    DREAD,
    GUNSHIP,
    SCOUT,
    SCOUT2,
    SWEEPER,
    ZEUS,
    A,
    B,
    C,
    conserved,
    pass_idle_windows,
    plain,
    table,
    with_icons,
)

LASER, LASER2 = plain("laser_blast", 1), plain("laser_blast", 2)
BEAM, BEAM2, MAG = plain("beam_blast", 1), plain("beam_blast", 2), plain("mag_blast", 1)
FIGHTER, FIGHTER2 = "fighter-1", "fighter-2"
BOMBER = "bomber-1"
DH = plain("direct_hit")
A_RACE, B_RACE = "freep", "tribot"


def four(*ships):
    return dict(zip(ZONES, ships, strict=True))


def fleets(a=None, b=None):
    return [a or four(DESTROYER, CRUISER, DREAD, SCOUT), b or four(DESTROYER2, CRUISER2, ZEUS,
                                                                  SCOUT2)]


def blast(card, ship_, target, sound="pew"):
    return {"type": "blast", "card": card, "ship": ship_, "target": target, "sound": sound}


def launch(card, carrier, target):
    return {"type": "launch", "card": card, "carrier": carrier, "target": target}


def play(card, **args):
    return {"type": "play_card", "card": card, "ship": None, "blast": None, "target": None,
            "seat": None, **args}


def run(state, *moves):
    events = []
    for seat, command in moves:
        state, new = GAME.step(state, command, seat, Rng("test"))
        state, passes = pass_idle_windows(state)  # the seats asked with nothing to answer
        events += new + passes
    return state, events


# --- Blasts ---------------------------------------------------------------------------------

def test_a_blast_hits_the_same_coloured_zone_and_stays_under_the_target():
    state = table(fleets(), [[BEAM]])
    after = given_state(GAME, state).when(blast(BEAM, CRUISER, CRUISER2), A).then(
        ev("card_played", seat=A, card=BEAM, link={
            "action": "blast", "ship": CRUISER, "turret": "beam", "target": CRUISER2,
            "target_seat": B, "damage": 3, "silent": False, "sound": "pew"}),
        ev("damage_dealt", seat=A, card=BEAM, target=CRUISER2, damage=3, permanent=True),
        ev("direct_hit_ready", seat=A, ship=CRUISER, target=CRUISER2, stage="hit"),
        ev("chain_closed"))
    assert after["under"][CRUISER2] == [[BEAM, 3]]
    assert after["fired"] == {CRUISER: ["beam"]}
    assert conserved(after)


def test_a_blast_needs_a_matching_turret():
    given_state(GAME, table(fleets(), [[MAG]])).when(blast(MAG, CRUISER, CRUISER2),
                                                     A).rejected("no_matching_turret")


def test_a_blast_reaches_only_the_same_coloured_zone():
    given_state(GAME, table(fleets(), [[LASER]])).when(blast(LASER, DESTROYER, SCOUT2),
                                                       A).rejected("wrong_zone")


def test_a_ship_fires_one_blast_per_turn():
    state, _ = run(table(fleets(), [[LASER, BEAM]]), (A, blast(LASER, DESTROYER, DESTROYER2)))
    given_state(GAME, state).when(blast(BEAM, DESTROYER, DESTROYER2), A).rejected("already_fired")


def test_the_command_ship_is_covered_while_its_zone_holds_a_ship():
    given_state(GAME, table(fleets(), [[LASER]])).when(blast(LASER, DESTROYER, B_RACE),
                                                       A).rejected("command_ship_covered")


def test_the_command_ship_is_exposed_through_an_empty_zone():
    b = {"n": [], "e": [CRUISER2], "s": [ZEUS], "w": [SCOUT2]}
    after = given_state(GAME, table(fleets(b=b), [[LASER]])).when(
        blast(LASER, DESTROYER, B_RACE), A).then_state()
    assert after["under"][B_RACE] == [[LASER, 1]]


def test_a_ship_is_destroyed_when_its_damage_reaches_its_hull():
    a = four(DESTROYER, CRUISER, GUNSHIP, SCOUT)
    state = table(fleets(a=a), [[MAG]], under={ZEUS: [BEAM, BEAM2, plain("beam_blast", 3)]})
    after = given_state(GAME, state).when(blast(MAG, GUNSHIP, ZEUS), A).then_state()
    assert ZEUS not in after["zones"][B]["s"]
    assert after["fleet_discard"][-1] == ZEUS
    assert {BEAM, BEAM2, MAG} <= set(after["action_discard"])
    assert after["dh"] is None  # nothing left to Direct-Hit
    assert conserved(after)


def test_sound_effects_off_needs_no_sound():
    state = table(fleets(), [[LASER]], options={"sound_effects": "off"})
    given_state(GAME, state).when(blast(LASER, DESTROYER, DESTROYER2, ""), A).then_state()


def test_strict_sound_a_silent_blast_misses_at_once():
    state = table(fleets(), [[LASER]], options={"sound_effects": "strict"})
    after = given_state(GAME, state).when(blast(LASER, DESTROYER, DESTROYER2, "  "), A).then_state()
    assert after["under"] == {}
    assert LASER in after["action_discard"]
    assert after["fired"] == {DESTROYER: ["laser"]}  # the ship has fired all the same


def test_sound_on_a_silent_blast_waits_for_its_sound_or_misses():
    state = table(fleets(), [[LASER]])
    state, _ = run(state, (A, blast(LASER, DESTROYER, DESTROYER2, "")))
    assert GAME.pending(state)[A].kinds == ("make_sound", "stay_silent")
    heard, _ = run(state, (A, {"type": "make_sound", "sound": "bzzt"}))
    assert heard["under"][DESTROYER2] == [[LASER, 1]]
    missed, events = run(state, (A, {"type": "stay_silent"}))
    assert events == [ev("blast_missed", seat=A, card=LASER, reason="no_sound")]
    assert missed["under"] == {}
    given_state(GAME, state).when({"type": "make_sound", "sound": ""}, A).rejected("no_sound")


# --- Squadrons ------------------------------------------------------------------------------

def test_a_fighter_hits_any_zone_from_a_carrier_and_its_damage_is_temporary():
    a = four(CARRIER, CRUISER, DREAD, SCOUT)
    state, _ = run(table(fleets(a=a), [[FIGHTER]]), (A, launch(FIGHTER, CARRIER, ZEUS)))
    assert state["temp"] == {ZEUS: 2}
    assert state["returning"] == [[FIGHTER, A]]
    assert state["fired"] == {}  # launching is not the carrier's Blast
    state, _ = run(state, (A, {"type": "end_turn"}))
    assert state["temp"] == {} and FIGHTER in state["hands"][A]


def test_a_bomber_hits_only_its_carriers_zone():
    a = four(CARRIER, CRUISER, DREAD, SCOUT)
    given_state(GAME, table(fleets(a=a), [[BOMBER]])).when(launch(BOMBER, CARRIER, ZEUS),
                                                           A).rejected("wrong_zone")
    given_state(GAME, table(fleets(a=a), [[BOMBER]])).when(launch(BOMBER, CARRIER, DESTROYER2),
                                                           A).then_state()


def test_squadrons_need_a_carrier():
    given_state(GAME, table(fleets(), [[FIGHTER]])).when(launch(FIGHTER, CRUISER, ZEUS),
                                                         A).rejected("not_a_carrier")


def test_a_fighter_reaches_the_command_ship_when_any_zone_is_empty():
    a = four(CARRIER, CRUISER, DREAD, SCOUT)
    b = {"n": [DESTROYER2], "e": [CRUISER2], "s": [ZEUS], "w": []}
    state = table(fleets(a=a, b=b), [[FIGHTER, BOMBER]])
    given_state(GAME, state).when(launch(FIGHTER, CARRIER, B_RACE), A).then_state()
    given_state(GAME, state).when(launch(BOMBER, CARRIER, B_RACE),
                                  A).rejected("command_ship_covered")


def test_squadron_damage_adds_to_blasts_and_can_destroy_this_turn():
    a = four(CARRIER, CRUISER, DREAD, SCOUT)
    state = table(fleets(a=a), [[BEAM, BOMBER]])
    state, _ = run(state, (A, blast(BEAM, CRUISER, CRUISER2)), (A, launch(BOMBER, CARRIER,
                                                                           DESTROYER2)))
    assert DESTROYER2 not in state["zones"][B]["n"]  # 4 damage on a hull of 4
    state, _ = run(state, (A, {"type": "end_turn"}))
    assert BOMBER in state["hands"][A]
    assert conserved(state)


def test_many_squadrons_may_launch_from_one_carrier():
    a = four(CARRIER, CRUISER, DREAD, SCOUT)
    state, _ = run(table(fleets(a=a), [[FIGHTER, FIGHTER2]]), (A, launch(FIGHTER, CARRIER, ZEUS)),
                   (A, launch(FIGHTER2, CARRIER, ZEUS)))
    assert state["temp"] == {ZEUS: 4}


# --- Direct Hit -----------------------------------------------------------------------------

def test_a_direct_hit_follows_a_hit_at_once_and_opens_an_effect_or_extra_blast():
    state, _ = run(table(fleets(), [[BEAM, DH]]), (A, blast(BEAM, CRUISER, CRUISER2)))
    state, _events = run(state, (A, {"type": "direct_hit", "card": DH}))
    assert state["dh"] == {"ship": CRUISER, "target": CRUISER2, "stage": "effect"}


def test_no_direct_hit_without_a_blast_that_hit():
    given_state(GAME, table(fleets(), [[DH]])).when({"type": "direct_hit", "card": DH},
                                                    A).rejected("no_blast_hit")


def test_any_other_command_forfeits_the_direct_hit():
    state, _ = run(table(fleets(), [[BEAM, LASER, DH]]), (A, blast(BEAM, CRUISER, CRUISER2)),
                   (A, blast(LASER, DESTROYER, DESTROYER2)))
    assert state["dh"]["ship"] == DESTROYER  # the new hit opens its own Direct Hit
    state, _ = run(table(fleets(), [[BEAM, DH, "strategic_allocation-1"]]),
                   (A, blast(BEAM, CRUISER, CRUISER2)), (A, play("strategic_allocation-1")))
    given_state(GAME, state).when({"type": "direct_hit", "card": DH}, A).rejected("no_blast_hit")


def test_the_extra_blast_of_a_direct_hit_fires_again_at_the_same_target_with_a_matching_turret():
    state, _ = run(table(fleets(), [[BEAM, BEAM2, MAG, DH]]), (A, blast(BEAM, CRUISER, CRUISER2)),
                   (A, {"type": "direct_hit", "card": DH}))
    given_state(GAME, state).when(blast(MAG, CRUISER, CRUISER2), A).rejected("no_matching_turret")
    given_state(GAME, state).when(blast(BEAM2, CRUISER, "ship-20"), A).rejected("same_target_only")
    after = given_state(GAME, state).when(blast(BEAM2, CRUISER, CRUISER2), A).then_state()
    assert CRUISER2 in after["fleet_discard"]  # 3 + 3 on a hull of 5


def _after_direct_hit(target_zone_ships, hand, a=None, b=None):
    state = table(fleets(a=a, b=b), [[BEAM, DH, *hand]])
    return run(state, (A, blast(BEAM, CRUISER, CRUISER2)),
               (A, {"type": "direct_hit", "card": DH}))[0]


def effect(card, **args):
    return {"type": "dh_effect", "card": card, "zone": None, "moves": None, "power": False,
            **args}


def test_catastrophic_damage_destroys_the_target():
    card = plain("catastrophic_damage")
    state = _after_direct_hit([], [card])
    after, events = run(state, (A, effect(card)))
    assert CRUISER2 in after["fleet_discard"]
    assert any(e.type == "ship_destroyed" and e.data["reason"] == "catastrophic_damage"
               for e in events)


def test_catastrophic_damage_on_a_command_ship_eliminates_its_player():
    card = plain("catastrophic_damage")
    b = {"n": [DESTROYER2], "e": [], "s": [ZEUS], "w": [SCOUT2]}
    state = table(fleets(b=b), [[BEAM, DH, card]])
    state, _ = run(state, (A, blast(BEAM, CRUISER, B_RACE)), (A, {"type": "direct_hit",
                                                                  "card": DH}))
    after, _events = run(state, (A, effect(card)))
    assert after["alive"] == [True, False]
    assert after["result"]["winners"] == [A]
    assert conserved(after)


def test_boarding_party_captures_the_target_with_its_damage():
    card = plain("boarding_party")
    state = _after_direct_hit([], [card])
    given_state(GAME, state).when(effect(card), A).rejected("zone_required")
    after, _ = run(state, (A, effect(card, zone="w")))
    assert after["zones"][A]["w"] == [SCOUT, CRUISER2]
    assert after["under"][CRUISER2] == [[BEAM, 3]]


def test_concussive_blast_scatters_the_targets_zone_three_per_zone_at_most():
    card = plain("concussive_blast")
    b = {"n": [DESTROYER2], "e": [CRUISER2, DINK], "s": [ZEUS], "w": [SCOUT2]}
    state = _after_direct_hit([], [card], b=b)
    given_state(GAME, state).when(effect(card, moves={CRUISER2: "n"}), A).rejected("bad_moves")
    after, _ = run(state, (A, effect(card, moves={CRUISER2: "n", DINK: "w"})))
    assert after["zones"][B] == {"n": [DESTROYER2, CRUISER2], "e": [], "s": [ZEUS],
                                 "w": [SCOUT2, DINK]}


def test_bridge_hit_takes_up_to_three_random_cards_from_the_targets_owner():
    card = with_icons("bridge_hit", "star", "star")
    state = _after_direct_hit([], [card])
    state["hands"][B] = [LASER2, plain("laser_blast", 3), plain("laser_blast", 4),
                         plain("laser_blast", 5)]
    for c in state["hands"][B]:
        state["action_deck"].remove(c)
    after, events = run(state, (A, effect(card)))
    raid = next(e for e in events if e.type == "hand_raided")
    assert len(raid.data["cards"]) == 3 and len(after["hands"][B]) == 1
    assert GAME.redact(raid, C).data["cards"] == []


# --- the other action cards -----------------------------------------------------------------

def test_reinforcements_draw_a_free_fleet_ship():
    state = table(fleets(), [["reinforcements-1"]], fleet_top=[CARRIER])
    state, _ = run(state, (A, play("reinforcements-1")))
    assert state["placing"] == {"seat": A, "ships": [CARRIER], "then": "attack"}
    state, _ = run(state, (A, {"type": "place_ship", "ship": CARRIER, "zone": "n"}))
    assert state["zones"][A]["n"] == [DESTROYER, CARRIER] and state["phase"] == "attack"


def test_strategic_allocation_draws_three():
    state, _ = run(table(fleets(), [["strategic_allocation-1"]]), (A, play(
        "strategic_allocation-1")))
    assert len(state["hands"][A]) == 3


def test_spacedock_removes_the_damage_card_the_player_chooses():
    state = table(fleets(), [["spacedock-1"]], under={DREAD: [LASER, MAG]})
    after, _ = run(state, (A, play("spacedock-1", ship=DREAD, blast=LASER)))
    assert after["under"][DREAD] == [[MAG, 5]] and LASER in after["action_discard"]


def test_ramming_speed_sacrifices_the_rammer_and_deals_its_speed():
    state = table(fleets(), [["ramming_speed-1"]])
    after, _events = run(state, (A, play("ramming_speed-1", ship=SCOUT, target=SCOUT2)))
    assert SCOUT in after["fleet_discard"]
    assert after["under"][SCOUT2] == [["ramming_speed-1", 2]]
    assert after["dh"] is None  # no Direct Hit after a ram
    assert conserved(after)


def test_asteroids_shield_a_fleet_until_the_start_of_the_players_next_turn():
    state = table([*fleets(), four("ship-06", "ship-07", "ship-08", "ship-09")],
                  [["asteroids-1"], [], [LASER]])
    state, _ = run(state, (A, play("asteroids-1", seat=B)), (A, {"type": "end_turn"}))
    state = {**state, "turn": C, "phase": "attack"}
    given_state(GAME, state).when(blast(LASER, "ship-06", DESTROYER2), C).rejected("asteroids")
    # A's next turn starts: the Asteroids are discarded.
    state, events = run(state, (C, {"type": "end_turn"}))
    assert events[1] == ev("effect_expired", card="asteroids-1", fleet=B)


def test_a_minefield_stops_firing_launching_and_maneuvering():
    a = four(CARRIER, CRUISER, DREAD, SCOUT)
    state = table(fleets(a=a), [[], ["minefield-1"]], turn=B)
    state, _ = run(state, (B, play("minefield-1", seat=A)), (B, {"type": "end_turn"}))
    state["hands"][A] = [LASER, FIGHTER]
    for c in (LASER, FIGHTER):
        state["action_deck"].remove(c)
    state["phase"] = "attack"
    given_state(GAME, state).when(blast(LASER, CARRIER, DESTROYER2), A).rejected("minefield")
    given_state(GAME, state).when(launch(FIGHTER, CARRIER, ZEUS), A).rejected("minefield")
    state["phase"] = "maneuver"
    given_state(GAME, state).when({"type": "move", "ship": SCOUT, "zone": "n"},
                                  A).rejected("minefield")


def test_a_minesweeper_sweeps_instead_of_firing():
    a = four(SWEEPER, CRUISER, DREAD, SCOUT)
    state = table(fleets(a=a), [[], ["minefield-1"]], turn=B)
    state, _ = run(state, (B, play("minefield-1", seat=A)), (B, {"type": "end_turn"}))
    state["phase"] = "attack"
    after, _ = run(state, (A, {"type": "sweep", "ship": SWEEPER, "card": "minefield-1"}))
    assert after["effects"] == [] and after["fired"][SWEEPER] == ["laser"]
    given_state(GAME, after).when({"type": "sweep", "ship": SWEEPER, "card": "minefield-1"},
                                  A).rejected("already_fired")


# --- elimination and victory ----------------------------------------------------------------

def test_an_eliminated_player_discards_every_card_and_the_last_command_ship_wins():
    b = {"n": [DESTROYER2], "e": [CRUISER2], "s": [ZEUS], "w": []}
    c = four("ship-06", "ship-07", "ship-08", "ship-09")
    state = table([fleets()[0], b, c], [[LASER], [BEAM2, "asteroids-1"]],
                  under={B_RACE: [MAG, plain("beam_blast", 3)]})
    after, events = run(state, (A, blast(LASER, SCOUT, B_RACE)))
    out = next(e for e in events if e.type == "player_eliminated")
    assert out.data["hand"] == [BEAM2, "asteroids-1"]
    assert out.data["ships"] == [DESTROYER2, CRUISER2, ZEUS]
    assert after["alive"] == [True, False, True] and after["hands"][B] == []
    assert {DESTROYER2, CRUISER2, ZEUS} <= set(after["fleet_discard"])
    assert after["result"] is None
    assert conserved(after)


def test_boarding_party_needs_room_in_the_boarders_fleet():
    card = plain("boarding_party")
    full = {z: [s] for z, s in zip(ZONES, ["ship-20", "ship-21", "ship-22", "ship-23"],
                                    strict=True)}
    full["e"] = [CRUISER, "ship-24", "ship-25"]
    for z, extra in (("n", ["ship-26", "ship-27"]), ("s", ["ship-28", "ship-29"]),
                     ("w", ["ship-30", "ship-31"])):
        full[z] += extra
    state = table(fleets(a=full), [[BEAM, DH, card]])
    state, _ = run(state, (A, blast(BEAM, CRUISER, CRUISER2)), (A, {"type": "direct_hit",
                                                                    "card": DH}))
    given_state(GAME, state).when(effect(card, zone="n"), A).rejected("zone_full")


def test_boarding_and_concussive_work_on_fleet_ships_only():
    b = {"n": [DESTROYER2], "e": [], "s": [ZEUS], "w": [SCOUT2]}
    cards = [plain("boarding_party"), plain("concussive_blast")]
    state = table(fleets(b=b), [[BEAM, DH, *cards]])
    state, _ = run(state, (A, blast(BEAM, CRUISER, B_RACE)), (A, {"type": "direct_hit",
                                                                  "card": DH}))
    given_state(GAME, state).when(effect(cards[0], zone="n"), A).rejected("not_a_fleet_ship")
    given_state(GAME, state).when(effect(cards[1], moves={}), A).rejected("not_a_fleet_ship")


def test_the_command_ship_never_moves():
    state = table(fleets(), [[]], phase="maneuver")
    given_state(GAME, state).when({"type": "move", "ship": A_RACE, "zone": "n"},
                                  A).rejected("not_your_ship")


def test_the_extra_blast_may_open_a_new_direct_hit():
    state, _ = run(table(fleets(), [[BEAM, BEAM2, DH, plain("direct_hit", 2)]]),
                   (A, blast(BEAM, DREAD, ZEUS)), (A, {"type": "direct_hit", "card": DH}),
                   (A, blast(BEAM2, DREAD, ZEUS)))
    assert state["dh"] == {"ship": DREAD, "target": ZEUS, "stage": "hit"}


def test_a_cancelled_or_missed_attack_still_turns_the_ship():
    state = table(fleets(), [[LASER, BEAM]], options={"sound_effects": "strict"})
    state, _ = run(state, (A, blast(LASER, DESTROYER, DESTROYER2, "")))
    given_state(GAME, state).when(blast(BEAM, DESTROYER, DESTROYER2), A).rejected("already_fired")


def test_explain_names_the_checks_a_blast_passed():
    b = {"n": [], "e": [CRUISER2], "s": [ZEUS], "w": [SCOUT2]}
    lines = GAME.explain(table(fleets(b=b), [[LASER]]), blast(LASER, DESTROYER, B_RACE), A)
    text = "\n".join(lines)
    assert "Turret match" in text and "Target exposed" in text and "Sound effect" in text
    refused = GAME.explain(table(fleets(), [[MAG]]), blast(MAG, CRUISER, CRUISER2), A)
    assert refused[-1].startswith("Rejected (no_matching_turret)")


def test_a_spacedock_repairs_only_your_own_fleet():
    state = table(fleets(), [["spacedock-1"]], under={CRUISER2: [LASER]})
    given_state(GAME, state).when(play("spacedock-1", ship=CRUISER2, blast=LASER),
                                  A).rejected("not_your_ship")


def test_a_card_played_with_another_cards_field_is_refused_naming_the_field():
    """Issue 23 item 12: a play_card or dh_effect carries only the fields its card uses."""
    state = table(fleets(), [["asteroids-1"]])
    stray = given_state(GAME, state).when(play("asteroids-1", seat=B, target=SCOUT2),
                                          A).rejected("invalid_command")
    assert stray.details == {"fields": {"target": ["Not a field of asteroids-1."]}}
    state = table(fleets(), [["reinforcements-1"]])
    given_state(GAME, state).when(play("reinforcements-1", ship=SCOUT), A).rejected(
        "invalid_command")
    card = plain("catastrophic_damage")
    after_hit = _after_direct_hit([], [card])
    refused = given_state(GAME, after_hit).when(effect(card, zone="w"), A).rejected(
        "invalid_command")
    assert list(refused.details["fields"]) == ["zone"]


def test_explain_of_a_card_with_a_stray_target_says_it_was_refused():
    state = table(fleets(), [["asteroids-1"]])
    lines = GAME.explain(state, play("asteroids-1", seat=B, target=SCOUT2), A)
    assert lines[-1].startswith("Rejected (invalid_command)")
