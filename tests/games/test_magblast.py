"""Mag Blast: components, setup and phases 1-4 (shared/rules/magblast.md; KR = the rulebook
shared/seeds/000_52943d94162eb49a.txt). Seats A=0, B=1, C=2, D=3; tables are scripted."""

from __future__ import annotations

from collections import Counter

from games.core import SPECTATOR, Rng
from games.magblast import GAME
from games.magblast.data import ACTIONS, COMMAND_SHIPS, KINDS, SHIPS, ZONES, kind
from tests.games.dsl import ev, given, given_state
from tests.games.magblast_table import (
    CARRIER,
    CRUISER,
    CRUISER2,
    DESTROYER,
    DINK,
    DREAD,
    SCOUT,
    SCOUT2,
    SWEEPER,
    ZEUS,
    A,
    B,
    C,
    conserved,
    plain,
    table,
    with_icons,
)


def four(*ships):
    return dict(zip(ZONES, ships, strict=True))


# --- components -----------------------------------------------------------------------------

def test_the_components_are_the_spec_counts():
    assert len(COMMAND_SHIPS) == 10
    assert sorted(r for r, c in COMMAND_SHIPS.items() if c.uses == 3) == [
        "brotherhood", "freep", "kalgon", "mazons", "tribot"]
    assert len(SHIPS) == 54
    assert Counter(s.cls for s in SHIPS.values()) == {
        "scout": 12, "cruiser": 12, "destroyer": 10, "carrier": 8, "dreadnought": 6,
        "minesweeper": 3, "gunship": 3}
    assert len(ACTIONS) == 101
    counts = Counter(kind(c) for c in ACTIONS)
    assert {k: counts[k] for k in ("laser_blast", "beam_blast", "mag_blast", "fighter", "bomber",
                                   "direct_hit")} == {
        "laser_blast": 18, "beam_blast": 22, "mag_blast": 10, "fighter": 9, "bomber": 4,
        "direct_hit": 8}
    icons = Counter(i for a in ACTIONS.values() for i in a.icons)
    assert icons == {"star": 16, "circle": 17, "diamond": 15}
    assert sum(1 for a in ACTIONS.values() if a.icons) == 42
    assert [KINDS[k]["damage"] for k in ("laser_blast", "beam_blast", "mag_blast")] == [1, 3, 5]
    assert (SHIPS[ZEUS].hull, SHIPS[ZEUS].speed, SHIPS[ZEUS].turrets) == (12, 0, ("beam", "mag"))


# --- setup ----------------------------------------------------------------------------------

def _dealt(seats=2, deal=None):
    options = GAME.load_options({"deal": deal} if deal else {})
    return GAME.fold(GAME.setup(seats, options, Rng("deal")))


def test_setup_deals_six_ships_and_five_cards_and_every_seat_chooses_at_once():
    state = _dealt(3)
    assert [len(d) for d in state["dealt"]] == [6, 6, 6]
    assert [len(h) for h in state["hands"]] == [5, 5, 5]
    assert set(GAME.pending(state)) == {0, 1, 2}
    assert all(p.kinds == ("place_fleet",) for p in GAME.pending(state).values())
    assert conserved(state)


def test_placements_stay_secret_until_everyone_has_placed():
    state = _dealt(2)
    zones = four(*state["dealt"][A][:4])
    state = given_state(GAME, state).when({"type": "place_fleet", "zones": zones}, A).then(
        ev("fleet_placed", seat=A, zones=zones))
    assert set(GAME.pending(state)) == {B}
    other = GAME.view(state, B)
    assert not any(s in str(other) for s in state["dealt"][A])
    assert GAME.redact(ev("fleet_placed", seat=A, zones=zones), B).data["zones"] is None
    assert GAME.secrets(state, SPECTATOR) >= set(state["dealt"][A])


def test_reveal_discards_the_two_unchosen_and_the_lowest_fleet_hull_starts():
    deal = {"fleets": [[ZEUS, DREAD, CRUISER, CRUISER2, SCOUT, SCOUT2],
                       ["ship-02", "ship-03", "ship-06", "ship-07", "ship-08", "ship-09"]]}
    state = _dealt(2, deal)
    state, _ = GAME.step(state, {"type": "place_fleet", "zones": four(ZEUS, DREAD, CRUISER,
                                                                      CRUISER2)}, A, Rng("x"))
    scouts = four("ship-02", "ship-03", "ship-06", "ship-07")
    events = given_state(GAME, state).when({"type": "place_fleet", "zones": scouts}, B).events
    revealed = next(e for e in events if e.type == "fleets_revealed")
    assert revealed.data["discarded"] == [[SCOUT, SCOUT2], ["ship-08", "ship-09"]]
    started = events[-1]
    assert started.type == "turn_started"
    assert started.data["seat"] == B  # 2+2+3+3 = 10 is lower than 9+12+5+5
    assert started.data["phase"] == "reinforce"  # KR 참고: no discard or draw on a first turn


def test_a_first_player_tie_is_broken_at_random():
    deal = {"fleets": [["ship-04", "ship-05", "ship-06", "ship-07", "ship-08", "ship-09"],
                       ["ship-02", "ship-03", "ship-11", "ship-12", "ship-34", "ship-35"]]}
    state = _dealt(2, deal)
    state, _ = GAME.step(state, {"type": "place_fleet", "zones": four(
        "ship-04", "ship-05", "ship-06", "ship-07")}, A, Rng("x"))
    firsts = set()
    for n in range(12):
        events = given_state(GAME, state).when({"type": "place_fleet", "zones": four(
            "ship-02", "ship-03", "ship-11", "ship-12")}, B, Rng(f"tie-{n}")).events
        assert events[-1].data["tied"] == [A, B]  # 3+3+3+3 and 2+2+4+4
        firsts.add(events[-1].data["seat"])
    assert firsts == {A, B}


def test_a_placement_must_use_four_dealt_ships_one_per_zone():
    state = _dealt(2)
    given_state(GAME, state).when({"type": "place_fleet", "zones": {
        "n": state["dealt"][A][0], "e": state["dealt"][A][1]}}, A).rejected("one_per_zone")
    given_state(GAME, state).when({"type": "place_fleet", "zones": four(
        *state["dealt"][B][:4])}, A).rejected("not_dealt")


# --- phases 1 and 2 -------------------------------------------------------------------------

def test_discard_any_number_then_draw_up_to_five():
    hand = [plain("laser_blast", i) for i in range(1, 6)]
    state = table([four(SCOUT, CRUISER, DREAD, DESTROYER), four(DINK, SCOUT2, ZEUS, CRUISER2)],
                  [hand], phase="discard", action_top=["beam_blast-1", "beam_blast-2"])
    after = given_state(GAME, state).when({"type": "discard", "cards": hand[:2]}, A).then(
        ev("cards_discarded", seat=A, cards=hand[:2], reason="discard_phase"),
        ev("cards_drawn", seat=A, cards=["beam_blast-1", "beam_blast-2"], reason="draw_phase"),
        ev("phase_started", seat=A, phase="reinforce"))
    assert len(after["hands"][A]) == 5


def test_no_draw_with_five_or_more_cards_and_no_hand_limit():
    hand = [plain("laser_blast", i) for i in range(1, 8)]
    state = table([four(SCOUT, CRUISER, DREAD, DESTROYER), four(DINK, SCOUT2, ZEUS, CRUISER2)],
                  [hand], phase="discard")
    given_state(GAME, state).when({"type": "discard", "cards": []}, A).then(
        ev("phase_started", seat=A, phase="reinforce"))


def test_an_empty_action_deck_is_the_discard_pile_reshuffled():
    state = table([four(SCOUT, CRUISER, DREAD, DESTROYER), four(DINK, SCOUT2, ZEUS, CRUISER2)],
                  [[]], phase="discard")
    pile = list(state["action_deck"])
    state["action_deck"], state["action_discard"] = pile[:2], pile[2:]
    events = given_state(GAME, state).when({"type": "discard", "cards": []}, A).events
    assert [e.type for e in events] == ["cards_drawn", "action_deck_reshuffled", "cards_drawn",
                                        "phase_started"]
    assert sorted(events[1].data["deck"]) == sorted(pile[2:])
    assert len(events[2].data["cards"]) == 3


# --- phase 3: reinforce ---------------------------------------------------------------------

STAR = [with_icons("laser_blast", "star"), with_icons("beam_blast", "star"),
        with_icons("mag_blast", "star")]
ONE_EACH = [with_icons("laser_blast", "star"), with_icons("laser_blast", "circle"),
            with_icons("laser_blast", "diamond")]


def _reinforce_table(hand, zones=None, **kw):
    return table([zones or four(SCOUT, CRUISER, DREAD, DESTROYER),
                  four("ship-08", "ship-09", ZEUS, CRUISER2)], [hand], phase="reinforce", **kw)


def test_three_alike_buy_the_top_fleet_ship_placed_in_any_zone_after_seeing_it():
    state = _reinforce_table(STAR, fleet_top=[CARRIER])
    state = given_state(GAME, state).when({"type": "reinforce", "cards": STAR}, A).then(
        ev("reinforcement_paid", seat=A, cards=STAR),
        ev("fleet_drawn", seat=A, ships=[CARRIER], source="deck", then="reinforce"))
    assert GAME.pending(state)[A].kinds == ("place_ship",)
    after = given_state(GAME, state).when({"type": "place_ship", "ship": CARRIER, "zone": "s"},
                                          A).then(
        ev("ship_placed", seat=A, ship=CARRIER, zone="s", discarded=[]))
    assert after["zones"][A]["s"] == [DREAD, CARRIER]
    assert after["phase"] == "reinforce"


def test_one_of_each_resource_pays_and_a_two_icon_card_counts_twice():
    given_state(GAME, _reinforce_table(ONE_EACH)).when(
        {"type": "reinforce", "cards": ONE_EACH}, A).then_state()
    two = [with_icons("bridge_hit", "star", "star"), with_icons("laser_blast", "star")]
    given_state(GAME, _reinforce_table(two)).when({"type": "reinforce", "cards": two},
                                                  A).then_state()


def test_a_payment_short_of_the_cost_or_with_a_spare_card_is_refused():
    given_state(GAME, _reinforce_table(STAR[:2])).when(
        {"type": "reinforce", "cards": STAR[:2]}, A).rejected("cannot_pay")
    spare = [*ONE_EACH, with_icons("beam_blast", "star")]
    given_state(GAME, _reinforce_table(spare)).when(
        {"type": "reinforce", "cards": spare}, A).rejected("overpaid")


def test_a_zone_holds_at_most_three_ships():
    zones = {"n": [SCOUT, SCOUT2, DINK], "e": [CRUISER], "s": [DREAD], "w": [DESTROYER]}
    state = _reinforce_table(STAR, zones=zones, fleet_top=[CARRIER])
    state, _ = GAME.step(state, {"type": "reinforce", "cards": STAR}, A, Rng("x"))
    given_state(GAME, state).when({"type": "place_ship", "ship": CARRIER, "zone": "n"},
                                  A).rejected("zone_full")


def test_a_full_fleet_cannot_reinforce():
    ids = [s for s in SHIPS if s not in ("ship-08", "ship-09", ZEUS, CRUISER2)][:12]
    zones = {z: ids[i * 3:i * 3 + 3] for i, z in enumerate(ZONES)}
    given_state(GAME, _reinforce_table(STAR, zones=zones)).when(
        {"type": "reinforce", "cards": STAR}, A).rejected("fleet_full")


def test_an_empty_fleet_deck_is_its_discard_pile_reshuffled():
    state = _reinforce_table(STAR)
    state["fleet_discard"], state["fleet_deck"] = state["fleet_deck"], []
    events = given_state(GAME, state).when({"type": "reinforce", "cards": STAR}, A).events
    assert [e.type for e in events] == ["reinforcement_paid", "fleet_deck_reshuffled",
                                        "fleet_drawn"]


# --- phase 4: maneuver ----------------------------------------------------------------------

def _maneuver(zones):
    return table([zones, four(DINK, SCOUT2, ZEUS, CRUISER2)], [[]], phase="maneuver")


def test_a_ship_moves_as_many_steps_as_its_speed():
    state = _maneuver(four(SCOUT, CRUISER, DREAD, DESTROYER))  # n e s w
    given_state(GAME, state).when({"type": "move", "ship": SCOUT, "zone": "s"}, A).then(
        ev("ship_moved", seat=A, ship=SCOUT, zone="s", origin="n"))  # speed 2: opposite
    given_state(GAME, state).when({"type": "move", "ship": CRUISER, "zone": "s"}, A).then_state()
    given_state(GAME, state).when({"type": "move", "ship": CRUISER, "zone": "w"},
                                  A).rejected("too_far")  # e to w is opposite
    given_state(GAME, state).when({"type": "move", "ship": DREAD, "zone": "e"},
                                  A).rejected("too_far")  # speed 0


def test_a_zone_may_pass_three_ships_during_the_maneuver_but_not_when_it_ends():
    zones = {"n": [SCOUT, SCOUT2, DINK], "e": [CRUISER], "s": [DREAD], "w": [DESTROYER]}
    state = table([zones, four("ship-08", "ship-09", ZEUS, CRUISER2)], [[]], phase="maneuver")
    state, _ = GAME.step(state, {"type": "move", "ship": CRUISER, "zone": "n"}, A, Rng("x"))
    assert len(state["zones"][A]["n"]) == 4
    given_state(GAME, state).when({"type": "end_phase"}, A).rejected("zone_over_limit")
    assert GAME.default_command(state, A) == {"type": "move", "ship": CRUISER, "zone": "e"}
    state, _ = GAME.step(state, {"type": "move", "ship": SCOUT, "zone": "s"}, A, Rng("x"))
    given_state(GAME, state).when({"type": "end_phase"}, A).then(
        ev("phase_started", seat=A, phase="attack"))


def _maneuver_with_four_in_one_zone():
    zones = {"n": [SCOUT, SCOUT2, DINK], "e": [CRUISER], "s": [DREAD], "w": [DESTROYER]}
    state = table([zones, four("ship-08", "ship-09", ZEUS, CRUISER2)], [[]], phase="maneuver",
                  options={"no_mercy": True})
    state, _ = GAME.step(state, {"type": "move", "ship": CRUISER, "zone": "n"}, A, Rng("x"))
    return state


def test_no_mercy_is_not_proposed_while_a_zone_is_over_three_ships():
    """Issue 24 point 10, KR: "이동이 다 끝난 뒤에는 전투함이 한 구역당 3척까지만 놓여 있어야
    해요" (once the moves are done, a zone holds 3 ships at most): agreeing to No Mercy ends the
    turn, so it may not be proposed in the middle of a maneuver with a 4-ship zone."""
    state = _maneuver_with_four_in_one_zone()
    assert "propose_no_mercy" not in GAME.pending(state)[A].kinds
    assert {"type": "propose_no_mercy"} not in GAME.legal_commands(state, A)
    given_state(GAME, state).when({"type": "propose_no_mercy"}, A).rejected("command_not_allowed")
    fixed, _ = GAME.step(state, {"type": "move", "ship": CRUISER, "zone": "e"}, A, Rng("x"))
    assert "propose_no_mercy" in GAME.pending(fixed)[A].kinds


def test_no_mercy_is_not_accepted_while_the_current_players_zone_is_over_three_ships():
    """Issue 24 point 10 (an older log may hold such a proposal): accepting would end the turn
    with a 4-ship zone, so only refusing is offered."""
    state = _maneuver_with_four_in_one_zone()
    state["proposal"] = {"by": A, "refused": False}
    assert GAME.legal_commands(state, B) == [{"type": "refuse_no_mercy"}]
    given_state(GAME, state).when({"type": "accept_no_mercy"}, B).rejected("zone_over_limit")


def test_rulebook_example_soyeon_focuses_on_yunkyungs_red_zone():
    """KR 4단계 example: Soyeon moves her scout (2) from yellow to red beside her dreadnought
    (3), then her destroyer (5) from blue to yellow; blue is left empty, so her command ship is
    exposed through it."""
    soyeon = four(SCOUT, CRUISER, DREAD, DESTROYER)  # yellow n, green e, red s, blue w
    yunkyung = {"n": [CRUISER2], "e": [DINK], "s": [ZEUS], "w": [SWEEPER]}
    state = table([soyeon, yunkyung], [[]], phase="maneuver")
    state, _ = GAME.step(state, {"type": "move", "ship": SCOUT, "zone": "s"}, A, Rng("x"))
    assert state["zones"][A]["s"] == [DREAD, SCOUT]
    state, _ = GAME.step(state, {"type": "move", "ship": DESTROYER, "zone": "n"}, A, Rng("x"))
    state, _ = GAME.step(state, {"type": "end_phase"}, A, Rng("x"))
    assert state["zones"][A] == {"n": [DESTROYER], "e": [CRUISER], "s": [DREAD, SCOUT], "w": []}
    # Yunkyung's minesweeper in blue can now reach Soyeon's command ship.
    state.update(turn=B, phase="attack")
    state["hands"][B] = [plain("laser_blast")]
    given_state(GAME, state).when({"type": "blast", "card": plain("laser_blast"),
                                   "ship": SWEEPER, "target": "freep", "sound": "pew"},
                                  B).then_state()


def test_the_turn_passes_to_the_next_living_player_and_starts_with_the_discard_phase():
    state = table([four(SCOUT, CRUISER, DREAD, DESTROYER), four(DINK, SCOUT2, ZEUS, CRUISER2),
                   four("ship-06", "ship-07", "ship-08", "ship-09")])
    state["alive"][B] = False
    state["zones"][B] = {z: [] for z in ZONES}
    state["fleet_deck"] += [DINK, SCOUT2, ZEUS, CRUISER2]
    events = given_state(GAME, state).when({"type": "end_turn"}, A).events
    assert events[-1] == ev("turn_started", seat=C, turn=2, phase="discard")


def test_every_setup_and_phase_step_keeps_all_cards_accounted_for():
    state = table([four(SCOUT, CRUISER, DREAD, DESTROYER), four(DINK, SCOUT2, ZEUS, CRUISER2)],
                  [STAR], phase="reinforce")
    assert conserved(state)
    state, _ = GAME.step(state, {"type": "reinforce", "cards": STAR}, A, Rng("x"))
    assert conserved(state)


def test_given_helper_folds_a_real_opening():
    events = GAME.setup(2, GAME.load_options({}), Rng("o"))
    assert given(GAME, *events).state["phase"] == "setup"


def test_a_player_may_reinforce_again_while_they_can_pay():
    again = [with_icons("laser_blast", "circle"), with_icons("laser_blast", "diamond"),
             with_icons("fighter", "star")]
    state = _reinforce_table(STAR + again, fleet_top=[CARRIER, "ship-02"])
    state, _ = GAME.step(state, {"type": "reinforce", "cards": STAR}, A, Rng("x"))
    state, _ = GAME.step(state, {"type": "place_ship", "ship": CARRIER, "zone": "e"}, A, Rng("x"))
    state, _ = GAME.step(state, {"type": "reinforce", "cards": again}, A, Rng("x"))
    assert state["placing"]["ships"] == ["ship-02"] and conserved(state)
