"""The ``expert`` search over a shortlist of the legal commands, for games whose turns offer
dozens of commands (Mag Blast's attack phase, War of the Ring's moves and musters) and whose
playouts are slow: searching every command would spend the think time on the minimum of worlds
per command. The game's ``shortlist(seen, favourite)`` picks the few worth searching from the
seat's view and legal commands alone (so the decision stays honest); ``favourite`` is the
playout policy's own choice on the whole list, and is always kept.

A game wires it with ``ShortlistGame``: it names the module holding its three hooks
(``shortlist``, ``sample_state``, ``evaluate``, from the seat's view and log alone) and states
only what differs (its ``basic`` bot, ``playouts_per_ms``, ``horizon``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from types import ModuleType
from typing import ClassVar

from games.core import Bot, Command, Game, Rng, Seat, Seen, State
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


class ShortlistGame(Game):
    """A game whose ``expert`` is a ``ShortlistExpert``, its hooks read from ``expert_hooks``:
    a module with ``shortlist(seen, favourite)``, ``sample_state(seen, rng)`` and
    ``evaluate(state, seat)`` (the game's bot module)."""

    expert_hooks: ClassVar[ModuleType]

    def bot(self, level: str) -> Bot:
        if level == "expert":
            return ShortlistExpert(self, self.expert_hooks.shortlist)
        return super().bot(level)

    def sample_state(self, seen: Seen, rng: Rng) -> State:
        return self.expert_hooks.sample_state(seen, rng)

    def evaluate(self, state: State, seat: Seat) -> float:
        return self.expert_hooks.evaluate(state, seat)
