"""War of the Ring action dice, movement, mustering, politics, capture and victory
(wotr.md §2, §3, §8, §9, §10, §13.1; the seed text's army action and movement limits)."""

from __future__ import annotations

import pytest

from games.core import Rejected, Rng
from games.wotr import GAME
from games.wotr.data import FACES, FP, SH
from games.wotr.engine import neighbours, vp
from games.wotr.model import figures_total
from games.wotr.seats import side_of
from tests.games.dsl import given_state
from tests.games.wotr_helpers import (
    FPS,
    SHS,
    advance,
    board,
    events,
    move,
    play,
    random_play,
)


class Faces(Rng):
    """Scripted action dice: ``below(6)`` returns the given face indexes in order."""

    def __init__(self, *indexes: int):
        super().__init__("faces")
        self.indexes = list(indexes)

    def below(self, n: int) -> int:
        return self.indexes.pop(0) if n == 6 and self.indexes else super().below(n)


# --- action dice (§2) -------------------------------------------------------------------------

def test_each_round_free_peoples_roll_4_and_shadow_7_and_an_eye_is_lost():
    state = board(dice={FP: [], SH: ["army"]})
    # FP: character, character, muster, will; SH: eye x2, army x5
    rng = Faces(0, 1, 2, 5, 5, 5, 1, 1, 1, 1, 1)
    after = play(state, SHS, {"type": "skip_die", "die": "army"}, rng)
    assert after["round"] == 2
    assert after["dice"] == {FP: ["character", "character", "muster", "will"], SH: ["army"] * 5}
    assert after["turn"] == FP  # §2: the Free Peoples act first


def test_faces_are_as_the_spec_gives_them():
    assert FACES[FP] == ("character", "character", "muster", "event", "muster_army", "will")
    assert FACES[SH] == ("character", "army", "muster", "event", "muster_army", "eye")


def test_players_alternate_one_die_each():
    state = board(dice={FP: ["event"], SH: ["army", "army"]}, turn=FP)
    after = play(state, FPS, {"type": "skip_die", "die": "event"})
    assert after["turn"] == SH and after["dice"][FP] == []


def test_a_player_out_of_dice_is_skipped():
    state = board(dice={FP: [], SH: ["army", "muster"]}, turn=SH)
    after = play(state, SHS, {"type": "skip_die", "die": "army"})
    assert after["turn"] == SH and after["dice"][SH] == ["muster"]


def test_only_the_player_with_fewer_dice_may_pass():
    state = board(dice={FP: ["event"], SH: ["army", "army"]}, turn=FP)
    after = play(state, FPS, {"type": "pass"})
    assert after["turn"] == SH and after["dice"][FP] == ["event"]
    state = board(dice={FP: ["event", "event"], SH: ["army"]}, turn=SH)
    given_state(GAME, board(dice={FP: ["event"], SH: ["army"]}, turn=SH)).when(
        {"type": "pass"}, SHS).rejected("command_not_allowed")
    assert {"type": "pass"} in GAME.legal_commands(state, SHS)


def test_skipping_a_die_spends_it_with_no_effect():
    state = board()
    after = play(state, SHS, {"type": "skip_die", "die": "army"})
    assert after["armies"] == state["armies"] and after["dice"][SH] == ["army"]


def test_a_die_face_you_do_not_have_is_rejected():
    given_state(GAME, board()).when({"type": "skip_die", "die": "muster"}, SHS).rejected(
        "no_such_die")


def test_will_of_the_west_is_any_face():
    state = board(dice={FP: ["will"], SH: ["army"]}, turn=FP)
    after = play(state, FPS, {"type": "muster", "die": "will", "recruits": [
        {"nation": "gondor", "kind": "elite", "region": "Minas Tirith"}]})
    assert after["armies"]["Minas Tirith"]["gondor"] == [3, 2, 1]
    after = play(state, FPS, move("Osgiliath", "Dead Marshes", die="will"))
    assert "Dead Marshes" in after["armies"]


def test_an_event_die_draws_a_card():
    state = board(dice={FP: ["event"], SH: ["army"]}, turn=FP)
    top = state["decks"][FP][0]
    after = play(state, FPS, {"type": "draw_card", "die": "event"})
    assert after["hands"][FP] == [top]


def test_hand_limit_six_makes_the_player_discard():
    state = board(dice={FP: ["event"], SH: ["army"]}, turn=FP)
    state["hands"][FP] = state["decks"][FP][:6]
    state["decks"][FP] = state["decks"][FP][6:]
    after = play(state, FPS, {"type": "draw_card", "die": "event"})
    assert len(after["hands"][FP]) == 7
    assert set(GAME.pending(after)) == {FPS}
    assert {c["type"] for c in GAME.legal_commands(after, FPS)} == {"discard"}
    done = play(after, FPS, {"type": "discard", "card": after["hands"][FP][0]})
    assert len(done["hands"][FP]) == 6 and done["turn"] == SH


# --- movement (§3, seed: army action) ---------------------------------------------------------

def test_an_army_die_moves_two_different_armies_one_region_each():
    state = board()
    after = play(state, SHS, move("Nurn", "Gorgoroth"))
    assert set(GAME.pending(after)[SHS].kinds) == {"second_move", "end_action"}
    done = play(after, SHS, {"type": "second_move", "from": "Umbar", "to": "West Harondor"})
    assert done["armies"]["Gorgoroth"]["sauron"] == [5, 0, 0]
    assert done["armies"]["West Harondor"] == {"southrons": [3, 0, 0]}
    assert done["turn"] == FP and done["action"] is None


def test_no_figure_moves_twice_in_one_action():
    """The seed: a unit that joined an army cannot move on with it; the army may move without
    it."""
    state = play(board(), SHS, move("Nurn", "Gorgoroth"))
    assert state["armies"]["Gorgoroth"] == {"sauron": [5, 0, 0]}
    given_state(GAME, state).when(move("Gorgoroth", "Minas Morgul", (4, 0, 0),
                                       kind="second_move"), SHS).rejected(
        "no_such_figures")  # only the 3 Regulars that were there may go
    after = play(state, SHS, move("Gorgoroth", "Minas Morgul", (3, 0, 0), kind="second_move"))
    assert after["armies"]["Gorgoroth"] == {"sauron": [2, 0, 0]}
    assert after["armies"]["Minas Morgul"] == {"sauron": [8, 0, 1]}


def test_the_same_army_cannot_move_twice():
    state = play(board(), SHS, move("Minas Morgul", "North Ithilien", (3, 0, 1)))
    given_state(GAME, state).when(move("Minas Morgul", "South Ithilien", (1, 0, 0),
                                       kind="second_move"), SHS).rejected(
        "already_moved")


def test_armies_move_only_to_adjacent_regions():
    given_state(GAME, board()).when(move("Nurn", "Minas Morgul"), SHS).rejected("not_adjacent")


def test_an_army_cannot_move_into_an_enemy_army():
    state = board({"Osgiliath": {"gondor": [2, 0, 0]}, "North Ithilien": {"sauron": [3, 0, 0]}})
    given_state(GAME, state).when(move("North Ithilien", "Osgiliath"), SHS).rejected("not_free")


def test_a_split_leaves_units_behind_and_leaders_go_with_the_moving_part():
    state = board({"Minas Morgul": {"sauron": [5, 0, 1]}})
    after = play(state, SHS, move("Minas Morgul", "North Ithilien", (3, 0, 1)))
    assert after["armies"]["Minas Morgul"] == {"sauron": [2, 0, 0]}
    assert after["armies"]["North Ithilien"] == {"sauron": [3, 0, 1]}


def test_a_character_die_moves_one_army_with_a_leader():
    state = board({"Minas Morgul": {"sauron": [5, 0, 1]}, "Nurn": {"sauron": [2, 0, 0]}},
                  dice={FP: ["event"], SH: ["character", "army"]})
    given_state(GAME, state).when(move("Nurn", "Gorgoroth", die="character"), SHS).rejected(
        "needs_leader")
    after = play(state, SHS, move("Minas Morgul", "Gorgoroth", die="character"))
    assert after["action"] is None and after["turn"] == FP  # one army only


def test_units_not_at_war_stay_inside_their_borders_and_neutral_regions():
    state = board(war=(), dice={FP: ["will"], SH: ["army"]}, turn=FP)
    after = play(state, FPS, move("Osgiliath", "Dead Marshes", die="will"))  # neutral: fine
    assert after["armies"]["Dead Marshes"] == {"gondor": [2, 0, 0]}
    given_state(GAME, state).when(move("Fords of Isen", "Gap of Rohan", die="will"),
                                  FPS).rejected("not_at_war")  # Isengard's region


def test_stacking_above_ten_is_removed_at_the_end_of_the_action():
    state = board({"Gorgoroth": {"sauron": [8, 0, 0]}, "Nurn": {"sauron": [4, 1, 0]}})
    after = play(state, SHS, move("Nurn", "Gorgoroth"))
    assert after["armies"]["Gorgoroth"] == {"sauron": [12, 1, 0]}  # checked at the end only
    after = play(after, SHS, {"type": "end_action"})
    assert after["armies"]["Gorgoroth"] == {"sauron": [9, 1, 0]}
    assert after["reinf"]["sauron"][0] == state["reinf"]["sauron"][0] + 3


def test_moving_into_an_enemy_settlement_captures_it_without_battle():
    state = board({"West Harondor": {"southrons": [3, 0, 0]}})
    after = play(state, SHS, move("West Harondor", "Pelargir"))
    assert after["control"]["Pelargir"] == SH
    assert vp(after, SH) == 1
    assert after["politics"]["gondor"]["active"]


def test_recapture_by_the_owner_removes_the_victory_points():
    state = board({"Lossarnach": {"gondor": [2, 0, 0]}}, dice={FP: ["will"], SH: ["army"]},
                  turn=FP)
    state["control"]["Pelargir"] = SH
    after = play(state, FPS, move("Lossarnach", "Pelargir", die="will"))
    assert after["control"]["Pelargir"] == FP and vp(after, SH) == 0


def test_an_enemy_army_entering_a_passive_nation_activates_it():
    state = board({"Dead Marshes": {"sauron": [2, 0, 0]}}, war=("sauron",))
    assert not state["politics"]["gondor"]["active"]
    after = play(state, SHS, move("Dead Marshes", "Druadan Forest"))
    assert after["politics"]["gondor"]["active"]
    assert after["politics"]["gondor"]["step"] == 2  # activated, not advanced


# --- politics (§9) ----------------------------------------------------------------------------

def test_a_muster_die_advances_a_nation_one_step():
    state = board(dice={FP: ["event"], SH: ["muster"]}, war=())
    after = play(state, SHS, {"type": "diplomacy", "die": "muster", "nation": "southrons"})
    assert after["politics"]["southrons"]["step"] == 1


def test_a_passive_nation_never_enters_war():
    state = board(dice={FP: ["muster"], SH: ["army"]}, turn=FP, war=())
    state["politics"]["gondor"]["step"] = 1
    given_state(GAME, state).when({"type": "diplomacy", "die": "muster", "nation": "gondor"},
                                  FPS).rejected("cannot_advance")


def test_the_dale_capture_activates_north_and_advances_it_two_steps():
    """wotr.md §8 (official example): SH attacks a North army in Dale; the survivor retreats; SH
    advances and captures Dale: North is activated and advanced two steps."""
    from tests.games.wotr_helpers import Dice, attack, no_cards
    state = board({"Dale": {"north": [1, 0, 1]}, "Northern Rhovanion": {"sauron": [5, 0, 0]},
                   "Erebor": {"dwarves": [1, 2, 1]}}, scenario="full", war=("sauron",))
    assert state["politics"]["north"] == {"step": 3, "active": False}
    after = play(state, SHS, attack("Northern Rhovanion", "Dale"))
    assert after["politics"]["north"] == {"step": 2, "active": True}  # attacked
    # First round against a City: the attacker hits only on 6 (§6); one hit, FP misses and
    # its Leader's re-roll misses: the North army (and its Leader with it) is eliminated.
    after = no_cards(after, Dice(6, 2, 2, 2, 2, 3, 3))
    assert "Dale" not in after["armies"] and after["dead"]["north"] == [1, 0, 1]
    after = play(after, SHS, advance((5, 0, 0)))
    assert after["control"]["Dale"] == SH
    assert after["politics"]["north"] == {"step": 1, "active": True}  # two steps from 3


def test_the_dale_example_with_a_surviving_retreat():
    from tests.games.wotr_helpers import Dice, attack, no_cards
    state = board({"Dale": {"north": [2, 0, 1]}, "Northern Rhovanion": {"sauron": [5, 0, 0]}},
                  scenario="full", war=("sauron",))
    after = play(state, SHS, attack("Northern Rhovanion", "Dale"))
    after = no_cards(after, Dice(6, 2, 2, 2, 2, 3, 3, 3))  # SH one hit; FP and re-roll miss
    assert after["armies"]["Dale"] == {"north": [1, 0, 1]}
    after = play(after, SHS, {"type": "continue_battle", "yes": True})
    after = play(after, FPS, {"type": "retreat", "to": "Woodland Realm"})
    after = play(after, SHS, advance((5, 0, 0)))
    assert after["control"]["Dale"] == SH
    assert after["politics"]["north"] == {"step": 1, "active": True}  # two steps from 3
    assert after["armies"]["Woodland Realm"]["north"] == [1, 0, 1]


# --- mustering (§10) --------------------------------------------------------------------------

def test_mustering_needs_a_nation_at_war():
    state = board(dice={FP: ["muster"], SH: ["army"]}, turn=FP, war=())
    given_state(GAME, state).when({"type": "muster", "die": "muster", "recruits": [
        {"nation": "gondor", "kind": "regular", "region": "Minas Tirith"}]}, FPS).rejected(
        "cannot_muster_there")


def test_two_figures_from_one_die_go_to_two_different_settlements():
    state = board(dice={FP: ["muster"], SH: ["army"]}, turn=FP)
    recruit = {"nation": "gondor", "kind": "regular", "region": "Pelargir"}
    given_state(GAME, state).when({"type": "muster", "die": "muster",
                                   "recruits": [recruit, recruit]}, FPS).rejected(
        "same_settlement")
    after = play(state, FPS, {"type": "muster", "die": "muster", "recruits": [
        recruit, {"nation": "gondor", "kind": "leader", "region": "Minas Tirith"}]})
    assert after["armies"]["Pelargir"]["gondor"] == [2, 0, 0]
    assert after["armies"]["Minas Tirith"] == {"gondor": [3, 1, 2]}


def test_a_free_peoples_leader_is_mustered_only_where_units_stand():
    state = board(dice={FP: ["muster"], SH: ["army"]}, turn=FP)
    given_state(GAME, state).when({"type": "muster", "die": "muster", "recruits": [
        {"nation": "gondor", "kind": "leader", "region": "Lossarnach"}]}, FPS).rejected(
        "cannot_muster_there")


def test_an_elite_is_mustered_alone():
    state = board(dice={FP: ["muster"], SH: ["army"]}, turn=FP)
    given_state(GAME, state).when({"type": "muster", "die": "muster", "recruits": [
        {"nation": "gondor", "kind": "elite", "region": "Pelargir"},
        {"nation": "gondor", "kind": "regular", "region": "Lossarnach"}]}, FPS).rejected(
        "elite_alone")


def test_nazgul_are_mustered_only_in_sauron_strongholds():
    state = board(dice={FP: ["event"], SH: ["muster"]})
    given_state(GAME, state).when({"type": "muster", "die": "muster", "recruits": [
        {"nation": "sauron", "kind": "leader", "region": "Nurn"}]}, SHS).rejected(
        "cannot_muster_there")
    after = play(state, SHS, {"type": "muster", "die": "muster", "recruits": [
        {"nation": "sauron", "kind": "leader", "region": "Morannon"}]})
    assert after["armies"]["Morannon"]["sauron"] == [5, 0, 2]


def test_no_mustering_in_a_captured_or_occupied_settlement():
    state = board({"Pelargir": {"southrons": [1, 0, 0]}, "Lamedon": {"sauron": [1, 0, 0]}},
                  dice={FP: ["muster"], SH: ["army"]}, turn=FP)
    state["control"]["Pelargir"] = SH
    for region in ("Pelargir", "Lamedon"):
        given_state(GAME, state).when({"type": "muster", "die": "muster", "recruits": [
            {"nation": "gondor", "kind": "regular", "region": region}]}, FPS).rejected(
            "cannot_muster_there")


# --- victory (§13.1, §14) ---------------------------------------------------------------------

def _end_round_with(control: dict[str, str], max_rounds: int = 15):
    state = board(dice={FP: [], SH: ["army"]})
    state["control"].update(control)
    state["max_rounds"] = max_rounds
    return play(state, SHS, {"type": "skip_die", "die": "army"})


def test_shadow_wins_the_south_at_five_victory_points_at_the_end_of_the_round():
    after = _end_round_with({"Minas Tirith": SH, "Helm's Deep": SH, "Edoras": SH})
    assert GAME.result(after)["winners"] == [SHS]
    assert GAME.result(after)["reason"] == "military_victory"


def test_victory_is_checked_only_at_the_end_of_the_round():
    state = board(dice={FP: ["event"], SH: ["army"]})
    state["control"].update({"Minas Tirith": SH, "Helm's Deep": SH, "Edoras": SH})
    after = play(state, SHS, {"type": "skip_die", "die": "army"})
    assert GAME.result(after) is None


def test_free_peoples_win_the_south_at_four_victory_points():
    after = _end_round_with({"Orthanc": FP, "Umbar": FP})
    assert GAME.result(after)["winners"] == [FPS]


def test_shadow_wins_when_both_reach_their_goal_in_the_same_check():
    after = _end_round_with({"Orthanc": FP, "Umbar": FP, "Minas Tirith": SH, "Helm's Deep": SH,
                             "Pelargir": SH})
    assert GAME.result(after)["winners"] == [SHS]


def test_four_vp_is_not_enough_for_the_shadow():
    after = _end_round_with({"Minas Tirith": SH, "Helm's Deep": SH})
    assert GAME.result(after) is None


def test_at_the_round_limit_the_free_peoples_win():
    after = _end_round_with({}, max_rounds=1)
    assert GAME.result(after)["winners"] == [FPS]
    assert GAME.result(after)["reason"] == "ring_destroyed"


def test_the_round_limit_result_says_in_words_that_the_free_peoples_held_out():
    """Issue 24 point 8, the decisions block's Ring clock (``max_rounds``: with no military
    victory by then the Free Peoples win): the result says so, not "a winner with fewer points"."""
    after = _end_round_with({"Minas Tirith": SH}, max_rounds=1)
    result = GAME.result(after)
    assert result["scores"] == {"0": 0, "1": 2}  # the Shadow is ahead on VP and still loses
    assert result["summary"] == (
        "The Free Peoples held out to the end of round 1: the Ring reached Mount Doom and was "
        "destroyed. The Shadow took 2 of the 5 victory points it needed.")
    assert GAME.view(after, FPS)["outcome"] == result["summary"]


def test_a_military_victory_result_names_the_victory_points():
    after = _end_round_with({"Minas Tirith": SH, "Helm's Deep": SH, "Edoras": SH})
    assert GAME.result(after)["summary"] == (
        "The Shadow won a military victory: 5 victory points of enemy Settlements (the goal was "
        "5).")


@pytest.mark.parametrize("scenario", ["south", "full"])
def test_figures_are_conserved_through_a_random_game(scenario):
    state = GAME.fold(GAME.setup(2, GAME.load_options({"scenario": scenario}), Rng("c")))
    totals = state["totals"]
    for step in range(3000):
        if GAME.result(state):
            break
        seat = sorted(GAME.pending(state))[0]
        legal = GAME.legal_commands(state, seat)
        command = legal[Rng("b", step).below(len(legal))]
        for event in events(state, seat, command, Rng("g", step)):
            state = GAME.evolve(state, event)
        assert figures_total(state) == totals
    assert GAME.result(state)


def test_a_free_peoples_leader_is_never_left_alone():
    state = board({"Minas Tirith": {"gondor": [2, 0, 1]}}, dice={FP: ["will"], SH: ["army"]},
                  turn=FP)
    after = play(state, FPS, move("Minas Tirith", "Lossarnach", (1, 0, 1), die="will"))
    assert after["armies"]["Minas Tirith"] == {"gondor": [1, 0, 0]}
    assert after["armies"]["Lossarnach"] == {"gondor": [1, 0, 1]}
    given_state(GAME, state).when(move("Minas Tirith", "Lossarnach", (2, 0, 0), die="will"),
                                  FPS).rejected("leader_left_alone")


def test_mustering_is_limited_by_the_reinforcements_left():
    state = board(dice={FP: ["muster"], SH: ["army"]}, turn=FP)
    state["reinf"]["gondor"] = [1, 0, 0]
    recruits = [{"nation": "gondor", "kind": "regular", "region": "Pelargir"},
                {"nation": "gondor", "kind": "regular", "region": "Lossarnach"}]
    given_state(GAME, state).when({"type": "muster", "die": "muster", "recruits": recruits},
                                  FPS).rejected("not_enough_reinforcements")
    given_state(GAME, state).when({"type": "muster", "die": "muster", "recruits": [
        {"nation": "gondor", "kind": "elite", "region": "Pelargir"}]}, FPS).rejected(
        "cannot_muster_there")


def test_a_fortification_is_not_a_settlement_and_is_never_captured():
    state = board({"Gap of Rohan": {"isengard": [3, 0, 0]}})
    assert "Fords of Isen" not in state["control"] and "Osgiliath" not in state["control"]
    after = play(state, SHS, move("Gap of Rohan", "Fords of Isen"))
    assert "Fords of Isen" not in after["control"]
    assert after["politics"]["rohan"] == {"step": 0, "active": True}  # entered, not captured


# --- the legal moves are exactly the moves the rules accept --------------------------------------

@pytest.mark.parametrize(("scenario", "seats"), [("south", 2), ("full", 2), ("full", 3)])
def test_the_moves_listed_are_exactly_the_moves_decide_accepts(scenario, seats):
    """Every army to every region next to it, by each Army-moving die the seat has, in the
    action phases of random games: listed as legal if and only if ``decide`` takes it (the
    legal list skips the per-region checks for armies all At War, orders.moves_from)."""
    checked = 0
    for state, seat, legal in random_play(scenario, seats, "legal-moves", 400):
        if (state["action"] is None and state["battle"] is None and not state.get("order")
                and legal and legal[0]["type"] != "discard"):
            faces = set(state["dice"][side_of(state, seat)])
            for die in sorted(faces & {"army", "muster_army", "will", "character"}):
                for src in state["armies"]:
                    for dst in neighbours(state, src):
                        command = {"type": "move", "die": die, "from": src, "to": dst}
                        try:
                            GAME.decide(state, command, seat, Rng("probe"))
                            accepted = True
                        except Rejected:
                            accepted = False
                        assert accepted == (command in legal), command
                        checked += 1
    assert checked > 500
