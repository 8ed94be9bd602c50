"""The ``expert`` bot level, the same for every game: information-set search (issue 12).

A decision is made on what the seat knows, never on the true state:

1. draw a *world*: a whole state consistent with the seat's view and redacted log, from the
   game's ``sample_state(seen, rng)`` hook (the only thing a game supplies);
2. in that world, try every candidate command and play the game on with the game's ``basic``
   bot in every seat (its playout policy), up to ``horizon`` decisions, then score the outcome
   for the seat with ``game.evaluate``;
3. repeat over fresh worlds (each candidate meets the same worlds: common random numbers) and
   compare each candidate with the playout policy's own choice for the seat (the favourite)
   on the same worlds and dice: the expert leaves the favourite only for the candidate whose
   mean gain over it is largest after subtracting ``CONFIDENCE`` standard errors, so a small
   budget's noise does not talk it out of a sound move.

This is determinized ("perfect information") Monte Carlo over the information set; its known
weakness (it assumes it will know the hidden cards later) matters little against bluffing-free
playout policies and keeps every game's part to one sampling function.

Budget. The decision depends on a *count*: ``playouts = think_ms * game.playouts_per_ms``,
with ``playouts_per_ms`` measured per game on the reference machine (bench/expert_bot.py). The
wall clock is only a cap (``CAP_FACTOR`` times the think time, after ``MIN_ROUNDS`` worlds)
that guards an overloaded worker, and only for a live seat (``Seen.live``, set by the worker);
tests and self-play are not live, so the same seat, view, log and seed always give the same
command, on any machine.
"""

from __future__ import annotations

import math
import time
from typing import Any

from games.core import Command, Event, Game, Rng, Seen, State, random_bot

CAP_FACTOR = 3.0  # the wall-clock cap, in think times: reached only on an overloaded machine
MIN_ROUNDS = 2  # even a tiny budget tries every candidate on at least this many worlds
CONFIDENCE = 1.0  # standard errors by which a candidate must beat the favourite to replace it


class Expert:
    """The ``expert`` level of ``game`` (see the module docstring)."""

    reads_log = True  # the worker hands it the seat's redacted log (Game.seen)

    def __init__(self, game: Game, playout_level: str = "basic"):
        self.game = game
        self.playout_level = playout_level
        self.stats: dict[str, int] = {"decisions": 0, "playouts": 0}

    def budget(self, seen: Seen) -> int:
        """The number of playouts for one decision: a count derived from the think time."""
        return max(1, int(seen.think_ms * getattr(self.game, "playouts_per_ms", 1.0)))

    def __call__(self, seen: Seen, rng: Rng) -> Command:
        legal = seen.legal
        if len(legal) == 1:
            return legal[0]
        policy = _policy(self.game, self.playout_level)
        favourite = policy(seen, Rng(f"{rng.below(1 << 62)}:policy"))
        candidates = [favourite, *(c for c in legal if c != favourite)]
        rounds = max(MIN_ROUNDS, self.budget(seen) // len(candidates))
        deadline = time.monotonic() + CAP_FACTOR * seen.think_ms / 1000
        # Per candidate: the sum and the sum of squares of its score minus the favourite's on
        # the same world with the same playout dice (a paired comparison).
        diffs = [0.0] * len(candidates)
        squares = [0.0] * len(candidates)
        played = 0
        for index in range(rounds):
            world = self.game.sample_state(seen, Rng(f"{rng.below(1 << 62)}:world:{index}"))
            dice = rng.below(1 << 62)
            scores = [self._playout(world, seen.seat, command, Rng(f"{dice}:{index}"))
                      for command in candidates]
            for i, score in enumerate(scores):
                diffs[i] += score - scores[0]
                squares[i] += (score - scores[0]) ** 2
            played += 1
            if seen.live and index + 1 >= MIN_ROUNDS and time.monotonic() > deadline:
                break
        self.stats["decisions"] += 1
        self.stats["playouts"] += played * len(candidates)
        best, best_edge = 0, 0.0
        for i in range(1, len(candidates)):
            mean = diffs[i] / played
            spread = math.sqrt(max(0.0, squares[i] / played - mean * mean) / played)
            edge = mean - CONFIDENCE * spread  # leave the favourite only for a clear gain
            if edge > best_edge:
                best, best_edge = i, edge
        return candidates[best]

    def _playout(self, world: State, seat: int, command: Command, rng: Rng) -> float:
        """Play ``command`` in ``world``, then every seat by the playout policy; the score."""
        game = self.game
        # Commands come from legal lists, so the kernel's schema checks are skipped (speed).
        state = game.fold(game.decide_command(world, command, seat, rng),
                          game.copy_state(world))
        policy = _policy(game, self.playout_level)
        horizon = getattr(game, "horizon", 400)
        for _ in range(horizon):
            pending = game.pending(state)
            if not pending:
                break
            actor = min(pending) if len(pending) == 1 else sorted(pending)[
                rng.below(len(pending))]
            choice = policy(game.seen(state, actor), rng)
            state = game.fold(game.decide_command(state, choice, actor, rng), state)
        return game.evaluate(state, seat)


def _policy(game: Game, level: str) -> Any:
    try:
        return game.bot(level)
    except KeyError:
        return random_bot


def log_of(seen: Seen, *types: str) -> list[Event]:
    """The events of ``seen``'s log of the given types (all when none are given)."""
    return [e for e in seen.events if not types or e.type in types]
