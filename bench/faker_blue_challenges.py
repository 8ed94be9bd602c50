"""Faker Blue ``basic`` challenges (issue 12): right vs wrong challenges, and where the health went,
over 2-player basic-vs-basic games; then basic against a copy that never challenges.

    python bench/faker_blue_challenges.py [--games 500]

Done when right >= wrong, and the never-challenging copy does not win more than half its games.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

from games.core import Rng, Seen
from games.faker_blue import GAME
from games.faker_blue.bot import basic_bot
from workers.selfplay import wilson_interval


def never_challenges(seen: Seen, rng: Rng) -> dict:
    """``basic`` with every challenge turned into a pass."""
    command = basic_bot(seen, rng)
    return {"type": "no_challenge"} if command["type"] == "challenge" else command


def play(bots: list, seed: str, tally: Counter) -> dict:
    state = GAME.fold(GAME.setup(2, GAME.load_options({}), Rng(seed, 0)))
    log = []
    step = 0
    while GAME.result(state) is None:
        pending = sorted(GAME.pending(state))
        seat = pending[Rng(f"{seed}:pick", step).below(len(pending))]
        command = bots[seat](GAME.seen(state, seat, log), Rng(f"{seed}:bot", step))
        events = GAME.decide(state, command, seat, Rng(seed, step + 1))
        state = GAME.fold(events, state)
        log += events
        step += 1
    for event in log:
        if event.type == "card_revealed":
            tally["wrong" if event.data["truthful"] else "right"] += 1
        elif event.type == "health_lost":
            tally[f"lost_{event.data['reason']}"] += event.data["amount"]
        elif event.type == "health_stolen":
            tally["lost_stolen"] += event.data["amount"]
    return GAME.result(state)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=500)
    args = parser.parse_args()
    started = time.perf_counter()
    tally: Counter = Counter()
    for index in range(args.games):
        play([basic_bot, basic_bot], f"challenges:{index}", tally)
    attacks = tally["lost_damage"] + tally["lost_stolen"]
    print(f"basic vs basic, {args.games} 2-player games: right challenges {tally['right']}, "
          f"wrong {tally['wrong']}; health lost to wrong challenges "
          f"{tally['lost_wrong_challenge']}, to caught lies {tally['lost_caught_lying']}, "
          f"to attacks {attacks}")
    wins = 0
    for index in range(args.games):
        me = index % 2  # seats rotated
        bots = [basic_bot, basic_bot]
        bots[me] = never_challenges
        wins += me in play(bots, f"never:{index}", Counter())["winners"]
    low, high = wilson_interval(wins, args.games)
    print(f"never-challenging basic vs basic: wins {wins / args.games:.1%} "
          f"[95% CI {low:.1%}-{high:.1%}] of {args.games} games "
          f"({time.perf_counter() - started:.1f}s in all)")


if __name__ == "__main__":
    main()
