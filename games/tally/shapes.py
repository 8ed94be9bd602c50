"""The shapes of Tally's view, result and events (issue 26 item 4), for typed clients."""

from __future__ import annotations

from marshmallow import Schema, fields

from games.shapes import Result


class TallyView(Schema):
    seats = fields.Integer(required=True)
    target = fields.Integer(required=True)
    total = fields.Integer(required=True)
    turn = fields.Integer(required=True)
    winner = fields.Integer(required=True, allow_none=True)


class TallyResult(Result):
    pass


class TallyAdded(Schema):
    amount = fields.Integer(required=True)
    seat = fields.Integer(required=True)


class TallyTallyStarted(Schema):
    first = fields.Integer(required=True)
    seats = fields.Integer(required=True)
    target = fields.Integer(required=True)


VIEW = TallyView
RESULT = TallyResult


EVENTS = {"added": TallyAdded, "tally_started": TallyTallyStarted}
