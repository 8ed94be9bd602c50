"""The ``expert`` bot level, the same for every game: information-set search (issue 12).

A decision is made on what the seat knows, never on the true state:

1. draw a *world*: a whole state consistent with the seat's view and redacted log, from the
   game's ``sample_state(seen, rng)`` hook (the only thing a game supplies);
2. in that world, try every candidate command and play the game on with the game's ``basic``
   bot in every seat (its playout policy), up to ``horizon`` decisions, then score the outcome
   for the seat with ``game.evaluate``;
3. repeat over fresh worlds (each candidate meets the same worlds: common random numbers) and
   compare each candidate with the playout policy's own choice for the seat (the favourite)
   on the same worlds and dice. The worlds are raced: once ``PRUNE_AFTER`` worlds are played,
   a candidate whose mean gain (plus ``PRUNE`` standard errors) cannot reach the best one's
   (minus as many) stops being played, so the budget goes to the moves still in question, and
   the decision ends early when one move is clearly best. The expert leaves the favourite only
   for the candidate whose mean gain over it is largest after subtracting ``CONFIDENCE``
   standard errors, so a small budget's noise does not talk it out of a sound move.

A playout stops at the ``horizon``, at the game's end, or where ``game.playout_over`` says the
decision no longer matters (a Mask Men season ended); the policy is shown
``game.playout_seen`` (the view its bot reads, built for speed on the sampled world).

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

from games.core import Bot, Command, Event, Game, Rng, Seen, State, random_bot

CAP_FACTOR = 3.0  # the wall-clock cap, in think times: reached only on an overloaded machine
MIN_ROUNDS = 2  # even a tiny budget tries every candidate on at least this many worlds
CONFIDENCE = 1.0  # standard errors by which a candidate must beat the favourite to replace it
PRUNE_AFTER = 6  # worlds every candidate meets before the race drops any
PRUNE = 2.0  # standard errors: a candidate is dropped when even this optimism cannot save it


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
        race = _Race(len(candidates))
        budget = self.budget(seen)
        deadline = time.monotonic() + CAP_FACTOR * seen.think_ms / 1000
        spent = index = 0
        while index < MIN_ROUNDS or spent + len(race.active) <= budget:
            world = self.game.sample_state(seen, Rng(f"{rng.below(1 << 62)}:world:{index}"))
            dice = rng.below(1 << 62)
            race.add({i: self._playout(world, seen.seat, candidates[i], Rng(f"{dice}:{index}"))
                      for i in race.active})
            spent += len(race.active)
            index += 1
            if index >= PRUNE_AFTER and race.prune():
                break  # one move is clearly best (or only the favourite is left)
            if seen.live and index >= MIN_ROUNDS and time.monotonic() > deadline:
                break
        self.stats["decisions"] += 1
        self.stats["playouts"] += spent
        return candidates[race.choice()]

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
            if not pending or game.playout_over(world, state):
                break
            actor = min(pending) if len(pending) == 1 else sorted(pending)[
                rng.below(len(pending))]
            choice = policy(game.playout_seen(state, actor), rng)
            state = game.fold(game.decide_command(state, choice, actor, rng), state)
        return game.evaluate(state, seat)


class _Race:
    """Paired score differences of each candidate against candidate 0 (the favourite)."""

    def __init__(self, size: int):
        self.sums = [0.0] * size
        self.squares = [0.0] * size
        self.counts = [0] * size
        self.active = list(range(size))

    def add(self, scores: dict[int, float]) -> None:
        base = scores[0]
        for i, score in scores.items():
            self.sums[i] += score - base
            self.squares[i] += (score - base) ** 2
            self.counts[i] += 1

    def mean_and_error(self, i: int) -> tuple[float, float]:
        played = self.counts[i]
        if i == 0 or played == 0:
            return 0.0, 0.0
        mean = self.sums[i] / played
        return mean, math.sqrt(max(0.0, self.squares[i] / played - mean * mean) / played)

    def prune(self) -> bool:
        """Drop the candidates that cannot catch the best; True when the race is decided."""
        bounds = {i: self.mean_and_error(i) for i in self.active}
        leader = max(self.active, key=lambda i: bounds[i][0] - PRUNE * bounds[i][1])
        floor = bounds[leader][0] - PRUNE * bounds[leader][1]
        # The favourite stays (it is every pairing's base); a move that only ever tied it, or
        # cannot reach the leader's floor, is decided.
        self.active = [i for i in self.active
                       if i in (0, leader) or bounds[i][0] + PRUNE * bounds[i][1] > floor]
        return len(self.active) == 1 or (len(self.active) == 2 and floor > 0)

    def choice(self) -> int:
        """The favourite, unless a candidate beats it by more than ``CONFIDENCE`` errors."""
        best, best_edge = 0, 0.0
        for i in range(1, len(self.counts)):
            mean, error = self.mean_and_error(i)
            edge = mean - CONFIDENCE * error
            if edge > best_edge:
                best, best_edge = i, edge
        return best


def _policy(game: Game, level: str) -> Any:
    try:
        return game.bot(level)
    except KeyError:
        return random_bot


def log_of(seen: Seen, *types: str) -> list[Event]:
    """The events of ``seen``'s log of the given types (all when none are given)."""
    return [e for e in seen.events if not types or e.type in types]


class SearchingGame(Game):
    """A game whose ``expert`` level is this module's search over its ``sample_state`` hook."""

    def bot(self, level: str) -> Bot:
        if level == "expert" and level in self.bot_levels:
            return Expert(self)
        return super().bot(level)
