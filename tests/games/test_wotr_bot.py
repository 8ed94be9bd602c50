"""War of the Ring bots: ``basic`` plays sensible moves from the seat's view alone, and every
bot answer is one of the legal commands."""

from __future__ import annotations

from games.core import Rng, Seen
from games.wotr import GAME
from games.wotr.bot import basic
from games.wotr.data import FP, SH
from tests.games.wotr_helpers import FPS, SHS, Dice, attack, board, play


def _choose(state, seat):
    legal = GAME.legal_commands(state, seat)
    command = basic(Seen(seat, GAME.view(state, seat), legal), Rng("bot"))
    assert command in legal
    return command


def test_basic_attacks_when_the_odds_favour_it():
    state = board({"Dead Marshes": {"gondor": [1, 0, 0]}, "North Ithilien": {"sauron": [8, 1, 1]}},
                  dice={FP: ["event"], SH: ["army"]})
    command = _choose(state, SHS)
    assert command["type"] == "attack" and command["to"] == "Dead Marshes"


def test_basic_does_not_attack_against_the_odds():
    state = board({"Dead Marshes": {"gondor": [5, 2, 1]}, "North Ithilien": {"sauron": [2, 0, 0]}},
                  dice={FP: ["event"], SH: ["army"]})
    assert _choose(state, SHS)["type"] != "attack"


def test_basic_captures_an_unguarded_enemy_settlement():
    armies = {"West Harondor": {"southrons": [3, 0, 0]}, "Minas Tirith": {"gondor": [3, 1, 1]}}
    state = board(armies, dice={FP: ["event"], SH: ["army"]})
    command = _choose(state, SHS)
    assert command["type"] == "move" and command["to"] == "Pelargir"


def test_basic_takes_regulars_as_casualties_first():
    armies = {"Dead Marshes": {"gondor": [1, 1, 0]}, "North Ithilien": {"sauron": [3, 0, 0]}}
    state = play(board(armies), SHS, attack("North Ithilien", "Dead Marshes"))
    state = play(state, SHS, {"type": "combat_card", "card": "", "x": 0})
    state = play(state, FPS, {"type": "combat_card", "card": "", "x": 0}, Dice(6, 2, 2, 2, 2))
    assert _choose(state, FPS) == {"type": "take_hit", "nation": "gondor", "kind": "regular"}


def test_basic_withdraws_into_its_stronghold_when_outnumbered():
    armies = {"Minas Tirith": {"gondor": [2, 0, 1]}, "Osgiliath": {"sauron": [8, 2, 1]}}
    state = play(board(armies), SHS, attack("Osgiliath", "Minas Tirith"))
    assert _choose(state, FPS) == {"type": "withdraw", "yes": True}


def test_basic_brings_its_nations_to_war():
    state = board(dice={FP: ["event"], SH: ["muster"]}, war=())
    command = _choose(state, SHS)
    assert command["type"] == "diplomacy"


def test_basic_keeps_its_nazgul_out_of_an_attack_against_the_odds():
    """The seed: the attacker may hold back before the battle the figures that must not die
    ("공격군은 절대 죽어서는 안 될 피규어를 전투 전에 뺄 수 있다")."""
    armies = {"Dead Marshes": {"gondor": [4, 2, 1]}, "North Ithilien": {"sauron": [4, 0, 2]}}
    state = play(board(armies), SHS, attack("North Ithilien", "Dead Marshes"), keep_order=True)
    command = _choose(state, SHS)
    assert command == {"type": "choose_figures",
                       "figures": {"regular": 3, "elite": 0, "leader": 0}}


def test_basic_sends_its_nazgul_when_the_odds_favour_it():
    armies = {"Dead Marshes": {"gondor": [1, 0, 0]}, "North Ithilien": {"sauron": [6, 0, 1]}}
    state = play(board(armies), SHS, attack("North Ithilien", "Dead Marshes"), keep_order=True)
    assert _choose(state, SHS)["figures"] == {"regular": 6, "elite": 0, "leader": 1}


def test_basic_leaves_a_garrison_in_a_threatened_settlement_it_advances_from():
    armies = {"Minas Tirith": {"gondor": [3, 0, 1]}, "Osgiliath": {"sauron": [1, 0, 0]},
              "Druadan Forest": {"sauron": [5, 0, 0]}}
    state = board(armies, dice={FP: ["will"], SH: ["army"]}, turn=FP)
    state = play(state, FPS, attack("Minas Tirith", "Osgiliath", (3, 0, 1), die="will"))
    state = play(state, FPS, {"type": "combat_card", "card": "", "x": 0})  # attacker first
    state = play(state, SHS, {"type": "combat_card", "card": "", "x": 0}, Dice(6, 2, 2, 2, 2))
    assert state["battle"]["stage"] == "advance"
    assert _choose(state, FPS)["figures"] == {"regular": 2, "elite": 0, "leader": 1}


def test_the_expert_takes_basics_figure_choice_without_searching():
    """A figure-choice follow-up (which figures go: choose_figures, advance, besiege) is basic's
    to make: the expert's search spent its think time there and, on a small budget, its noise
    sent the Nazgûl into hopeless attacks (expert vs basic on `south` fell from 72 % to 57 %)."""
    armies = {"Dead Marshes": {"gondor": [4, 2, 1]}, "North Ithilien": {"sauron": [4, 0, 2]}}
    state = play(board(armies), SHS, attack("North Ithilien", "Dead Marshes"), keep_order=True)
    legal = GAME.legal_commands(state, SHS)
    assert len(legal) > 1 and legal[0]["type"] == "choose_figures"
    seen = Seen(SHS, GAME.view(state, SHS), legal, think_ms=5000)
    expert = GAME.bot("expert")
    command = expert(seen, Rng("expert"))
    assert command == basic(seen, Rng("basic")) == {
        "type": "choose_figures", "figures": {"regular": 3, "elite": 0, "leader": 0}}
    assert expert.stats == {"decisions": 1, "playouts": 0}


def test_the_expert_takes_basics_choice_of_the_figures_that_advance():
    armies = {"Minas Tirith": {"gondor": [3, 0, 1]}, "Osgiliath": {"sauron": [1, 0, 0]},
              "Druadan Forest": {"sauron": [5, 0, 0]}}
    state = board(armies, dice={FP: ["will"], SH: ["army"]}, turn=FP)
    state = play(state, FPS, attack("Minas Tirith", "Osgiliath", (3, 0, 1), die="will"))
    state = play(state, FPS, {"type": "combat_card", "card": "", "x": 0})
    state = play(state, SHS, {"type": "combat_card", "card": "", "x": 0}, Dice(6, 2, 2, 2, 2))
    legal = GAME.legal_commands(state, FPS)
    assert len(legal) > 1 and legal[0]["type"] == "advance"
    seen = Seen(FPS, GAME.view(state, FPS), legal, think_ms=5000)
    expert = GAME.bot("expert")
    assert expert(seen, Rng("expert")) == basic(seen, Rng("basic"))
    assert expert.stats["playouts"] == 0
