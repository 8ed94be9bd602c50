"""Mask Men (Oink Games): the rules of shared/rules/maskmen.md, with both editions, 2-6 players,
the strength order as a partial order, and the ``random`` and ``basic`` bots."""

from games.maskmen.rules import GAME

__all__ = ["GAME"]
