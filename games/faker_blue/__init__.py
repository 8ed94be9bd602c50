"""Faker Blue (페이커 블루): a 2-4 player bluffing card game; spec shared/rules/fakerblue.md
(original text with Q&A 1-7: shared/seeds/004_c4fbdc3041988119.txt).

Public API: ``GAME``, the rules object (games.core.Game contract).
"""

from games.faker_blue.rules import GAME

__all__ = ["GAME"]
