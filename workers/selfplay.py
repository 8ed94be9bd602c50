"""Self-play: whole games between bot levels, in process, with the rules alone (no Redis).

Each bot is handed exactly what the worker hands it (``Game.seen``): the seat's view, its legal
commands and, for a bot that reads it, the game log redacted for the seat.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from games import get_game
from games.core import DEFAULT_THINK_MS, Event, Game, Rng

MAX_STEPS = 100_000


@dataclass
class SelfPlayReport:
    """What a batch of self-play games produced."""

    game: str
    levels: list[str]
    options: dict[str, Any] = field(default_factory=dict)  # as given, before defaults
    think_ms: int = DEFAULT_THINK_MS
    games: int = 0
    finished: int = 0
    steps: int = 0
    seconds: float = 0.0
    wins: Counter[str] = field(default_factory=Counter)  # level -> seat wins
    plays: Counter[str] = field(default_factory=Counter)  # level -> seat games
    seat_wins: Counter[int] = field(default_factory=Counter)  # seat position -> wins
    # level -> decisions (bot calls with 2 or more legal commands) and the seconds they took
    decisions: Counter[str] = field(default_factory=Counter)
    decision_seconds: Counter[str] = field(default_factory=Counter)

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds else 0.0

    def win_rate(self, level: str) -> float:
        """Share of the games a seat of ``level`` played that it won (ties count as wins)."""
        return self.wins[level] / self.plays[level] if self.plays[level] else 0.0

    def decisions_per_second(self, level: str) -> float:
        """How many real choices (2 or more legal commands) ``level`` made per second it thought."""
        seconds = self.decision_seconds[level]
        return self.decisions[level] / seconds if seconds else 0.0

    def win_interval(self, level: str) -> tuple[float, float]:
        """The 95 % Wilson score interval of ``win_rate(level)``: bot changes are judged on it."""
        return wilson_interval(self.wins[level], self.plays[level])


def wilson_interval(successes: int, trials: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval for a proportion (sound near 0 % and 100 %, unlike the normal
    approximation, which matters for lopsided bot match-ups)."""
    if trials == 0:
        return 0.0, 1.0
    share = successes / trials
    centre = share + z * z / (2 * trials)
    margin = z * math.sqrt(share * (1 - share) / trials + z * z / (4 * trials * trials))
    scale = 1 + z * z / trials
    return max(0.0, (centre - margin) / scale), min(1.0, (centre + margin) / scale)


def play_one(game: Game, levels: list[str], seed: str, options: dict[str, Any] | None = None,
             max_steps: int = MAX_STEPS, think_ms: int = DEFAULT_THINK_MS,
             report: SelfPlayReport | None = None) -> tuple[dict[str, Any] | None, int]:
    """Play one game with ``levels[i]`` in seat ``i``; its result (None if unfinished), steps.
    With ``report``, each level's decisions and the time they took are added to it."""
    loaded = game.load_options(options)
    log: list[Event] = game.setup(len(levels), loaded, Rng.for_version(seed, 0))
    state = game.fold(log)
    bots = [game.bot(level) for level in levels]
    chooser = Rng(seed + ":seats")
    position = 1
    for step in range(max_steps):
        pending = game.pending(state)
        if not pending:
            return game.result(state), step
        # In a reaction window any pending seat may answer first: pick one at random.
        seats = sorted(pending)
        seat = seats[chooser.below(len(seats))] if len(seats) > 1 else seats[0]
        reads_log = getattr(bots[seat], "reads_log", False)
        seen = game.seen(state, seat, log if reads_log else (), think_ms)
        before = time.perf_counter()
        command = bots[seat](seen, Rng(f"{seed}:bot:{step}"))
        if report is not None and len(seen.legal) > 1:
            report.decisions[levels[seat]] += 1
            report.decision_seconds[levels[seat]] += time.perf_counter() - before
        events = game.decide(state, command, seat, Rng.for_version(seed, position))
        state = game.fold(events, state)  # we own state, and decide never mutates it
        log += events
        position += len(events)
    return None, max_steps


def selfplay(game_name: str, games: int, levels: list[str], options: dict[str, Any] | None = None,
             seed: str = "selfplay", rotate: bool = True, think_ms: int = DEFAULT_THINK_MS,
             progress: Callable[[SelfPlayReport], None] | None = None,
             every: int = 0) -> SelfPlayReport:
    """Play ``games`` games; with ``rotate`` the levels move one seat on each game.
    ``think_ms`` is every expert seat's think time (its playout budget); ``progress`` is called
    with the report so far after every ``every`` games (long runs show where they stand)."""
    game = get_game(game_name)
    for level in set(levels):
        game.bot(level)  # unknown levels fail before any game is played
    game.load_options(options)  # bad options fail before any game is played
    report = SelfPlayReport(game_name, list(levels), dict(options or {}), think_ms=think_ms)
    started = time.perf_counter()
    for index in range(games):
        shift = index % len(levels) if rotate else 0
        seated = levels[shift:] + levels[:shift]
        result, steps = play_one(game, seated, f"{seed}:{index}", options, think_ms=think_ms,
                                 report=report)
        report.games += 1
        report.steps += steps
        for level in seated:
            report.plays[level] += 1
        if result is not None:
            report.finished += 1
            for winner in result.get("winners", []):
                report.wins[seated[winner]] += 1
                report.seat_wins[winner] += 1
        report.seconds = time.perf_counter() - started
        if progress is not None and every > 0 and report.games % every == 0 \
                and report.games < games:
            progress(report)
    return report


def format_report(report: SelfPlayReport) -> str:
    """The report as a few lines of text."""
    options = f" options {json.dumps(report.options, sort_keys=True)}" if report.options else ""
    lines = [f"{report.game}{options}: {report.games} games ({report.finished} finished) "
             f"with seats {','.join(report.levels)} in {report.seconds:.2f}s = "
             f"{report.games_per_second:.2f} games/s, "
             f"{report.steps / max(report.games, 1):.0f} moves/game, "
             f"think {report.think_ms} ms, load {os.getloadavg()[0]:.1f}"]
    for level in sorted(report.plays):
        low, high = report.win_interval(level)
        lines.append(f"  {level:>8}: win rate {report.win_rate(level):6.1%} "
                     f"[95% CI {low:.1%}-{high:.1%}] "
                     f"({report.wins[level]} wins in {report.plays[level]} seat-games), "
                     f"{report.decisions_per_second(level):.1f} decisions/s "
                     f"({report.decisions[level]} decisions)")
    seats = ", ".join(f"seat {s}: {report.seat_wins[s] / max(report.games, 1):.1%}"
                      for s in range(len(report.levels)))
    lines.append(f"  by position: {seats}")
    return "\n".join(lines)
