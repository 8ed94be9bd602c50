"""Mask Men commands (marshmallow schemas), event wire names, and the shape of the state."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from games.core import ClockOptions, Seat, State
from games.maskmen.data import DATA, OPTIONS


class MaskmenOptions(ClockOptions):
    edition = fields.String(load_default=OPTIONS.edition,
                            validate=validate.OneOf(sorted(DATA.editions)))


class Play(Schema):
    """Play 1-3 cards of one wrestler (the rules, not the schema, check count and wrestler).

    Name the wrestler and the count: copies of one wrestler are identical, so the server takes
    them from the hand and nobody but the holder learns which (issue 12). Naming the copies in
    ``cards`` is still accepted: stored games sent it, and their audit re-runs it exactly.
    """

    wrestler = fields.String(load_default=None, allow_none=True)
    count = fields.Integer(load_default=None, allow_none=True)
    cards = fields.List(fields.String(), load_default=None, allow_none=True)


class GiveUp(Schema):
    """Give up: out of the current round (maskmen.md §5)."""


PLAY = "play"
GIVE_UP = "give_up"
COMMANDS: dict[str, type[Schema]] = {PLAY: Play, GIVE_UP: GiveUp}

# Event wire names (past tense, stable). Payloads:
GAME_STARTED = "maskmen_started"  # {seats, edition, seasons: int|None, wins_needed: int|None}
SEASON_DEALT = "season_dealt"  # {season, leader, hands: [[card]], set_aside: [card]}
# {seat, wrestler, count, cards, debuted: bool, proved: [V, W]|None}; ``cards`` (the copies) is
# the holder's and the auditor's alone: others see the wrestler ``count`` times (issue 12). Logs
# from before the change have no ``count``: it is len(cards).
CARDS_PLAYED = "cards_played"
GAVE_UP = "gave_up"  # {seat}
ROUND_ENDED = "round_ended"  # {winner: last seat to play, leader: who leads the next round}
WENT_OUT = "went_out"  # {seat, place, points}
SEASON_ENDED = "season_ended"  # {season, first, last, points: [per seat, this season]}
GAME_ENDED = "game_ended"  # {winners, scores: {str(seat): int}, ranking: [[seat]]}
EVENT_TYPES = frozenset({GAME_STARTED, SEASON_DEALT, CARDS_PLAYED, GAVE_UP, ROUND_ENDED,
                         WENT_OUT, SEASON_ENDED, GAME_ENDED})


def new_round(number: int, leader: Seat) -> dict:
    """A round before its lead: ``current`` is the play to beat, ``{seat, wrestler, count}``."""
    return {"number": number, "leader": leader, "current": None, "plays": [], "given_up": []}


def started_state(seats: int, edition: str, seasons: int | None, wins_needed: int | None) -> State:
    """The state after ``game_started``, before the first deal. Plain JSON data.

    Per season: ``hands`` (sorted card ids per seat), ``set_aside`` (unused cards, secret),
    ``played`` (public), ``debuted`` (wrestlers in debut order), ``proofs`` ([stronger, weaker]
    in the order proven), ``beats`` (wrestler -> wrestlers known weaker: the transitive closure),
    ``round``, ``turn``, ``out`` (seats in the order they emptied their hands).
    Across seasons: ``scores`` (marker totals), ``season_wins``, ``history``, ``result``.
    """
    return {
        "seats": seats,
        "edition": edition,
        "seasons": seasons,
        "wins_needed": wins_needed,
        "season": 0,
        "hands": [[] for _ in range(seats)],
        "set_aside": [],
        "played": [],
        "debuted": [],
        "proofs": [],
        "beats": {w: [] for w in DATA.wrestler_ids},
        "round": new_round(0, 0),
        "turn": None,
        "out": [],
        "scores": [0] * seats,
        "season_wins": [0] * seats,
        "history": [],
        "result": None,
    }
