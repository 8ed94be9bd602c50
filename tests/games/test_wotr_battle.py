"""War of the Ring battles (wotr.md §4-§7; the seed text's field battle): attacks, combat rounds
with scripted dice, re-rolls, casualties, cease/retreat/advance, cities and fortifications,
sieges, sorties, relief and capture. Dice order: the attacker's combat roll then its re-rolls,
then the defender's."""

from __future__ import annotations

from games.core import AUDITOR
from games.wotr import GAME
from games.wotr.data import FP, SH
from games.wotr.engine import must_leave, vp
from tests.games.dsl import given_state
from tests.games.wotr_helpers import (
    FPS,
    NO_CARD,
    SHS,
    Dice,
    advance,
    attack,
    board,
    move,
    no_cards,
    play,
)

PLAIN = {"Dead Marshes": {"gondor": [2, 0, 0]}, "North Ithilien": {"sauron": [3, 0, 0]}}


def _battle(armies, frm, to, **kw):
    return play(board(armies, **kw), SHS, attack(frm, to))


# --- declaring an attack (§4) -----------------------------------------------------------------

def test_the_attacker_does_not_move_in():
    state = _battle(PLAIN, "North Ithilien", "Dead Marshes")
    assert state["armies"]["North Ithilien"] == {"sauron": [3, 0, 0]}  # all of it attacks
    assert state["battle"]["att"] == {"sauron": [3, 0, 0]}
    assert state["armies"]["Dead Marshes"] == {"gondor": [2, 0, 0]}


def test_a_rearguard_stays_and_takes_no_part():
    state = play(board(PLAIN), SHS, attack("North Ithilien", "Dead Marshes", (2, 0, 0)))
    assert state["armies"]["North Ithilien"] == {"sauron": [3, 0, 0]}  # they stay there
    assert state["battle"]["att"] == {"sauron": [2, 0, 0]}


def test_only_nations_at_war_attack():
    state = board(PLAIN, war=())
    given_state(GAME, state).when(attack("North Ithilien", "Dead Marshes"), SHS).rejected(
        "not_at_war")
    assert not [c for c in GAME.legal_commands(state, SHS) if c["type"] == "attack"]


def test_units_not_at_war_are_left_as_rearguard():
    armies = {"Dead Marshes": {"gondor": [2, 0, 0]},
              "North Ithilien": {"sauron": [2, 0, 0], "southrons": [2, 0, 0]}}
    state = board(armies, war=("sauron",))
    given_state(GAME, state).when(attack("North Ithilien", "Dead Marshes", (4, 0, 0)),
                                  SHS).rejected("not_at_war")
    after = play(state, SHS, attack("North Ithilien", "Dead Marshes"))
    assert after["battle"]["att"] == {"sauron": [2, 0, 0]}
    assert after["armies"]["North Ithilien"] == {"sauron": [2, 0, 0], "southrons": [2, 0, 0]}


def test_a_character_die_attacks_only_with_a_leader():
    state = board(PLAIN, dice={FP: ["event"], SH: ["character"]})
    given_state(GAME, state).when(attack("North Ithilien", "Dead Marshes", die="character"),
                                  SHS).rejected("needs_leader")


def test_an_attack_activates_and_advances_every_defending_nation_once():
    armies = {"Folde": {"rohan": [1, 0, 0], "gondor": [1, 0, 0]},
              "Druadan Forest": {"sauron": [3, 0, 0]}}
    state = board(armies, war=("sauron",))
    after = play(state, SHS, attack("Druadan Forest", "Folde"))
    assert after["politics"]["rohan"] == {"step": 2, "active": True}
    assert after["politics"]["gondor"] == {"step": 1, "active": True}
    after = no_cards(after, Dice(2, 2, 2, 2, 2))  # nobody hits
    after = play(after, SHS, {"type": "continue_battle", "yes": True})
    after = play(after, FPS, {"type": "retreat", "to": ""})
    assert after["politics"]["rohan"]["step"] == 2  # once per battle


def test_a_leader_alone_does_not_advance_his_nation_when_attacked():
    """Issue 24 point 4, the seed: "방어군에 부대가 포함된 국가들의 정치 카운터들이 … 1칸 전진" -
    only the Nations with *units* in the defending army advance: a Leader of Gondor alone in a
    Rohan army does not move Gondor."""
    armies = {"Folde": {"rohan": [2, 0, 0], "gondor": [0, 0, 1]},
              "Druadan Forest": {"sauron": [3, 0, 0]}}
    after = play(board(armies, war=("sauron",)), SHS, attack("Druadan Forest", "Folde"))
    assert after["politics"]["rohan"] == {"step": 2, "active": True}
    assert after["politics"]["gondor"] == {"step": 2, "active": False}


# --- the combat round (§5) --------------------------------------------------------------------

def test_hits_on_five_or_six_and_casualties_removed_together():
    state = _battle(PLAIN, "North Ithilien", "Dead Marshes")
    after = no_cards(state, Dice(5, 4, 6, 5, 1))
    assert after["battle"]["rolls"][0]["hits"] == 2 and after["battle"]["rolls"][1]["hits"] == 1
    assert "Dead Marshes" not in after["armies"]  # two hits: both Gondor Regulars
    assert after["battle"]["att"] == {"sauron": [2, 0, 0]}
    assert after["dead"]["gondor"][0] == 2  # §5.4: FP units are out of the game
    assert after["battle"]["stage"] == "advance"


def test_both_armies_can_be_wiped_out_in_one_round():
    armies = {"Dead Marshes": {"gondor": [1, 0, 0]}, "North Ithilien": {"sauron": [1, 0, 0]}}
    after = no_cards(_battle(armies, "North Ithilien", "Dead Marshes"), Dice(6, 6))
    assert after["battle"] is None
    assert "Dead Marshes" not in after["armies"] and "North Ithilien" not in after["armies"]
    assert after["reinf"]["sauron"][0] == board()["reinf"]["sauron"][0] + 1


def test_at_most_five_combat_dice():
    armies = {"Dead Marshes": {"gondor": [5, 0, 0]}, "North Ithilien": {"sauron": [8, 0, 0]}}
    after = no_cards(_battle(armies, "North Ithilien", "Dead Marshes"),
                     Dice(2, 2, 2, 2, 2, 2, 2, 2, 2, 2))
    assert len(after["battle"]["rolls"][0]["dice"]) == 5


def test_a_natural_one_always_misses_and_a_six_always_hits():
    from games.wotr.battle import _hit
    assert not _hit(1, 4, 5)
    assert _hit(6, -1, 6)
    assert _hit(4, 1, 5) and not _hit(4, 0, 5)


def test_leaders_re_roll_misses_up_to_their_leadership():
    armies = {"Dead Marshes": {"gondor": [3, 0, 0]}, "North Ithilien": {"sauron": [3, 0, 2]}}
    state = _battle(armies, "North Ithilien", "Dead Marshes")
    after = no_cards(state, Dice(5, 2, 3, 6, 4, 2, 2, 2))
    sh = after["battle"]["rolls"][0] if after["battle"] else None
    assert sh is None or sh["rerolls"] == [6, 4]
    # one Nazgûl, three misses: only one die re-rolled
    armies["North Ithilien"]["sauron"] = [3, 0, 1]
    state = _battle(armies, "North Ithilien", "Dead Marshes")
    after = no_cards(state, Dice(2, 2, 2, 6, 2, 2, 2))
    assert after["battle"]["rolls"][0]["rerolls"] == [6]
    assert after["battle"]["rolls"][0]["hits"] == 1


def test_the_seed_example_five_dice_and_two_re_rolls():
    """The seed: 3 Elites, 5 Regulars and 3 Leaders roll 5 dice, not 8; with 2 misses only those
    2 are re-rolled, not 3."""
    armies = {"Osgiliath": {"gondor": [5, 3, 3]}, "North Ithilien": {"sauron": [3, 0, 0]}}
    state = board(armies, dice={FP: ["will"], SH: ["army"]}, turn=FP)
    state = play(state, FPS, attack("Osgiliath", "North Ithilien", die="will"))
    after = no_cards(state, Dice(5, 6, 5, 2, 3, 2, 2, 2, 2, 2))
    fp_roll = after["battle"]["rolls"][0]
    assert len(fp_roll["dice"]) == 5 and fp_roll["rerolls"] == [2, 2] and fp_roll["hits"] == 3


def test_the_owner_chooses_casualties_and_an_elite_is_reduced():
    armies = {"Dead Marshes": {"gondor": [1, 1, 0]}, "North Ithilien": {"sauron": [3, 0, 0]}}
    state = no_cards(_battle(armies, "North Ithilien", "Dead Marshes"), Dice(6, 2, 2, 2, 2))
    assert GAME.pending(state) == {FPS: GAME.pending(state)[FPS]}
    assert {(c["nation"], c["kind"]) for c in GAME.legal_commands(state, FPS)} == {
        ("gondor", "regular"), ("gondor", "elite")}
    after = play(state, FPS, {"type": "take_hit", "nation": "gondor", "kind": "elite"})
    assert after["armies"]["Dead Marshes"] == {"gondor": [2, 0, 0]}
    assert after["dead"]["gondor"] == [0, 1, 0]


def test_an_elite_absorbs_two_hits():
    armies = {"Dead Marshes": {"gondor": [1, 1, 0]}, "North Ithilien": {"sauron": [3, 0, 0]}}
    state = no_cards(_battle(armies, "North Ithilien", "Dead Marshes"), Dice(6, 6, 2, 2, 2))
    after = play(state, FPS, {"type": "take_hit", "nation": "gondor", "kind": "elite"})
    # the second hit has one way left (a Regular) and is applied without asking
    assert after["armies"]["Dead Marshes"] == {"gondor": [1, 0, 0]}


def test_a_free_peoples_elite_is_replaced_by_an_eliminated_regular_first():
    armies = {"Dead Marshes": {"gondor": [1, 1, 0]}, "North Ithilien": {"sauron": [3, 0, 0]}}
    state = _battle(armies, "North Ithilien", "Dead Marshes")
    state["dead"]["gondor"] = [1, 0, 0]
    state = no_cards(state, Dice(6, 2, 2, 2, 2))
    after = play(state, FPS, {"type": "take_hit", "nation": "gondor", "kind": "elite"})
    assert after["dead"]["gondor"] == [0, 1, 0]
    assert after["reinf"]["gondor"] == state["reinf"]["gondor"]


def test_shadow_casualties_return_to_reinforcements():
    state = _battle(PLAIN, "North Ithilien", "Dead Marshes")
    after = no_cards(state, Dice(2, 2, 2, 6, 2))
    assert after["reinf"]["sauron"][0] == state["reinf"]["sauron"][0] + 1


def test_leaders_are_eliminated_with_their_army():
    armies = {"Dead Marshes": {"gondor": [1, 0, 1]}, "North Ithilien": {"sauron": [3, 0, 0]}}
    after = no_cards(_battle(armies, "North Ithilien", "Dead Marshes"), Dice(6, 2, 2, 2, 2))
    assert after["dead"]["gondor"] == [1, 0, 1]


def test_the_attacker_may_cease_and_everyone_stays():
    state = no_cards(_battle(PLAIN, "North Ithilien", "Dead Marshes"), Dice(2, 2, 2, 2, 2))
    assert GAME.pending(state).keys() == {SHS}
    after = play(state, SHS, {"type": "continue_battle", "yes": False})
    assert after["battle"] is None
    assert after["armies"]["North Ithilien"] == {"sauron": [3, 0, 0]}
    assert after["armies"]["Dead Marshes"] == {"gondor": [2, 0, 0]}


def test_the_defender_retreats_only_into_a_free_region():
    armies = {**PLAIN, "Western Emyn Muil": {"sauron": [1, 0, 0]}}
    state = no_cards(_battle(armies, "North Ithilien", "Dead Marshes"), Dice(2, 2, 2, 2, 2))
    state = play(state, SHS, {"type": "continue_battle", "yes": True})
    targets = {c["to"] for c in GAME.legal_commands(state, FPS)}
    assert targets == {"", "Druadan Forest", "Osgiliath"}  # never the attacker's region (§4)
    after = play(state, FPS, {"type": "retreat", "to": "Osgiliath"})
    assert after["armies"]["Osgiliath"] == {"gondor": [2, 0, 0]}
    assert after["battle"]["stage"] == "advance"


def test_a_region_with_an_enemy_controlled_settlement_is_not_free():
    armies = {"Lossarnach": {"gondor": [2, 0, 0]}, "Osgiliath": {"sauron": [3, 0, 0]}}
    state = board(armies)
    state["control"]["Pelargir"] = SH
    state = no_cards(play(state, SHS, attack("Osgiliath", "Lossarnach")), Dice(2, 2, 2, 2, 2))
    state = play(state, SHS, {"type": "continue_battle", "yes": True})
    assert {c["to"] for c in GAME.legal_commands(state, FPS)} == {"", "Minas Tirith"}


def _to_retreat(armies, frm, to, war):
    state = no_cards(play(board(armies, war=war), SHS, attack(frm, to)), Dice(2, 2, 2, 2, 2))
    return play(state, SHS, {"type": "continue_battle", "yes": True})


def test_a_nation_not_at_war_never_retreats_into_an_enemy_nations_region():
    """Issue 24 point 3, the seed: "후퇴할 때에만 예외적으로 동맹국의 영토에 들어갈 수 있습니다"
    (only when retreating may units not At War enter an *allied* Nation's land): Rohan, not at
    war, attacked at Fords of Isen from Orthanc may not retreat into Gap of Rohan (Isengard)."""
    armies = {"Fords of Isen": {"rohan": [2, 0, 0]}, "Orthanc": {"isengard": [3, 0, 0]}}
    state = _to_retreat(armies, "Orthanc", "Fords of Isen", war=("isengard",))
    assert state["politics"]["rohan"]["step"] > 0  # still not At War
    targets = {c["to"] for c in GAME.legal_commands(state, FPS)}
    assert targets == {"", "Fangorn", "Helm's Deep", "Westemnet"}
    given_state(GAME, state).when({"type": "retreat", "to": "Gap of Rohan"}, FPS).rejected(
        "not_free")


def test_a_nation_at_war_may_retreat_into_a_free_enemy_region():
    armies = {"Fords of Isen": {"rohan": [2, 0, 0]}, "Orthanc": {"isengard": [3, 0, 0]}}
    state = _to_retreat(armies, "Orthanc", "Fords of Isen", war=("isengard", "rohan"))
    assert "Gap of Rohan" in {c["to"] for c in GAME.legal_commands(state, FPS)}


def test_a_nation_not_at_war_retreats_into_an_allied_nations_land():
    """Issue 24 point 3: only when retreating may Rohan, not At War, enter Gondor's land."""
    armies = {"Eastemnet": {"rohan": [2, 0, 0]}, "Western Emyn Muil": {"sauron": [3, 0, 0]}}
    state = _to_retreat(armies, "Western Emyn Muil", "Eastemnet", war=("sauron",))
    assert "Druadan Forest" in {c["to"] for c in GAME.legal_commands(state, FPS)}
    after = play(state, FPS, {"type": "retreat", "to": "Druadan Forest"})
    assert after["armies"]["Druadan Forest"] == {"rohan": [2, 0, 0]}
    assert after["exiles"] == {"Druadan Forest": ["rohan"]}


def _exiled_in_druadan_forest(war=("sauron",)):
    armies = {"Druadan Forest": {"rohan": [2, 0, 0]}}
    state = board(armies, war=war, dice={FP: ["muster_army"], SH: ["army"]}, turn=FP)
    state["exiles"] = {"Druadan Forest": ["rohan"]}
    return state


def test_units_that_retreated_into_an_allied_land_must_leave_it_with_their_next_move():
    """Issue 24 point 3, the seed: "하지만 다음에 그 피규어들을 이동시키려고 하면 ('전쟁 중'이 아닌
    한) 무조건 그 영토에서 나와야 합니다" - the next time those figures move, unless their Nation
    is now At War, they must leave that land (enforced by its own rule, not the border rule)."""
    state = _exiled_in_druadan_forest()
    assert must_leave(state, "rohan", "Druadan Forest", "Minas Tirith")
    assert not must_leave(state, "rohan", "Druadan Forest", "Folde")
    assert not must_leave(state, "gondor", "Druadan Forest", "Minas Tirith")
    targets = {c["to"] for c in GAME.legal_commands(state, FPS) if c["type"] == "move"}
    assert targets == {"Eastemnet", "Folde", "Dead Marshes", "Western Emyn Muil", "Osgiliath"}
    given_state(GAME, state).when(move("Druadan Forest", "Minas Tirith", die="muster_army"),
                                  FPS).rejected("not_at_war")
    after = play(state, FPS, move("Druadan Forest", "Folde", die="muster_army"))
    assert after["exiles"] == {}


def test_units_that_retreated_stay_if_not_moved_and_are_free_once_at_war():
    """The seed: "(… 일부러 이동 안 시켜서 안 빼도 된다고 합니다)" - they need not move; and once
    their own Nation is At War the obligation ends."""
    state = _exiled_in_druadan_forest()
    after = play(state, FPS, {"type": "skip_die", "die": "muster_army"})
    assert after["exiles"] == {"Druadan Forest": ["rohan"]}
    at_war = _exiled_in_druadan_forest(war=("sauron", "rohan"))
    assert not must_leave(at_war, "rohan", "Druadan Forest", "Minas Tirith")
    assert "Minas Tirith" in {c["to"] for c in GAME.legal_commands(at_war, FPS)
                              if c["type"] == "move"}


def test_the_attacker_may_advance_after_the_defender_is_gone():
    state = no_cards(_battle(PLAIN, "North Ithilien", "Dead Marshes"), Dice(6, 6, 2, 2, 2))
    after = play(state, SHS, advance((3, 0, 0)))
    assert after["armies"]["Dead Marshes"] == {"sauron": [3, 0, 0]}
    assert "North Ithilien" not in after["armies"]
    declined = play(state, SHS, advance((0, 0, 0)))
    assert declined["armies"]["North Ithilien"] == {"sauron": [3, 0, 0]}


# --- cities and fortifications (§6) -----------------------------------------------------------

def test_against_a_fortification_the_attacker_hits_only_on_six_in_the_first_round():
    armies = {"Osgiliath": {"gondor": [2, 0, 0]}, "North Ithilien": {"sauron": [3, 0, 0]}}
    state = _battle(armies, "North Ithilien", "Osgiliath")
    after = no_cards(state, Dice(5, 5, 6, 2, 2))
    assert after["battle"]["rolls"][0]["target"] == 6
    assert after["armies"]["Osgiliath"] == {"gondor": [1, 0, 0]}
    after = play(after, SHS, {"type": "continue_battle", "yes": True})
    after = play(after, FPS, {"type": "retreat", "to": ""})
    after = no_cards(after, Dice(5, 2, 2, 2))
    assert after["battle"]["rolls"][0]["target"] == 5  # later rounds: normal


def test_a_town_gives_no_combat_bonus():
    armies = {"Lossarnach": {"gondor": [2, 0, 0]}, "Osgiliath": {"sauron": [3, 0, 0]}}
    state = play(board(armies), SHS, attack("Osgiliath", "Lossarnach"))
    after = no_cards(state, Dice(5, 2, 2, 2, 2))
    assert after["battle"]["rolls"][0]["target"] == 5


# --- strongholds and sieges (§7) --------------------------------------------------------------

MT = {"Minas Tirith": {"gondor": [3, 1, 1]}, "Osgiliath": {"sauron": [6, 1, 1]}}


def test_the_stronghold_defender_chooses_field_or_siege_before_the_round():
    state = _battle(MT, "Osgiliath", "Minas Tirith")
    assert GAME.pending(state).keys() == {FPS}
    assert {c["type"] for c in GAME.legal_commands(state, FPS)} == {"withdraw"}
    after = play(state, FPS, {"type": "withdraw", "yes": True})
    assert after["boxes"]["Minas Tirith"] == {"gondor": [3, 1, 1]}
    after = play(after, SHS, advance((6, 1, 1), kind="besiege"))
    assert after["battle"] is None
    assert after["armies"]["Minas Tirith"] == {"sauron": [6, 1, 1]}
    assert after["control"]["Minas Tirith"] == FP  # §7: still the defender's


def test_a_stronghold_gives_no_first_round_penalty_in_a_field_battle():
    state = play(_battle(MT, "Osgiliath", "Minas Tirith"), FPS, {"type": "withdraw", "yes": False})
    after = no_cards(state, Dice(2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2))
    assert after["battle"]["rolls"][0]["target"] == 5


def test_declining_to_besiege_returns_the_garrison_to_the_field():
    state = play(_battle(MT, "Osgiliath", "Minas Tirith"), FPS, {"type": "withdraw", "yes": True})
    after = play(state, SHS, advance(kind="besiege"))
    assert after["armies"]["Minas Tirith"] == {"gondor": [3, 1, 1]}
    assert after["armies"]["Osgiliath"] == {"sauron": [6, 1, 1]}
    assert "Minas Tirith" not in after["boxes"]


def test_a_besieged_stronghold_holds_at_most_five_units():
    armies = {"Minas Tirith": {"gondor": [6, 1, 1]}, "Osgiliath": {"sauron": [6, 1, 1]}}
    state = play(_battle(armies, "Osgiliath", "Minas Tirith"), FPS,
                 {"type": "withdraw", "yes": True})
    assert state["boxes"]["Minas Tirith"] == {"gondor": [4, 1, 1]}
    assert state["reinf"]["gondor"][0] == board()["reinf"]["gondor"][0] + 2


def _siege(garrison, besiegers):
    state = board({"Minas Tirith": besiegers})
    state["boxes"]["Minas Tirith"] = garrison
    return state


def test_in_a_siege_the_attacker_hits_on_six_and_it_lasts_one_round():
    state = _siege({"gondor": [2, 0, 0]}, {"sauron": [3, 0, 0]})
    state = play(state, SHS, attack("Minas Tirith", "Minas Tirith"))
    assert state["battle"]["kind"] == "siege"
    after = no_cards(state, Dice(5, 5, 6, 5, 2))
    assert after["battle"] is None  # no Elite to reduce: the round is the whole battle
    assert after["boxes"]["Minas Tirith"] == {"gondor": [1, 0, 0]}
    assert after["armies"]["Minas Tirith"] == {"sauron": [2, 0, 0]}  # FP hit on 5


def test_the_besieger_reduces_an_elite_for_another_siege_round():
    state = _siege({"gondor": [2, 0, 0]}, {"sauron": [3, 1, 0]})
    state = play(state, SHS, attack("Minas Tirith", "Minas Tirith"))
    state = no_cards(state, Dice(2, 2, 2, 2, 2, 2))
    assert state["battle"]["stage"] == "extend"
    assert GAME.legal_commands(state, SHS) == [{"type": "extend_siege", "nation": ""},
                                               {"type": "extend_siege", "nation": "sauron"}]
    after = play(state, SHS, {"type": "extend_siege", "nation": "sauron"})
    assert after["battle"]["att"] == {"sauron": [4, 0, 0]}
    assert after["battle"]["round"] == 2 and after["battle"]["stage"] == "cards"


def test_a_stronghold_is_captured_when_its_garrison_is_eliminated():
    state = _siege({"gondor": [1, 0, 1]}, {"sauron": [3, 0, 0]})
    state["politics"]["gondor"] = {"step": 1, "active": True}
    state = play(state, SHS, attack("Minas Tirith", "Minas Tirith"))
    assert state["politics"]["gondor"]["step"] == 0  # attacked: one step
    after = no_cards(state, Dice(6, 2, 2, 2, 2))
    assert after["control"]["Minas Tirith"] == SH and vp(after, SH) == 2
    assert "Minas Tirith" not in after["boxes"]
    assert after["armies"]["Minas Tirith"] == {"sauron": [3, 0, 0]}
    assert after["dead"]["gondor"] == [1, 0, 1]


def test_a_besieged_army_never_retreats_and_cannot_be_attacked_from_outside():
    state = _siege({"gondor": [2, 0, 0]}, {"sauron": [3, 0, 0]})
    state["armies"]["Osgiliath"] = {"sauron": [2, 0, 0]}
    targets = {(c["from"], c["to"]) for c in GAME.legal_commands(state, SHS)
               if c["type"] == "attack"}
    assert targets == {("Minas Tirith", "Minas Tirith")}


def test_a_sortie_is_a_field_battle_and_goes_back_inside_when_it_ceases():
    state = _siege({"gondor": [3, 0, 1]}, {"sauron": [3, 0, 0]})
    state.update(turn=FP, dice={FP: ["will"], SH: ["army"]})
    state = play(state, FPS, attack("Minas Tirith", "Minas Tirith", die="will"))
    assert state["battle"]["kind"] == "sortie"
    after = no_cards(state, Dice(5, 2, 2, 2, 2, 2, 2))  # FP: 3 dice and a re-roll; SH: 3
    assert after["battle"]["rolls"][0]["target"] == 5 and after["battle"]["rolls"][1]["target"] == 5
    after = play(after, FPS, {"type": "continue_battle", "yes": False})
    assert after["boxes"]["Minas Tirith"] == {"gondor": [3, 0, 1]}
    assert after["armies"]["Minas Tirith"] == {"sauron": [2, 0, 0]}


def test_a_sortie_that_destroys_the_besiegers_ends_the_siege():
    state = _siege({"gondor": [3, 0, 0]}, {"sauron": [1, 0, 0]})
    state.update(turn=FP, dice={FP: ["will"], SH: ["army"]})
    state = play(state, FPS, attack("Minas Tirith", "Minas Tirith", die="will"))
    after = no_cards(state, Dice(6, 2, 2, 2))
    assert after["battle"] is None and not after["boxes"]
    assert after["armies"]["Minas Tirith"] == {"gondor": [3, 0, 0]}


def test_relieving_a_siege_the_garrison_takes_no_part_and_returns_to_the_field():
    state = _siege({"gondor": [2, 0, 0]}, {"sauron": [1, 0, 0]})
    state["armies"]["Lossarnach"] = {"gondor": [2, 0, 0]}
    state.update(turn=FP, dice={FP: ["will"], SH: ["army"]})
    state = play(state, FPS, attack("Lossarnach", "Minas Tirith", die="will"))
    assert state["battle"]["kind"] == "field"
    after = no_cards(state, Dice(6, 2, 2))
    assert len(after["battle"]["rolls"][0]["dice"]) == 2  # only the relieving army rolls
    after = play(after, FPS, advance((2, 0, 0)))
    assert not after["boxes"]
    assert after["armies"]["Minas Tirith"] == {"gondor": [4, 0, 0]}


# --- combat cards: secrecy (§5.1) -------------------------------------------------------------

def test_combat_cards_are_chosen_secretly_and_revealed_together():
    from games.wotr.data import DECKS
    card = DECKS[SH][0]
    state = _battle(PLAIN, "North Ithilien", "Dead Marshes", hands={SH: [card]})
    chosen = play(state, SHS, {"type": "combat_card", "card": card, "x": 0})
    assert card in GAME.secrets(chosen, FPS)
    assert f'"{card}"' not in str(GAME.view(chosen, FPS)).replace("'", '"')
    assert GAME.view(chosen, FPS)["battle"]["chosen"] == {FP: False, SH: True}
    event = given_state(GAME, state).when({"type": "combat_card", "card": card, "x": 0},
                                          SHS).events[0]
    assert GAME.redact(event, FPS).data == {"side": SH, "played": True}
    assert GAME.redact(event, AUDITOR) == event
    assert GAME.view(chosen, SHS)["battle"]["cards"][SH] == card


def test_the_attacker_declares_a_combat_card_first_then_the_defender():
    """Issue 24 point 5, the seed: "공격자가 먼저, 방어자가 나중에 선언하는데요. 사용하기로
    결정하면 카드를 뒤집어서 놓습니다" - the attacker declares first, then the defender; a card
    played is laid face down, so the defender knows whether one was played, not which."""
    from games.wotr.data import DECKS
    sh_card, fp_card = DECKS[SH][0], DECKS[FP][0]
    state = _battle(PLAIN, "North Ithilien", "Dead Marshes", hands={SH: [sh_card], FP: [fp_card]})
    assert GAME.pending(state).keys() == {SHS}  # the attacker (Shadow) alone is asked
    assert GAME.legal_commands(state, FPS) == []
    given_state(GAME, state).when({"type": "combat_card", "card": fp_card, "x": 0},
                                  FPS).rejected("not_your_turn")
    chosen = play(state, SHS, {"type": "combat_card", "card": sh_card, "x": 0})
    assert GAME.pending(chosen).keys() == {FPS}
    seen = GAME.view(chosen, FPS)["battle"]
    assert seen["played"] == {FP: False, SH: True} and seen["cards"][SH] is None
    declined = play(state, SHS, NO_CARD)
    assert GAME.view(declined, FPS)["battle"]["played"] == {FP: False, SH: False}


def test_when_the_free_peoples_attack_they_declare_their_card_first():
    armies = {"Dead Marshes": {"gondor": [2, 0, 0]}, "North Ithilien": {"sauron": [3, 0, 0]}}
    state = board(armies, turn=FP, dice={FP: ["muster_army"], SH: ["army"]})
    state = play(state, FPS, attack("Dead Marshes", "North Ithilien", die="muster_army"))
    assert GAME.pending(state).keys() == {FPS}
    assert GAME.pending(play(state, FPS, NO_CARD)).keys() == {SHS}


# --- views (the decisions block: hands secret; map, dice and reinforcements public) -----------

def test_a_seat_sees_its_own_hand_but_not_the_other_hand_or_the_decks():
    from games.wotr.data import DECKS
    state = board(PLAIN, hands={FP: [DECKS[FP][0]], SH: [DECKS[SH][0]]})
    fp_view = GAME.view(state, FPS)
    assert fp_view["hand"] == [DECKS[FP][0]] and fp_view["hand_counts"] == {FP: 1, SH: 1}
    text = str(fp_view)
    assert DECKS[SH][0] not in text and DECKS[FP][5] not in text
    assert GAME.secrets(state, FPS) >= {DECKS[SH][0], DECKS[FP][5]}
    assert fp_view["armies"] == state["armies"] and fp_view["dice"] == state["dice"]
    assert fp_view["reinforcements"] == state["reinf"]
    assert DECKS[SH][0] in str(GAME.view(state, AUDITOR))


def test_the_other_sides_draw_and_the_deck_order_are_redacted():
    from games.core import Rng
    events = GAME.setup(2, GAME.load_options({"scenario": "south"}), Rng("r"))
    start = GAME.redact(events[0], FPS)
    assert "decks" not in start.data and start.data["deck_counts"] == {FP: 24, SH: 24}
    draws = [e for e in events if e.type == "card_drawn"]
    assert GAME.redact(draws[1], FPS).data == {"side": SH}
    assert GAME.redact(draws[0], FPS) == draws[0]


def test_the_view_starts_with_a_text_summary_for_the_terminal_client():
    import json
    text = json.dumps(GAME.view(board(), FPS), indent=1)[:2000]
    assert "Minas Tirith: gondor 3/1/1" in text and "dice fp event,event" in text


def test_the_siege_ends_when_the_besiegers_march_away():
    state = _siege({"gondor": [2, 0, 0]}, {"sauron": [3, 0, 0]})
    after = play(state, SHS, move("Minas Tirith", "Druadan Forest", (3, 0, 0)))
    after = play(after, SHS, {"type": "end_action"}) if after["action"] else after
    assert not after["boxes"] and after["armies"]["Minas Tirith"] == {"gondor": [2, 0, 0]}


def test_more_besiegers_may_march_in_to_reinforce_a_siege():
    state = _siege({"gondor": [2, 0, 0]}, {"sauron": [3, 0, 0]})
    state["armies"]["Osgiliath"] = {"sauron": [2, 0, 0]}
    after = play(state, SHS, move("Osgiliath", "Minas Tirith", (2, 0, 0)))
    assert after["armies"]["Minas Tirith"] == {"sauron": [5, 0, 0]}
    assert after["boxes"]["Minas Tirith"] == {"gondor": [2, 0, 0]}


def test_nazgul_die_with_their_army_and_return_to_reinforcements():
    """§5.4: Leaders fall with their army; Shadow figures go back to reinforcements."""
    armies = {"Dead Marshes": {"gondor": [2, 0, 0]}, "North Ithilien": {"sauron": [1, 0, 1]}}
    state = no_cards(_battle(armies, "North Ithilien", "Dead Marshes"), Dice(2, 2, 6, 2))
    assert state["battle"] is None and "North Ithilien" not in state["armies"]
    assert state["reinf"]["sauron"][2] == board()["reinf"]["sauron"][2] + 1


def test_the_siege_choice_comes_again_before_every_round():
    from tests.games.wotr_helpers import no_cards as both_pass
    state = play(_battle(MT, "Osgiliath", "Minas Tirith"), FPS, {"type": "withdraw", "yes": False})
    state = both_pass(state, Dice(2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2))
    state = play(state, SHS, {"type": "continue_battle", "yes": True})
    state = play(state, FPS, {"type": "retreat", "to": ""})
    assert state["battle"]["stage"] == "siege_choice" and state["battle"]["round"] == 2
