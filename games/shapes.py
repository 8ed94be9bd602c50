"""What every game's view, result and events share, for the schemas each game declares of them
in its ``shapes.py`` (issue 26 item 4: typed views for generated clients).

A game's shapes are documentation of what its rules already give (the service sends views and
events as the rules build them); the conformance test (tests/games/test_shapes.py) plays every
game and holds each payload to its shape, unknown fields refused, so neither drifts.
"""

from __future__ import annotations

import copy
from typing import Any

from marshmallow import Schema, fields, validate


def seat(**kwargs: Any) -> fields.Integer:
    """A seat: an integer from 0."""
    return fields.Integer(validate=validate.Range(min=0), **kwargs)


def seats(**kwargs: Any) -> fields.List:
    """A list of seats."""
    return fields.List(seat(), **kwargs)


def either(*shapes: dict[str, Any], **kwargs: Any) -> fields.Raw:
    """A value of one of several JSON shapes (a count to most viewers, the cards themselves to
    the auditor). Each field gets its own copy of the shapes: a dict shared by two fields
    would come out of the YAML document as an anchor and aliases."""
    return fields.Raw(metadata={"oneOf": copy.deepcopy(list(shapes))}, **kwargs)


COUNT = {"type": "integer", "minimum": 0}
CARDS = {"type": "array", "items": {"type": "string"}}


def count_or_cards(**kwargs: Any) -> fields.Raw:
    """A hidden pile: how many cards, or (to those who may see them) the cards."""
    return either(COUNT, CARDS, **kwargs)


def viewer(**kwargs: Any) -> fields.Raw:
    """Whose view it is: a seat, or ``spectator`` / ``auditor``."""
    return either(
        {"type": "integer", "minimum": 0},
        {"type": "string", "enum": ["spectator", "auditor"]},
        **kwargs,
    )


def by_seat(values: fields.Field, **kwargs: Any) -> fields.Dict:
    """An object keyed by seat numbers (JSON keys are strings: "0", "1" ...)."""
    return fields.Dict(
        keys=fields.String(validate=validate.Regexp("^[0-9]+$")), values=values, **kwargs
    )


class Result(Schema):
    """A finished game's result: who won, each seat's score, the places (ties share one)."""

    winners = seats(required=True, metadata={"description": "The winning seats"})
    scores = by_seat(
        fields.Integer(),
        required=True,
        metadata={"description": "Each seat's score, keyed by the seat number"},
    )
    ranking = fields.List(
        seats(), required=True, metadata={"description": "Places, best first: the seats in each"}
    )


SEAT = {"type": "integer", "minimum": 0}
CARD = {"type": "string"}


def pair(
    first: dict[str, Any], second: dict[str, Any], description: str, **kwargs: Any
) -> fields.List:
    """A list of pairs ``[first, second]`` (e.g. ``[seat, card]``)."""
    return fields.List(
        fields.List(either(first, second), validate=validate.Length(equal=2)),
        metadata={"description": description},
        **kwargs,
    )


class Prompt(Schema):
    """What a pending seat must decide: the command types it may send, its clock, a label."""

    kinds = fields.List(fields.String(), required=True)
    clock = fields.String(required=True, metadata={"description": "turn or reaction"})
    label = fields.String(required=True)


def pending(**kwargs: Any) -> fields.Dict:
    """Who must act now: each pending seat's prompt, keyed by the seat number."""
    return by_seat(fields.Nested(Prompt), **kwargs)
