"""The ``expert`` level against ``basic`` (issue 12): 2-player win rates with a 95 % interval,
seats rotated, and the expert's decisions per second, printed after every chunk of games.

    python bench/expert_bot.py GAME [--games 500] [--think-ms 250] [--chunk 50]

The expert's budget is a count of playouts (think_ms x the game's playouts_per_ms), so a run
replays exactly on any machine; decisions/s is what this machine made of that budget. The CPU
time per playout (process time, so a loaded machine does not inflate it) gives the
``playouts_per_ms`` to set on the game: 1 / (CPU ms per playout).
"""

from __future__ import annotations

import argparse
import os
import time

from games import get_game
from games.expert import Expert
from workers.selfplay import play_one, wilson_interval


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("game")
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--think-ms", type=int, default=250)
    parser.add_argument("--chunk", type=int, default=50)
    parser.add_argument("--seed", default="expert")
    args = parser.parse_args()
    game = get_game(args.game)
    experts: list[Expert] = []
    real_bot = game.bot
    clock = [0.0]
    cpu = [0.0]

    def counted(level: str):  # the bots selfplay uses; the experts' counters and time kept
        bot = real_bot(level)
        if not isinstance(bot, Expert):
            return bot
        experts.append(bot)

        def timed(seen, rng):
            before, before_cpu = time.perf_counter(), time.process_time()
            try:
                return bot(seen, rng)
            finally:
                clock[0] += time.perf_counter() - before
                cpu[0] += time.process_time() - before_cpu

        timed.reads_log = True  # type: ignore[attr-defined]
        return timed

    game.bot = counted  # type: ignore[method-assign]
    wins = played = 0
    started = time.perf_counter()
    for index in range(args.games):
        me = index % 2  # seats rotated
        levels = ["basic", "basic"]
        levels[me] = "expert"
        result, _ = play_one(game, levels, f"{args.seed}:{index}", think_ms=args.think_ms)
        played += 1
        wins += result is not None and me in result["winners"]
        if played % args.chunk == 0 or played == args.games:
            decisions = sum(e.stats["decisions"] for e in experts)
            playouts = sum(e.stats["playouts"] for e in experts)
            low, high = wilson_interval(wins, played)
            print(f"{args.game}: expert vs basic, {played} 2-player games, think {args.think_ms} "
                  f"ms: expert wins {wins / played:.1%} [95% CI {low:.1%}-{high:.1%}]; "
                  f"{decisions} decisions, {playouts / max(decisions, 1):.0f} playouts each, "
                  f"{decisions / max(clock[0], 1e-9):.1f} decisions/s "
                  f"({1000 * clock[0] / max(decisions, 1):.0f} ms each); "
                  f"{1000 * cpu[0] / max(playouts, 1):.2f} CPU ms per playout "
                  f"(playouts_per_ms {game.playouts_per_ms}); "
                  f"{time.perf_counter() - started:.0f}s; load {os.getloadavg()[0]:.1f}",
                  flush=True)


if __name__ == "__main__":
    main()
