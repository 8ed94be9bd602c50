"""Shared set-ups for the War of the Ring rules tests: a board with chosen armies, dice and
political positions, scripted dice, and a helper that plays a command and returns the state."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

from games.core import Command, Event, Rng, State
from games.wotr import GAME
from games.wotr.data import FP, SH
from tests.games.dsl import given_state

FPS, SHS = 0, 1  # seats: the Free Peoples play seat 0, the Shadow seat 1


class Dice(Rng):
    """Scripted dice: ``roll`` returns the given results in order (and fails when they run out,
    so a test states every die the rule rolls)."""

    def __init__(self, *rolls: int):
        super().__init__("scripted")
        self.rolls = list(rolls)

    def roll(self, sides: int = 6) -> int:
        assert self.rolls, "the rules rolled more dice than the test scripted"
        return self.rolls.pop(0)


def board(armies: dict[str, Any] | None = None, *, dice: dict[str, list[str]] | None = None,
          turn: str = SH, war: tuple[str, ...] = ("sauron", "isengard", "southrons", "gondor",
                                                     "rohan"),
          scenario: str = "south", hands: dict[str, list[str]] | None = None) -> State:
    """A ``scenario`` board in its first round with ``armies`` (default: the starting ones),
    ``dice`` unused, ``turn`` to act and the Nations in ``war`` At War (others as at start)."""
    state = GAME.fold(GAME.setup(2, GAME.load_options({"scenario": scenario}), Rng("board")))
    if armies is not None:
        state["armies"] = copy.deepcopy(armies)
    state["dice"] = dice if dice is not None else {FP: ["event", "event"], SH: ["army", "army"]}
    state["turn"] = turn
    for side in (FP, SH):
        state["decks"][side] = state["hands"][side] + state["decks"][side]
        state["hands"][side] = []
    if hands:
        for side, cards in hands.items():
            for card in cards:
                state["decks"][side].remove(card)
            state["hands"][side] = list(cards)
    for nation in war:
        state["politics"][nation] = {"step": 0, "active": True}
    return state


def play(state: State, seat: int, command: Command, rng: Rng | None = None,
         keep_order: bool = False) -> State:
    """``state`` after ``seat`` plays ``command``; a move or attack sent without its figures
    then takes every figure that may go (the first choice offered) when the seat is asked,
    unless ``keep_order`` (the question is left open)."""
    after = given_state(GAME, state).when(command, seat, rng or Rng("play")).then_state()
    if after.get("order") and not keep_order:
        after = play(after, seat, GAME.legal_commands(after, seat)[0], rng)
    return after


def events(state: State, seat: int, command: Command, rng: Rng | None = None) -> list[Event]:
    return given_state(GAME, state).when(command, seat, rng or Rng("play")).events


def figures(regular: int = 0, elite: int = 0, leader: int = 0) -> dict[str, int]:
    return {"regular": regular, "elite": elite, "leader": leader}


def attack(frm: str, to: str, go: tuple[int, int, int] | None = None, die: str = "army",
           ) -> Command:
    """An attack with ``go`` = (Regulars, Elites, Leaders), or without figures (then the seat
    is asked which go when the army offers a choice)."""
    command = {"type": "attack", "die": die, "from": frm, "to": to}
    if go is not None:
        command["figures"] = figures(*go)
    return command


def move(frm: str, to: str, go: tuple[int, int, int] | None = None, die: str = "army",
         kind: str = "move") -> Command:
    """A move (or ``second_move``) of ``go`` = (Regulars, Elites, Leaders), as ``attack``."""
    command = {"type": kind, "from": frm, "to": to}
    if kind == "move":
        command["die"] = die
    if go is not None:
        command["figures"] = figures(*go)
    return command


def advance(go: tuple[int, int, int] = (0, 0, 0), kind: str = "advance") -> Command:
    """Advance (or ``besiege``) with ``go`` = (Regulars, Elites, Leaders); none by default."""
    return {"type": kind, "figures": figures(*go)}


NO_CARD: Command = {"type": "combat_card", "card": "", "x": 0}


def no_cards(state: State, rng: Rng) -> State:
    """Both sides play no combat card (the attacker's choice first, then the defender's)."""
    b = state["battle"]
    first, second = (SHS, FPS) if b["attacker"] == SH else (FPS, SHS)
    state = play(state, first, NO_CARD)
    return play(state, second, NO_CARD, rng)


def random_play(scenario: str, seats: int, name: str,
                steps: int) -> Iterator[tuple[State, int, list[Command]]]:
    """A seeded random game of ``scenario`` with ``seats`` seats: before each of its first
    ``steps`` commands, the state, the first pending seat and its legal commands (then one of
    them at random is played); stops when the game is over."""
    state = GAME.fold(GAME.setup(seats, GAME.load_options({"scenario": scenario}),
                                 Rng(f"{name}-{scenario}")))
    for step in range(steps):
        if GAME.result(state) is not None:
            return
        seat = sorted(GAME.pending(state))[0]
        legal = GAME.legal_commands(state, seat)
        yield state, seat, legal
        command = legal[Rng(f"{name}-pick-{scenario}", step).below(len(legal))]
        state = GAME.fold(GAME.decide(state, command, seat, Rng(name, step)),
                          GAME.copy_state(state))
