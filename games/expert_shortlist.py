"""The ``expert`` search over a shortlist of the legal commands, for games whose turns offer
dozens of commands (Mag Blast's attack phase, War of the Ring's moves and musters) and whose
playouts are slow: searching every command would spend the think time on the minimum of worlds
per command. The game's ``shortlist(seen, favourite)`` picks the few worth searching from the
seat's view and legal commands alone (so the decision stays honest); ``favourite`` is the
playout policy's own choice on the whole list, and is always kept.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from games.core import Command, Game, Rng, Seen
from games.expert import Expert, _policy

Shortlist = Callable[[Seen, Command], list[Command]]


class ShortlistExpert(Expert):
    """``Expert`` (games/expert.py) searching only ``shortlist(seen, favourite)``."""

    def __init__(self, game: Game, shortlist: Shortlist, playout_level: str = "basic"):
        super().__init__(game, playout_level)
        self.shortlist = shortlist

    def __call__(self, seen: Seen, rng: Rng) -> Command:
        if len(seen.legal) > 1:
            favourite = _policy(self.game, self.playout_level)(seen, Rng("shortlist"))
            short = self.shortlist(seen, favourite)
            if len(short) == 1:
                self.stats["decisions"] += 1
                return short[0]
            seen = replace(seen, legal=short)
        return super().__call__(seen, rng)
