"""Faker Blue commands (marshmallow schemas), options, event wire names and the state's shape.

State (plain JSON data, folded by rules.evolve)::

    seats, options (resolved numbers), first (the first player), turn, turn_number,
    step: "use" | "react" | "over",
    deck: [card ids, top first], hands: [[card ids]], health: [int], supply: int,
    alive: [bool], out: [[seats eliminated together]], public: [ids], hidden: [ids],
    known: {str(seat): [ids seen with an Alchemist]}, play: None | window, result: None | dict

A reaction window (``play``) holds the face-down cards on the table as numbered slots (slot 0 is
the attack; defences follow) and the hits: one effect aimed at one player. A Wizard adds a child
hit aimed at the player it names, with the Wizard's user as beneficiary (``source``)::

    {attacker, declared, target,
     cards: [{slot, owner, card, declared, hit, redirect, challenger, truthful,
              declined: [seats that declined to challenge it]}],
     hits: [{id, target, source, parent, defence, declined}],
     defence_open: bool, passed: [rules version 1 only: seats done challenging]}
"""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields, validate

from games.core import ClockOptions, State
from games.faker_blue.data import AMOUNTS, DEFAULTS, KINDS

# Commands: imperative wire names (STYLE.md rule 5).
USE, DEFEND, NO_DEFENCE, CHALLENGE, NO_CHALLENGE = (
    "use", "defend", "no_defence", "challenge", "no_challenge")

# Events: past tense, stable wire names.
GAME_STARTED = "faker_blue_started"
CARDS_DEALT = "cards_dealt"
TURN_STARTED = "turn_started"
CARD_DRAWN = "card_drawn"
CARD_USED = "card_used"
DEFENCE_DECLARED = "defence_declared"
DEFENCE_DECLINED = "defence_declined"
CHALLENGE_PASSED = "challenge_passed"
CHALLENGE_MADE = "challenge_made"
CARD_REVEALED = "card_revealed"
HEALTH_LOST = "health_lost"
HEALTH_GAINED = "health_gained"
HEALTH_STOLEN = "health_stolen"
CARD_INSPECTED = "card_inspected"
CARDS_DISCARDED = "cards_discarded"
PLAYERS_ELIMINATED = "players_eliminated"
GAME_ENDED = "game_ended"

_count = fields.Integer(validate=validate.Range(min=0, max=20))
_small = validate.Range(min=0, max=10)


class FakerBlueOptions(ClockOptions):
    """Beginner mode and every PROPOSED number of fakerblue.md's decisions block."""

    beginner = fields.Boolean(load_default=DEFAULTS.beginner)
    # None: take it from the health/supply table for the mode and player count.
    health = fields.Integer(load_default=None, allow_none=True,
                            validate=validate.Range(min=1, max=30))
    supply = fields.Integer(load_default=None, allow_none=True,
                            validate=validate.Range(min=0, max=30))
    liar_penalty = fields.Integer(load_default=DEFAULTS.liar_penalty, validate=_small)
    challenger_penalty = fields.Integer(load_default=DEFAULTS.challenger_penalty, validate=_small)
    # Partial overrides of the card table; kinds not named keep their defaults.
    counts = fields.Dict(keys=fields.String(validate=validate.OneOf(list(KINDS))),
                         values=_count, load_default=dict)
    values = fields.Dict(keys=fields.String(validate=validate.OneOf(list(KINDS))),
                         values=fields.Integer(validate=validate.Range(min=0, max=100)),
                         load_default=dict)
    amounts = fields.Dict(keys=fields.String(validate=validate.OneOf(list(AMOUNTS))),
                          values=fields.Integer(validate=_small), load_default=dict)


class Use(Schema):
    """Put one hand card face down, declare it as an attack-phase kind, name a target."""

    card = fields.String(required=True)
    declare = fields.String(required=True, validate=validate.OneOf(list(KINDS)))
    target = fields.Integer(load_default=None, allow_none=True)


class Defend(Schema):
    """Put the hand card face down as a Shield-bearer or a Wizard (redirecting to a player)."""

    card = fields.String(required=True)
    declare = fields.String(required=True, validate=validate.OneOf(list(KINDS)))
    redirect = fields.Integer(load_default=None, allow_none=True)


class Challenge(Schema):
    """Challenge the face-down card in ``slot`` (0 is the attack)."""

    slot = fields.Integer(required=True, validate=validate.Range(min=0))


class Nothing(Schema):
    """A pass: no defence, or no (further) challenge."""


COMMANDS: dict[str, type[Schema]] = {
    USE: Use, DEFEND: Defend, NO_DEFENCE: Nothing, CHALLENGE: Challenge, NO_CHALLENGE: Nothing,
}


def clone(state: State) -> State:
    """A copy of ``state`` deep enough for evolve to mutate (faster than copy.deepcopy)."""
    out: dict[str, Any] = dict(state)
    for key in ("deck", "health", "alive", "public", "hidden"):
        out[key] = list(state[key])
    out["hands"] = [list(hand) for hand in state["hands"]]
    out["out"] = [list(group) for group in state["out"]]
    out["known"] = {seat: list(cards) for seat, cards in state["known"].items()}
    play = state["play"]
    if play is not None:
        out["play"] = {**play, "cards": [{**c, "declined": list(c.get("declined", ()))}
                                         for c in play["cards"]],
                       "hits": [dict(h) for h in play["hits"]], "passed": list(play["passed"])}
    return out
