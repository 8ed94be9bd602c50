"""Loot commands (marshmallow schemas), event wire names, and the shape of the state.

State (plain JSON data, mutated in place by ``evolve``)::

    n            number of seats; ``sides`` = n // 2 in team play, else n
    teams, empty_deck_mode, team_capture, end_requires_play   the options (loot.md decisions)
    turn         the seat to act (its capture step already done); None once over
    hands        [[card id]] per seat
    deck         the draw pile, top card first
    discard      the face-up discard pile (battle cards after a capture, discarded cards)
    won          [[merchant id]] per seat: face-down captured ships (score piles)
    ships        merchant ships in play, in the order played, each
                 {m: merchant id, owner: seat, plays: [[seat, card]], col: [colour|None per side],
                  str: [skulls per side], anchor: [seat|None per side], trump: side|None}
    over         True after game_ended
"""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields, validate

from games.core import Seat, State
from games.loot.data import GOLD, KIND, MERCHANT


class Draw(Schema):
    """Draw the top card of the draw pile (loot.md §4)."""


class CardOnly(Schema):
    card = fields.String(required=True, validate=validate.Length(min=1, max=16))


class CardOnMerchant(Schema):
    card = fields.String(required=True, validate=validate.Length(min=1, max=16))
    merchant = fields.String(required=True, validate=validate.Length(min=1, max=16))


DRAW = "draw"
PLAY_MERCHANT = "play_merchant"
PLAY_PIRATE = "play_pirate"
PLAY_CAPTAIN = "play_captain"
PLAY_ADMIRAL = "play_admiral"
DISCARD = "discard"
TAKE_DISCARD = "take_discard"  # only with empty_deck_mode = "seed_literal" (loot.md §8)

COMMANDS: dict[str, type[Schema]] = {
    DRAW: Draw,
    PLAY_MERCHANT: CardOnly,
    PLAY_PIRATE: CardOnMerchant,
    PLAY_CAPTAIN: CardOnMerchant,
    PLAY_ADMIRAL: CardOnMerchant,
    DISCARD: CardOnly,
    TAKE_DISCARD: CardOnly,
}

TURN_KINDS = (DRAW, PLAY_MERCHANT, PLAY_PIRATE, PLAY_CAPTAIN, PLAY_ADMIRAL, DISCARD)
SEED_LITERAL_KINDS = (*TURN_KINDS, TAKE_DISCARD)

# Event wire names (stable; past tense).
LOOT_STARTED = "loot_started"  # the shuffled draw pile and the deal
CARD_DRAWN = "card_drawn"
MERCHANT_PLAYED = "merchant_played"
PIRATE_PLAYED = "pirate_played"
CAPTAIN_PLAYED = "captain_played"
ADMIRAL_PLAYED = "admiral_played"
CARD_DISCARDED = "card_discarded"
DISCARD_TAKEN = "discard_taken"
TURN_SKIPPED = "turn_skipped"  # an empty-handed seat with the pile exhausted sits out (§9)
TURN_PASSED = "turn_passed"
MERCHANT_CAPTURED = "merchant_captured"
GAME_ENDED = "game_ended"

EVENT_TYPES = (LOOT_STARTED, CARD_DRAWN, MERCHANT_PLAYED, PIRATE_PLAYED, CAPTAIN_PLAYED,
               ADMIRAL_PLAYED, CARD_DISCARDED, DISCARD_TAKEN, TURN_SKIPPED, TURN_PASSED,
               MERCHANT_CAPTURED, GAME_ENDED)


# --- battle arithmetic (loot.md §5.4, §6, §9) ---------------------------------------------------

def side_of(state: State, seat: Seat) -> int:
    """The attacking party of ``seat``: the seat itself, or its team (seat i with i + N/2)."""
    return seat % state["sides"]


def leader(ship: dict[str, Any], sides: int) -> int | None:
    """The side leading on ``ship``, or None on a tie for the lead (loot.md §5.4)."""
    if ship["trump"] is not None:
        return ship["trump"]  # §5.4.1: the most recently played trump wins
    strengths = ship["str"]
    best = max(strengths)
    if best == 0:
        return ship["owner"] % sides  # §5.4.2: nobody attacked, the owner leads
    if strengths.count(best) > 1:
        return None  # §5.4.4: a tie for the lead means no leader
    return strengths.index(best)


def capturer(state: State, ship: dict[str, Any]) -> Seat | None:
    """The seat that will take ``ship`` at the start of its turn if nothing changes (§6, §9)."""
    side = leader(ship, state["sides"])
    if side is None or not state["teams"]:
        return side
    if state["team_capture"] == "anchor":
        return ship["anchor"][side]  # §9 reading B: the partner who first played on this ship
    return side  # §9 reading A: the partner first in turn order (seat 0 starts, so the lower seat)


def gold_in_hand(hand: list[str]) -> int:
    return sum(GOLD[c] for c in hand if KIND[c] == MERCHANT)


def seat_scores(state: State) -> list[int]:
    """loot.md §7: captured gold minus the gold of merchant ships still in hand."""
    return [sum(GOLD[m] for m in won) - gold_in_hand(hand)
            for won, hand in zip(state["won"], state["hands"], strict=True)]
