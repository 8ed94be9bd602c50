"""War of the Ring's invariant over random legal games (issue 24, point 2): after every command
no region holds figures of both sides except a besieged Stronghold (garrison inside, besiegers
outside), and between actions no region is over its stacking limit (engine.invariant_breaks).
Prints, per scenario, the games played, the games that broke it (none expected) and games/s.

    python bench/wotr_invariants.py [--games 1000] [--scenario south --scenario full]
                                    [--seats 2] [--progress 100]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.games.test_wotr_invariants import random_game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--scenario", action="append", choices=("south", "full"))
    parser.add_argument("--seed", default="bench")
    parser.add_argument("--seats", type=int, choices=(2, 3, 4), default=2,
                        help="seats a game (3 or 4: two seats a side, wotr.md §16)")
    parser.add_argument("--progress", type=int, default=0,
                        help="also print the figures so far after every N games")
    args = parser.parse_args()
    for scenario in args.scenario or ["south", "full"]:
        started = time.perf_counter()
        broken: list[tuple[int, str]] = []
        commands = 0
        for index in range(args.games):
            steps, found = random_game(scenario, f"{args.seed}-{index}", args.seats)
            commands += steps
            if found:
                broken.append((index, found[0]))
            played = index + 1
            if played == args.games or (args.progress and played % args.progress == 0):
                seconds = time.perf_counter() - started
                print(f"{scenario}, {args.seats} seats: {played} random games, "
                      f"{commands} commands, {len(broken)} broke the invariant, "
                      f"{played / seconds:.2f} games/s",
                      flush=True)
        for index, first in broken[:5]:
            print(f"  game {index}: {first}")


if __name__ == "__main__":
    main()
