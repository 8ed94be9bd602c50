"""War of the Ring bot levels: ``random`` and ``basic``. Bots see only the seat's view and its
legal commands, never the state."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from games.core import Command, Rng, random_bot

Bot = Callable[[dict[str, Any], list[Command], Rng], Command]


def basic(view: dict[str, Any], legal: list[Command], rng: Rng) -> Command:
    return legal[0]


def level(name: str) -> Bot:
    """The bot function of level ``name`` (KeyError for an unknown level)."""
    return {"random": random_bot, "basic": basic}[name]
