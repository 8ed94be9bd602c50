"""Issue 24, points 1, 2 and 6: the player chooses the figures that move, attack and advance,
kind by kind; the attacker's own region is never the battlefield; a Stronghold falls when its
garrison dies while the besieger still has a unit in the region. Each test quotes its rule (the
Korean seed file 002_…, which wins over wotr.md, then the English)."""

from __future__ import annotations

import pytest

from games.core import Event
from games.wotr import GAME, orders
from games.wotr.data import FP, SH
from games.wotr.engine import invariant_breaks, vp
from games.wotr.figures import options
from games.wotr.model import figures_total, transfer
from games.wotr.seats import side_of
from tests.games.dsl import given_state
from tests.games.wotr_helpers import (
    FPS,
    SHS,
    Dice,
    advance,
    attack,
    board,
    events,
    figures,
    move,
    no_cards,
    play,
    random_play,
)

PLAIN = {"Dead Marshes": {"gondor": [2, 0, 0]}, "North Ithilien": {"sauron": [4, 0, 1]}}


# --- point 1: the player chooses the figures, kind by kind ------------------------------------

def test_a_moving_army_may_leave_its_nazgul_behind():
    """Seed: "이렇게 이동하는 군대는 동료나 부하, 지도자/나즈굴이 포함되도 되고 안 되도 됩니다" —
    an army that moves may or may not include its Leaders/Nazgûl."""
    state = board({"Minas Morgul": {"sauron": [5, 0, 1]}})
    after = play(state, SHS, move("Minas Morgul", "North Ithilien", (3, 0, 0)))
    assert after["armies"]["Minas Morgul"] == {"sauron": [2, 0, 1]}
    assert after["armies"]["North Ithilien"] == {"sauron": [3, 0, 0]}


def test_any_mix_of_regulars_elites_and_leaders_may_go():
    """wotr.md §3 (splitting): any part of an army may move; the rest stays."""
    state = board({"Minas Tirith": {"gondor": [3, 2, 2]}}, dice={FP: ["will"], SH: ["army"]},
                  turn=FP)
    after = play(state, FPS, move("Minas Tirith", "Lossarnach", (1, 2, 1), die="will"))
    assert after["armies"]["Minas Tirith"] == {"gondor": [2, 0, 1]}
    assert after["armies"]["Lossarnach"] == {"gondor": [1, 2, 1]}


def test_leaders_move_alone_only_to_join_their_sides_units():
    """Seed: "자유민족 지도자 혼자 부대가 없는 지역으로 이동시켜서도 안 되고" — a Free Peoples
    Leader may not move alone into a region with no units (it may join units)."""
    armies = {"Minas Tirith": {"gondor": [2, 0, 2]}}
    state = board(armies, dice={FP: ["will"], SH: ["army"]}, turn=FP)
    given_state(GAME, state).when(move("Minas Tirith", "Lossarnach", (0, 0, 1), die="will"),
                                  FPS).rejected("needs_unit")
    state = board({**armies, "Lossarnach": {"gondor": [1, 0, 0]}},
                  dice={FP: ["will"], SH: ["army"]}, turn=FP)
    after = play(state, FPS, move("Minas Tirith", "Lossarnach", (0, 0, 1), die="will"))
    assert after["armies"]["Lossarnach"] == {"gondor": [1, 0, 1]}
    assert after["armies"]["Minas Tirith"] == {"gondor": [2, 0, 1]}


def test_a_leader_or_nazgul_is_never_left_without_a_unit():
    """Seed: "자유민족 지도자만 남겨놓고 이동해서도 안 됩니다" — you may not move away and leave a
    Free Peoples Leader alone (a lone Nazgûl would go back to reinforcements: refused too)."""
    state = board({"Minas Morgul": {"sauron": [2, 0, 1]}})
    given_state(GAME, state).when(move("Minas Morgul", "Gorgoroth", (2, 0, 0)), SHS).rejected(
        "leader_left_alone")
    state = board(PLAIN)
    given_state(GAME, state).when(attack("North Ithilien", "Dead Marshes", (4, 0, 0)),
                                  SHS).rejected("leader_left_alone")


def test_a_character_die_moves_a_part_that_holds_a_leader():
    """wotr.md §3 [DZ-move]: with a Character die, if the army splits the moving part must
    include a Leader/Nazgûl."""
    state = board({"Minas Morgul": {"sauron": [5, 0, 1]}},
                  dice={FP: ["event"], SH: ["character"]})
    given_state(GAME, state).when(move("Minas Morgul", "Gorgoroth", (3, 0, 0),
                                       die="character"), SHS).rejected("needs_leader")
    after = play(state, SHS, move("Minas Morgul", "Gorgoroth", (3, 0, 1), die="character"))
    assert after["armies"]["Gorgoroth"] == {"sauron": [3, 0, 1]}


def test_the_attacker_attacks_with_as_many_figures_as_wanted_and_keeps_its_nazgul_out():
    """Seed: "공격군을 선언할 때에는 그 군대가 있는 지역의 피규어들 중 원하는 만큼으로 하면
    됩니다" and "공격군은 절대 죽어서는 안 될 피규어를 전투 전에 뺄 수 있다" — the attacker
    declares as many of the region's figures as it wants, and may hold back before the battle
    figures that must not die (here the Nazgûl, who would die with a wiped-out attack)."""
    state = play(board(PLAIN), SHS, attack("North Ithilien", "Dead Marshes", (3, 0, 0)))
    assert state["battle"]["att"] == {"sauron": [3, 0, 0]}
    after = no_cards(state, Dice(2, 2, 2, 6, 6))  # SH misses; FP hits twice
    assert after["battle"]["att"] == {"sauron": [1, 0, 0]}
    assert after["armies"]["North Ithilien"] == {"sauron": [2, 0, 1]}  # the Nazgûl is safe


def test_units_of_each_kind_come_from_the_nations_that_may_go():
    """wotr.md §4: units not At War stay out of the attack; counts name kinds, the units come
    from the Nations that may go."""
    armies = {"Dead Marshes": {"gondor": [2, 0, 0]},
              "North Ithilien": {"southrons": [2, 0, 0], "sauron": [2, 0, 0]}}
    state = board(armies, war=("sauron",))
    after = play(state, SHS, attack("North Ithilien", "Dead Marshes", (2, 0, 0)))
    assert after["battle"]["att"] == {"sauron": [2, 0, 0]}
    given_state(GAME, state).when(attack("North Ithilien", "Dead Marshes", (3, 0, 0)),
                                  SHS).rejected("not_at_war")


def test_without_figures_the_same_seat_is_asked_which_go_the_most_first():
    """Issue 24: a two-step choice (where to, then which figures) keeps the legal commands short:
    one attack per target, then one command per choice of figures."""
    state = board(PLAIN)
    attacks = [c for c in GAME.legal_commands(state, SHS) if c["type"] == "attack"]
    assert attacks == [{"type": "attack", "die": "army", "from": "North Ithilien",
                        "to": "Dead Marshes"}]
    declared = events(state, SHS, attacks[0])
    assert [e.type for e in declared] == ["order_declared"]
    after = given_state(GAME, state).when(attacks[0], SHS).then_state()
    assert GAME.pending(after)[SHS].kinds == ("choose_figures",)
    choices = GAME.legal_commands(after, SHS)
    assert choices[0] == {"type": "choose_figures", "figures": figures(4, 0, 1)}
    assert {"type": "choose_figures", "figures": figures(1, 0, 0)} in choices
    assert {"type": "choose_figures", "figures": figures(0, 0, 1)} not in choices  # no unit
    assert {"type": "choose_figures", "figures": figures(4, 0, 0)} not in choices  # Nazgûl alone
    assert GAME.default_command(after, SHS) == choices[0]
    fought = play(after, SHS, {"type": "choose_figures", "figures": figures(2, 0, 0)})
    assert fought["battle"]["att"] == {"sauron": [2, 0, 0]} and fought["order"] is None
    assert fought["dice"][SH] == ["army"]  # the die is spent when the figures are chosen


def test_an_army_with_one_choice_goes_at_once():
    state = board({"Dead Marshes": {"gondor": [2, 0, 0]}, "North Ithilien": {"sauron": [1, 0, 0]}})
    after = given_state(GAME, state).when(attack("North Ithilien", "Dead Marshes"),
                                          SHS).then_state()
    assert after["battle"]["att"] == {"sauron": [1, 0, 0]} and after["order"] is None


def test_some_or_all_of_the_attackers_may_advance():
    """Seed: "방어군이 전멸하거나 후퇴했다면 공격군 중 일부나 전부가 그 지역으로 들어갈 수
    있습니다" — when the defender is eliminated or retreats, some or all of the attackers may
    enter the region."""
    state = play(board(PLAIN), SHS, attack("North Ithilien", "Dead Marshes", (4, 0, 1)))
    state = no_cards(state, Dice(6, 6, 2, 2, 2, 2, 2))  # the defenders are wiped out
    assert state["battle"]["stage"] == "advance"
    offered = GAME.legal_commands(state, SHS)
    assert offered[0] == advance((4, 0, 1)) and offered[-1] == advance((0, 0, 0))
    after = play(state, SHS, advance((2, 0, 1)))
    assert after["armies"]["Dead Marshes"] == {"sauron": [2, 0, 1]}
    assert after["armies"]["North Ithilien"] == {"sauron": [2, 0, 0]}
    given_state(GAME, state).when(advance((0, 0, 1)), SHS).rejected("needs_unit")
    given_state(GAME, state).when(advance((4, 0, 0)), SHS).rejected("leader_left_alone")


def test_besiegers_choose_who_advances_to_lay_the_siege():
    """wotr.md §7: after the defender retreats into its Stronghold the attacker may advance
    (some or all of its attackers); the Stronghold is then besieged."""
    armies = {"Minas Tirith": {"gondor": [3, 1, 1]}, "Osgiliath": {"sauron": [6, 1, 1]}}
    state = play(board(armies), SHS, attack("Osgiliath", "Minas Tirith", (6, 1, 1)))
    state = play(state, FPS, {"type": "withdraw", "yes": True})
    after = play(state, SHS, advance((4, 1, 0), kind="besiege"))
    assert after["armies"]["Minas Tirith"] == {"sauron": [4, 1, 0]}
    assert after["armies"]["Osgiliath"] == {"sauron": [2, 0, 1]}
    assert after["boxes"]["Minas Tirith"] == {"gondor": [3, 1, 1]}


# --- point 2: the attacker's region is never the battlefield ----------------------------------

def test_the_attackers_region_stays_its_own_and_is_never_a_retreat_destination():
    """Seed: "공격은 다른 전쟁 게임에서와 달리, 공격군이 전투 지역으로 들어가지 않습니다" — unlike
    other war games the attacking army does not enter the battle's region: its figures stay in
    their region (which stays the attacker's) and the defender may not retreat into it."""
    armies = {"Dead Marshes": {"gondor": [2, 0, 0]}, "North Ithilien": {"sauron": [3, 0, 0]}}
    state = play(board(armies), SHS, attack("North Ithilien", "Dead Marshes", (3, 0, 0)))
    assert state["armies"]["North Ithilien"] == {"sauron": [3, 0, 0]}  # the whole army attacks
    state = no_cards(state, Dice(2, 2, 2, 2, 2))
    state = play(state, SHS, {"type": "continue_battle", "yes": True})
    retreats = {c["to"] for c in GAME.legal_commands(state, FPS)}
    assert "North Ithilien" not in retreats and "Osgiliath" in retreats
    given_state(GAME, state).when({"type": "retreat", "to": "North Ithilien"}, FPS).rejected(
        "not_free")
    after = play(state, FPS, {"type": "retreat", "to": "Osgiliath"})
    after = play(after, SHS, advance((0, 0, 0)))  # the attacker stays home
    assert after["armies"]["North Ithilien"] == {"sauron": [3, 0, 0]}
    assert after["armies"]["Osgiliath"] == {"gondor": [2, 0, 0]}
    assert invariant_breaks(after) == []


def test_the_invariant_check_finds_two_sides_in_one_region():
    """The property test's own check fails on the state issue 24 reported (both sides in the
    attacker's region after a retreat into it)."""
    state = board({"North Ithilien": {"sauron": [3, 0, 0]}})
    transfer(state, "reinf", "North Ithilien", {"gondor": [2, 0, 0]})
    assert invariant_breaks(state) == [
        "North Ithilien: both sides in its field: {'sauron': [3, 0, 0], 'gondor': [2, 0, 0]}"]
    state = board({"Gorgoroth": {"sauron": [11, 0, 0]}})
    assert invariant_breaks(state) == ["Gorgoroth: 11 units, over 10"]


def test_a_log_from_before_the_change_folds_to_the_same_armies():
    """Logs written when the attacking force was lifted out of its region (``army_moved`` into
    "att", back with ``attackers_returned``) fold to the same armies now that it stays there."""
    state = board({"Dead Marshes": {"gondor": [2, 0, 0]}, "North Ithilien": {"sauron": [3, 0, 0]}})
    old = [Event("battle_started", {"attacker": SH, "defender": FP, "kind": "field",
                                    "region": "Dead Marshes", "origin": "North Ithilien",
                                    "def_loc": "Dead Marshes", "city": False}),
           Event("army_moved", {"src": "North Ithilien", "dst": "att",
                                "figures": {"sauron": [3, 0, 0]}}),
           Event("casualties_removed", {"src": "att", "dst": "reinf",
                                        "figures": {"sauron": [1, 0, 0]}}),
           Event("attackers_returned", {"src": "att", "dst": "North Ithilien",
                                        "figures": {"sauron": [2, 0, 0]}}),
           Event("battle_ended", {"attacker": SH, "region": "Dead Marshes"})]
    after = GAME.fold(old, state)
    assert after["armies"]["North Ithilien"] == {"sauron": [2, 0, 0]}
    assert figures_total(after)["sauron"] == figures_total(state)["sauron"]


# --- point 6: a Stronghold falls to the rearguard ---------------------------------------------

def test_a_stronghold_falls_when_its_garrison_dies_and_only_the_rearguard_remains():
    """wotr.md §7 Capture [DZ-capture]: "the Stronghold falls when all its defending units are
    eliminated and the besieger still has ≥1 unit in the region" — the rearguard that stayed out
    of the siege battle counts. (The seed stops before sieges: "지형에 따른 남은 전투 종류는
    다음 시간에 설명하도록 하죠"; its rule for entering is "들어간 지역이 정착지라면 그곳을
    점령": a Settlement entered is captured.)"""
    state = board({"Minas Tirith": {"sauron": [3, 0, 1]}})
    state["boxes"]["Minas Tirith"] = {"gondor": [1, 0, 0]}
    state = play(state, SHS, attack("Minas Tirith", "Minas Tirith", (1, 0, 0)))
    after = no_cards(state, Dice(6, 6))  # each side's one die hits: both forces are wiped out
    assert after["battle"] is None and "Minas Tirith" not in after["boxes"]
    assert after["armies"]["Minas Tirith"] == {"sauron": [2, 0, 1]}
    assert after["control"]["Minas Tirith"] == SH and vp(after, SH) == 2
    assert invariant_breaks(after) == []


def test_a_stronghold_stays_the_defenders_when_no_besieger_unit_remains():
    """wotr.md §7 Siege end: either army completely eliminated ends the siege; with no besieger
    unit left in the region nobody captures the Stronghold."""
    state = board({"Minas Tirith": {"sauron": [1, 0, 0]}})
    state["boxes"]["Minas Tirith"] = {"gondor": [1, 0, 0]}
    state = play(state, SHS, attack("Minas Tirith", "Minas Tirith"))
    after = no_cards(state, Dice(6, 6))
    assert after["control"]["Minas Tirith"] == FP
    assert "Minas Tirith" not in after["armies"] and "Minas Tirith" not in after["boxes"]



@pytest.mark.parametrize("scenario", ["south", "full"])
def test_the_figure_choices_counted_are_those_the_rules_accept_one_by_one(scenario):
    """figures.Split.options counts check_split's rules rather than trying every count: over
    random games, for every move and attack a seat may declare, its choices are exactly the
    counts whose ``take`` is accepted (figures.options over take), the most first."""
    compared = 0
    for state, seat, legal in random_play(scenario, 2, "choices", 300):
        for command in legal:
            if command["type"] not in ("move", "attack", "second_move"):
                continue
            split = orders._split(state, side_of(state, seat), {**command,
                                                                "from_": command["from"]})
            assert split.options() == options(split.army, split._takes), command
            compared += 1
    assert compared > 200
