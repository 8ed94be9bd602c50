"""Loot (Reiner Knizia; Korsar/Pirat): merchant ships, pirate attacks, captains and the admiral.

Spec: shared/rules/loot.md (its decisions block settles the open points; the Korean rules in
shared/seeds/001_91d2d1a97be5cbff.txt win where both speak). 2-8 players, optional team play.
"""

from games.loot.rules import GAME

__all__ = ["GAME"]
