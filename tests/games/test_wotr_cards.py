"""War of the Ring combat cards (wotr.md §12, the army-only Strategy-deck effects), each with
scripted dice. Dice order: pre-roll card attacks, the attacker's combat roll and re-rolls, the
defender's, then the initiative-7 effects."""

from __future__ import annotations

import pytest

from games.wotr import GAME
from games.wotr.data import CARDS, FP, SH
from tests.games.dsl import given_state
from tests.games.wotr_helpers import FPS, NO_CARD, SHS, Dice, attack, board, play


def card(combat: str) -> str:
    return next(c.id for c in CARDS.values() if c.combat == combat)


def fight(sh, fp, *, sh_card="", fp_card="", x=0, dice=(), frm="North Ithilien",
          to="Dead Marshes", fp_nation="gondor", sh_nation="sauron"):
    """SH attacks from ``frm`` into ``to``; both choose their cards; returns the state."""
    hands = {SH: [sh_card] if sh_card else [], FP: [fp_card] if fp_card else []}
    state = board({to: {fp_nation: fp}, frm: {sh_nation: sh}}, hands=hands)
    state = play(state, SHS, attack(frm, to))
    if state["battle"]["stage"] == "siege_choice":
        state = play(state, FPS, {"type": "withdraw", "yes": False})
    state = play(state, SHS, {"type": "combat_card", "card": sh_card, "x": x})
    return play(state, FPS, {"type": "combat_card", "card": fp_card, "x": 0}, Dice(*dice))


def test_daylight_limits_the_shadow_to_three_dice():
    state = fight([5, 0, 0], [2, 0, 0], fp_card=card("daylight"), dice=(2, 2, 2, 2, 2))
    assert len(state["battle"]["rolls"][0]["dice"]) == 3


def test_valour_adds_one_to_free_peoples_combat_dice():
    state = fight([3, 0, 0], [1, 1, 0], fp_card=card("valour"), dice=(2, 2, 2, 4, 4))
    assert state["battle"]["rolls"][1]["hits"] == 2


def test_advantageous_position_takes_one_from_shadow_dice_at_home():
    state = fight([3, 0, 0], [2, 0, 0], fp_card=card("advantageous_position"),
                  dice=(5, 5, 6, 2, 2), frm="Dead Marshes", to="Druadan Forest")
    assert state["battle"]["rolls"][0]["hits"] == 1  # a 5 - 1 misses; a natural 6 still hits


def test_advantageous_position_needs_a_free_peoples_nation_region():
    state = board({"Dead Marshes": {"gondor": [2, 0, 0]}, "North Ithilien": {"sauron": [3, 0, 0]}},
                  hands={FP: [card("advantageous_position")]})
    state = play(play(state, SHS, attack("North Ithilien", "Dead Marshes")), SHS, NO_CARD)
    given_state(GAME, state).when({"type": "combat_card", "card": card("advantageous_position"),
                                   "x": 0}, FPS).rejected("requirement_not_met")


def test_confusion_turns_shadow_ones_into_hits_on_the_shadow_and_they_are_not_re_rolled():
    state = fight([3, 0, 1], [2, 0, 0], fp_card=card("confusion"), dice=(1, 1, 2, 5, 2, 2))
    assert state["battle"]["rolls"][0]["rerolls"] == [5]
    assert state["battle"]["att"] == {"sauron": [1, 0, 1]}
    assert state["armies"]["Dead Marshes"] == {"gondor": [1, 0, 0]}


def test_no_quarter_adds_a_hit_when_the_free_peoples_hit():
    state = fight([3, 0, 0], [2, 0, 0], fp_card=card("no_quarter"), dice=(2, 2, 2, 5, 2))
    assert state["battle"]["att"] == {"sauron": [1, 0, 0]}


def test_shield_wall_cancels_one_of_two_hits():
    state = fight([3, 0, 0], [2, 0, 0], fp_card=card("shield_wall"), dice=(5, 5, 2, 2, 2))
    assert state["armies"]["Dead Marshes"] == {"gondor": [1, 0, 0]}


def test_swarm_of_bats_cancels_the_free_peoples_card():
    state = fight([5, 0, 0], [2, 0, 0], sh_card=card("swarm_of_bats"),
                  fp_card=card("daylight"), dice=(2, 2, 2, 2, 2, 2, 2))
    assert len(state["battle"]["rolls"][0]["dice"]) == 5  # Daylight had no effect


def test_swarm_of_bats_without_a_free_peoples_card_improves_re_rolls():
    state = fight([3, 0, 1], [2, 0, 0], sh_card=card("swarm_of_bats"), dice=(2, 2, 2, 4, 2, 2))
    assert state["battle"]["rolls"][0]["hits"] == 1


def test_deadly_strife_gives_both_armies_two():
    state = fight([3, 0, 0], [2, 0, 0], sh_card=card("deadly_strife"), dice=(3, 3, 2, 3, 2))
    assert [r["hits"] for r in state["battle"]["rolls"]] == [2, 1]


def test_desperate_battle_gives_both_armies_one():
    state = fight([3, 0, 0], [2, 0, 0], sh_card=card("desperate_battle"), dice=(4, 4, 3, 4, 2))
    assert [r["hits"] for r in state["battle"]["rolls"]] == [2, 1]


def test_relentless_assault_trades_own_hits_for_plus_one_each():
    state = fight([4, 0, 0], [2, 0, 0], sh_card=card("relentless_assault"), x=2,
                  dice=(3, 3, 2, 2))
    assert state["battle"]["rolls"][0]["mod"] == 2
    assert state["battle"]["att"] == {"sauron": [2, 0, 0]}
    assert "Dead Marshes" not in state["armies"]


def test_devilry_of_orthanc_needs_isengard_against_a_stronghold():
    state = fight([3, 0, 0], [1, 0, 0], sh_card=card("devilry_of_orthanc"), dice=(4, 4, 2, 2),
                  frm="Fords of Isen", to="Helm's Deep", fp_nation="rohan", sh_nation="isengard")
    assert state["battle"]["rolls"][0]["hits"] == 2
    state = board({"Dead Marshes": {"gondor": [2, 0, 0]},
                   "North Ithilien": {"isengard": [3, 0, 0]}},
                  hands={SH: [card("devilry_of_orthanc")]})
    state = play(state, SHS, attack("North Ithilien", "Dead Marshes"))
    given_state(GAME, state).when({"type": "combat_card", "card": card("devilry_of_orthanc"),
                                   "x": 0}, SHS).rejected("requirement_not_met")


def test_mumakil_adds_one_and_a_hit_when_the_shadow_scores_more():
    state = fight([2, 1, 0], [3, 0, 0], sh_card=card("mumakil"), dice=(4, 4, 2, 2, 2, 2),
                  sh_nation="southrons")
    assert state["battle"]["rolls"][0]["mod"] == 1
    assert "Dead Marshes" not in state["armies"]  # 2 hits + 1 for scoring more


def test_onslaught_trades_own_hits_for_dice_hitting_on_four():
    state = fight([4, 0, 0], [3, 0, 0], sh_card=card("onslaught"), x=2,
                  dice=(2, 2, 2, 2, 2, 2, 2, 4, 3))
    assert state["battle"]["att"] == {"sauron": [2, 0, 0]}
    assert state["armies"]["Dead Marshes"] == {"gondor": [2, 0, 0]}


def test_great_host_scores_a_hit_with_twice_the_units():
    state = fight([4, 0, 0], [2, 0, 0], sh_card=card("great_host"), dice=(2, 2, 2, 2, 2, 2))
    assert state["armies"]["Dead Marshes"] == {"gondor": [1, 0, 0]}
    state = fight([3, 0, 0], [2, 0, 0], sh_card=card("great_host"), dice=(2, 2, 2, 2, 2))
    assert state["armies"]["Dead Marshes"] == {"gondor": [2, 0, 0]}


def test_we_come_to_kill_attacks_again_with_one_die_per_elite():
    state = fight([2, 2, 0], [3, 0, 0], sh_card=card("we_come_to_kill"),
                  dice=(2, 2, 2, 2, 2, 2, 2, 5, 6))
    assert state["armies"]["Dead Marshes"] == {"gondor": [1, 0, 0]}


def test_charge_attacks_before_the_roll_with_one_die_per_elite():
    state = fight([3, 0, 0], [1, 2, 0], fp_card=card("charge"), dice=(5, 2, 2, 2, 2, 2, 2))
    assert state["battle"]["rolls"][0]["why"] == "charge"
    assert len(state["battle"]["rolls"][1]["dice"]) == 2  # the Shadow lost a unit first


def test_sudden_strike_attacks_with_dice_equal_to_leadership():
    state = fight([3, 0, 0], [2, 0, 1], fp_card=card("sudden_strike"), dice=(6, 2, 2, 2, 2, 2))
    assert state["battle"]["att"] == {"sauron": [2, 0, 0]}


def test_scouts_retreat_before_the_combat_roll():
    state = fight([3, 0, 0], [2, 0, 0], fp_card=card("scouts"))
    assert state["battle"]["stage"] == "scouts" and GAME.pending(state).keys() == {FPS}
    after = play(state, FPS, {"type": "retreat", "to": "Osgiliath"})
    assert after["armies"]["Osgiliath"] == {"gondor": [2, 0, 0]}
    assert after["battle"]["stage"] == "advance" and not after["battle"]["rolls"]


def test_a_card_requirement_must_be_met():
    state = board({"Dead Marshes": {"gondor": [2, 0, 0]}, "North Ithilien": {"sauron": [3, 0, 0]}},
                  hands={FP: [card("charge")]})
    state = play(play(state, SHS, attack("North Ithilien", "Dead Marshes")), SHS, NO_CARD)
    given_state(GAME, state).when({"type": "combat_card", "card": card("charge"), "x": 0},
                                  FPS).rejected("requirement_not_met")


@pytest.mark.parametrize("combat", ["daylight", "shield_wall"])
def test_played_cards_are_discarded_at_the_end_of_the_round(combat):
    state = fight([3, 0, 0], [2, 0, 0], fp_card=card(combat), dice=(2, 2, 2, 2, 2))
    assert state["discards"][FP] == [card(combat)] and state["hands"][FP] == []
