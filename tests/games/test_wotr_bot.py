"""War of the Ring bots: ``basic`` plays sensible moves from the seat's view alone, and every
bot answer is one of the legal commands."""

from __future__ import annotations

from games.core import Rng
from games.wotr import GAME
from games.wotr.bot import basic
from games.wotr.data import FP, SH
from tests.games.wotr_helpers import FPS, SHS, Dice, attack, board, play


def _choose(state, seat):
    legal = GAME.legal_commands(state, seat)
    command = basic(GAME.view(state, seat), legal, Rng("bot"))
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
