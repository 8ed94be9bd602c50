"""A command's plain loader gives what its schema's load gives, or leaves it to the schema."""

from __future__ import annotations

import pytest
from marshmallow import Schema, ValidationError, fields, post_load, validate

from games import REGISTRY
from games.core import Rng, plain_loader, random_bot
from games.tally.rules import Add

STEPS = 300


def _same_as_schema(game, command) -> bool:
    """Whether the plain loader took ``command``; asserts it gave the schema's result."""
    schema = game.commands[command["type"]]()
    plain = plain_loader(schema)
    args = {k: v for k, v in command.items() if k != "type"}
    loaded = plain(args) if plain is not None else None
    if loaded is None:
        return False
    assert loaded == schema.load(args)
    assert list(loaded) == list(schema.load(args)), "the schema's order of fields"
    return True


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_legal_command_of_a_playout_loads_as_its_schema_loads_it(name):
    game = REGISTRY[name]
    state = game.fold(game.setup(game.min_seats, game.load_options({}), Rng("plain")))
    taken = 0
    for step in range(STEPS):
        if game.result(state) is not None:
            break
        seat = sorted(game.pending(state))[0]
        taken += sum(_same_as_schema(game, command)
                     for command in game.legal_commands(state, seat))
        command = random_bot(game.seen(state, seat), Rng("plain-bot", step))
        for event in game.decide(state, command, seat, Rng("plain-game", step)):
            state = game.evolve(state, event)
    assert taken, f"no legal command of {name} took the plain way"


@pytest.mark.parametrize("args", [
    {"amount": True},  # an Integer refuses a bool
    {"amount": "2"},
    {"amount": 2.0},
    {"amount": 4},  # out of range
    {"amount": 2, "extra": 1},
    {},
])
def test_anything_not_plain_is_left_to_the_schema(args):
    assert plain_loader(Add())(args) is None


class _Hooked(Schema):
    n = fields.Integer()

    @post_load
    def double(self, data, **kwargs):
        return {"n": data["n"] * 2}


def test_a_schema_with_hooks_or_a_computed_default_has_no_plain_loader():
    class HookedInside(Schema):
        inner = fields.Nested(_Hooked)

    class Computed(Schema):
        n = fields.Integer(load_default=lambda: 1)

    class Listed(Schema):
        ns = fields.List(fields.Integer())

    for schema in (_Hooked(), HookedInside(), Computed(), Listed()):
        assert plain_loader(schema) is None


class _Counts(Schema):
    regular = fields.Integer(load_default=0, validate=validate.Range(min=0, max=20))
    leader = fields.Integer(load_default=0)


class _Order(Schema):
    from_ = fields.String(required=True, data_key="from")
    note = fields.String()
    figures = fields.Nested(_Counts, load_default=None)


@pytest.mark.parametrize("args", [
    {"from": "Bree"},
    {"from": "Bree", "note": "x"},
    {"from": "Bree", "figures": {}},
    {"from": "Bree", "figures": {"leader": 2}},
    {"from": "Bree", "figures": {"regular": 3, "leader": 1}, "note": ""},
])
def test_renamed_nested_and_left_out_fields_load_as_the_schema_loads_them(args):
    loaded = plain_loader(_Order())(args)
    assert loaded == _Order().load(args)
    assert list(loaded) == list(_Order().load(args))
    assert list(loaded.get("figures") or {}) == list(_Order().load(args)["figures"] or {})


@pytest.mark.parametrize("args", [
    {},  # a required field left out
    {"from_": "Bree"},  # the attribute's name is not the field's
    {"from": "Bree", "figures": None},
    {"from": "Bree", "figures": {"regular": 21}},
    {"from": "Bree", "figures": {"regular": 1, "elite": 1}},
    {"from": "Bree", "figures": [1]},
])
def test_what_a_renamed_or_nested_field_does_not_take_is_left_to_the_schema(args):
    assert plain_loader(_Order())(args) is None


def test_a_validator_function_that_refuses_leaves_it_to_the_schema():
    def odd(n):
        if n % 2 == 0:
            raise ValidationError("even")

    class Odd(Schema):
        n = fields.Integer(validate=[validate.Range(min=0), odd])

    plain = plain_loader(Odd())
    assert plain({"n": 3}) == Odd().load({"n": 3})
    assert plain({"n": 4}) is None
    with pytest.raises(ValidationError):
        Odd().load({"n": 4})
