"""What a game's rules cost a move in-process, as the service pays it (issue 29 item 2: "War of
the Ring's rules cost a move <= 0.3 ms"). No Redis, no HTTP: the rules alone.

Per move of a 2-seat game the service works out, in the appending process: ``decide``; a copy
of the state (``copy_state``) and ``evolve`` of each event; ``pending``; and for the push to
each seat that seat's ``view`` and ``legal_commands`` (GameService.view_and_legal). This plays
GAMES seeded games a game, each seat sending its first legal command (as bench/real_games.py's
clients do, ``--pick first``) or a random one (``--pick random``), times each of those calls
on every move, and prints their mean per move and the total.

    python bench/rules_cost.py [--game wotr] [--games 20] [--pick first|random]
                               [--options '{"scenario": "south"}'] [--cap 3000]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games import REGISTRY, UNLISTED, get_game
from games.core import Rng

PARTS = ("decide", "copy+evolve", "pending", "view", "legal")


def play(name: str, seed: str, options: dict[str, Any], pick: str, cap: int,
         seats: int = 2) -> tuple[int, dict[str, float]]:
    """One game to its end (or ``cap`` moves): the moves made and seconds spent per part."""
    game = get_game(name)
    chooser = Rng(seed + ":pick")
    state = game.fold(game.setup(seats, game.load_options(options), Rng(seed, 0)))
    spent = dict.fromkeys(PARTS, 0.0)
    clock = time.perf_counter
    moves = 0
    while moves < cap and game.result(state) is None:
        t0 = clock()
        pending = game.pending(state)
        t1 = clock()
        spent["pending"] += t1 - t0
        legal: dict[int, list[dict[str, Any]]] = {}
        for seat in range(seats):
            t0 = clock()
            game.view(state, seat)
            t1 = clock()
            legal[seat] = game.legal_commands(state, seat)
            t2 = clock()
            spent["view"] += t1 - t0
            spent["legal"] += t2 - t1
        seat = min(pending)
        options_ = legal[seat]
        command = options_[0] if pick == "first" else options_[chooser.below(len(options_))]
        t0 = clock()
        events = game.decide(state, command, seat, Rng(seed, moves + 1))
        t1 = clock()
        state = game.copy_state(state)
        for event in events:
            state = game.evolve(state, event)
        t2 = clock()
        spent["decide"] += t1 - t0
        spent["copy+evolve"] += t2 - t1
        moves += 1
    return moves, spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", action="append",
                        choices=sorted(set(REGISTRY) - UNLISTED))
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--pick", choices=("first", "random"), default="first")
    parser.add_argument("--options", type=json.loads, default=None,
                        help="the games' options (JSON); War of the Ring defaults to south")
    parser.add_argument("--cap", type=int, default=3000, help="moves a game at most")
    args = parser.parse_args()
    print(f"{'game':<11} {'moves':>6} " + " ".join(f"{p:>11}" for p in PARTS)
          + f" {'total':>8}   (ms per move; view and legal: both seats)")
    for name in args.game or ["wotr"]:
        options = args.options if args.options is not None else (
            {"scenario": "south"} if name == "wotr" else {})
        moves, spent = 0, dict.fromkeys(PARTS, 0.0)
        for index in range(args.games):
            made, parts = play(name, f"rules-cost-{index}", options, args.pick, args.cap)
            moves += made
            for part, seconds in parts.items():
                spent[part] += seconds
        per = {part: 1000 * seconds / max(moves, 1) for part, seconds in spent.items()}
        print(f"{name:<11} {moves:>6} " + " ".join(f"{per[p]:>11.3f}" for p in PARTS)
              + f" {sum(per.values()):>8.3f}")


if __name__ == "__main__":
    main()
