"""Mag Blast bots. A bot is a function of (the seat's view, its legal commands, rng) only."""

from __future__ import annotations

from typing import Any

from games.core import Command, Rng


def basic_bot(view: dict[str, Any], legal: list[Command], rng: Rng) -> Command:
    """The ``basic`` level."""
    return legal[0]
