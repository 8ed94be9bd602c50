"""Mag Blast (맥 블래스트): a 2-8 player space-fleet battle card game; spec shared/rules/magblast.md
(the Korean rulebook shared/seeds/000_52943d94162eb49a.txt is the authority where both speak).

Public API: ``GAME``, the rules object (games.core.Game contract).
"""

from games.magblast.rules import GAME

__all__ = ["GAME"]
