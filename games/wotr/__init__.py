"""War of the Ring — the war of nations (Ares Games, 2nd ed.): the military campaign without the
Fellowship, the Hunt or the Ring. Spec: shared/rules/wotr.md (its decisions block says what is
in and out); the seed text shared/seeds/002_12162b5e7c49c75f.txt wins where both speak."""

from games.wotr.rules import GAME

__all__ = ["GAME"]
