"""The shapes of Mask Men's view, result and events (issue 26 item 4), for typed clients."""

from __future__ import annotations

from marshmallow import Schema, fields

from games.shapes import Result, pending, viewer


class MaskMenViewHistoryItem(Schema):
    first = fields.Integer(required=True)
    last = fields.Integer(required=True)
    points = fields.List(fields.Integer(), required=True)
    season = fields.Integer(required=True)


class MaskMenViewKnowledgeDisplay(Schema):
    columns = fields.List(fields.List(fields.String()), required=True)
    edges = fields.List(fields.List(fields.String()), required=True)
    levels = fields.List(fields.List(fields.String()), required=True)
    style = fields.String(required=True)


class MaskMenViewKnowledge(Schema):
    beats = fields.Dict(keys=fields.String(), values=fields.List(fields.String()), required=True)
    debuted = fields.List(fields.String(), required=True)
    display = fields.Nested(MaskMenViewKnowledgeDisplay, required=True)
    proofs = fields.List(fields.List(fields.String()), required=True)


class MaskMenViewRoundCurrent(Schema):
    count = fields.Integer(required=True)
    seat = fields.Integer(required=True)
    wrestler = fields.String(required=True)


class MaskMenViewRoundPlaysItem(Schema):
    cards = fields.List(fields.String(), required=True)
    proved = fields.List(fields.String(), required=True, allow_none=True)
    seat = fields.Integer(required=True)
    wrestler = fields.String(required=True)


class MaskMenViewRound(Schema):
    current = fields.Nested(MaskMenViewRoundCurrent, required=True, allow_none=True)
    given_up = fields.List(fields.Integer(), required=True)
    leader = fields.Integer(required=True)
    number = fields.Integer(required=True)
    plays = fields.List(fields.Nested(MaskMenViewRoundPlaysItem), required=True)


class MaskMenView(Schema):
    edition = fields.String(required=True)
    hand = fields.List(fields.String(), required=True, allow_none=True)
    hand_counts = fields.List(fields.Integer(), required=True)
    hands = fields.List(fields.List(fields.String()))
    history = fields.List(fields.Nested(MaskMenViewHistoryItem), required=True)
    knowledge = fields.Nested(MaskMenViewKnowledge, required=True)
    out = fields.List(fields.Integer(), required=True)
    pending = pending(required=True)
    played = fields.List(fields.String(), required=True)
    result = fields.Nested(Result, required=True, allow_none=True)
    round = fields.Nested(MaskMenViewRound, required=True)
    scores = fields.List(fields.Integer(), required=True)
    season = fields.Integer(required=True)
    season_wins = fields.List(fields.Integer(), required=True)
    seasons = fields.Integer(required=True, allow_none=True)
    seat = fields.Integer(required=True, allow_none=True)
    seats = fields.Integer(required=True)
    set_aside = fields.List(fields.String())
    set_aside_count = fields.Integer(required=True)
    turn = fields.Integer(required=True, allow_none=True)
    viewer = viewer(required=True)
    wins_needed = fields.Integer(required=True, allow_none=True)


class MaskMenResult(Result):
    pass


class MaskMenCardsPlayed(Schema):
    cards = fields.List(fields.String(), required=True)
    count = fields.Integer(required=True)
    debuted = fields.Boolean(required=True)
    proved = fields.List(fields.String(), required=True, allow_none=True)
    seat = fields.Integer(required=True)
    wrestler = fields.String(required=True)


class MaskMenGaveUp(Schema):
    seat = fields.Integer(required=True)


class MaskMenMaskmenStarted(Schema):
    edition = fields.String(required=True)
    seasons = fields.Integer(required=True, allow_none=True)
    seats = fields.Integer(required=True)
    wins_needed = fields.Integer(required=True, allow_none=True)


class MaskMenRoundEnded(Schema):
    leader = fields.Integer(required=True)
    winner = fields.Integer(required=True)


class MaskMenSeasonDealt(Schema):
    hand = fields.List(fields.String(), allow_none=True)
    hand_counts = fields.List(fields.Integer())
    hands = fields.List(fields.List(fields.String()))
    leader = fields.Integer(required=True)
    season = fields.Integer(required=True)
    set_aside = fields.List(fields.String())
    set_aside_count = fields.Integer()


class MaskMenWentOut(Schema):
    place = fields.Integer(required=True)
    points = fields.Integer(required=True)
    seat = fields.Integer(required=True)


VIEW = MaskMenView
RESULT = MaskMenResult


EVENTS = {
    "cards_played": MaskMenCardsPlayed,
    "game_ended": Result,
    "gave_up": MaskMenGaveUp,
    "maskmen_started": MaskMenMaskmenStarted,
    "round_ended": MaskMenRoundEnded,
    "season_dealt": MaskMenSeasonDealt,
    "season_ended": MaskMenViewHistoryItem,
    "went_out": MaskMenWentOut,
}
