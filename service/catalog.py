"""The catalog: what each hosted game offers, described for clients that know no rules."""

from __future__ import annotations

from typing import Any

from marshmallow import missing

from games import REGISTRY, UNLISTED
from games.core import Game


def catalog() -> list[dict[str, Any]]:
    """Every hosted game (games kept for tests are left out)."""
    return [describe_game(game) for name, game in REGISTRY.items() if name not in UNLISTED]


def describe_game(game: Game) -> dict[str, Any]:
    """A catalog entry: seats, options with defaults, commands with their fields, bot levels."""
    return {"name": game.name, "title": game.title, "min_seats": game.min_seats,
            "max_seats": game.max_seats, "rules_version": game.rules_version,
            "bot_levels": list(game.bot_levels),
            "options": describe_schema(game.options()),
            "commands": {name: describe_schema(schema()) for name, schema in game.commands.items()}}


def describe_schema(schema: Any) -> dict[str, Any]:
    """A compact description of a marshmallow schema's fields for clients."""
    out = {}
    for name, field in schema.fields.items():
        entry: dict[str, Any] = {"type": type(field).__name__.lower(),
                                 "required": bool(field.required)}
        default = field.load_default
        if default is not missing and not callable(default):
            entry["default"] = default
        choices = getattr(field.validate, "choices", None) if field.validate else None
        if choices:
            entry["choices"] = list(choices)
        out[name] = entry
    return out
