"""The catalog: what each hosted game offers, described for clients that know no rules."""

from __future__ import annotations

from typing import Any

from games import REGISTRY, UNLISTED
from games.core import Game
from service.app.json_schema import json_schema, options_json_schema


def catalog() -> list[dict[str, Any]]:
    """Every hosted game (games kept for tests are left out)."""
    return [describe_game(game) for name, game in REGISTRY.items() if name not in UNLISTED]


def describe_game(game: Game) -> dict[str, Any]:
    """A catalog entry: seats, options and commands as JSON Schema, bot levels."""
    return {"name": game.name, "title": game.title, "min_seats": game.min_seats,
            "max_seats": game.max_seats, "rules_version": game.rules_version,
            "bot_levels": list(game.bot_levels),
            "options": options_json_schema(game),
            "commands": {name: json_schema(schema) for name, schema in game.commands.items()}}
