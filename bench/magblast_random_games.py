"""Mag Blast random legal games (issue 10, requirement 3): 2-8 players under every variant.

Each game is played by uniformly random legal commands; after every event the 54 ships and 101
action cards are all accounted for (deck + hands + zones + under ships + discards + chain +
effects + squadrons in flight); on every 7th state every offered legal command is decided and
must be accepted. Prints the counts, the failures (none expected) and games/s.

    python bench/magblast_random_games.py [--games 1000]
"""

from __future__ import annotations

import argparse
import copy
import time
from collections import Counter

from games.core import Rng, Seen, random_bot
from games.magblast import GAME
from games.magblast.data import ACTION_IDS, SHIP_IDS

VARIANTS = [
    {},
    {"attack_mode": "neighbours"},
    {"no_mercy": True},
    {"sound_effects": "off"},
    {"sound_effects": "strict"},
    {"attack_mode": "neighbours", "no_mercy": True, "sound_effects": "strict"},
]
SHIPS, CARDS = sorted(SHIP_IDS), sorted(ACTION_IDS)


def census(state: dict) -> bool:
    ships = list(state["fleet_deck"]) + list(state["fleet_discard"])
    ships += [s for zones in state["zones"] for z in zones.values() for s in z]
    ships += [s for d in state["dealt"] or [] for s in d]
    ships += state["placing"]["ships"] if state["placing"] else []
    cards = list(state["action_deck"]) + list(state["action_discard"])
    cards += [c for h in state["hands"] for c in h]
    cards += [c for v in state["under"].values() for c, _ in v]
    cards += [e["card"] for e in state["effects"]] + [c for c, _ in state["returning"]]
    if state["chain"]:
        cards += [lk["card"] for lk in state["chain"]["links"] if lk["card"] and not lk["gone"]]
    return sorted(ships) == SHIPS and sorted(cards) == CARDS


def play(game: int) -> tuple[int, int]:
    """One game; returns (commands, legal commands checked)."""
    seats, options = 2 + game % 7, VARIANTS[game % len(VARIANTS)]
    state = GAME.fold(GAME.setup(seats, GAME.load_options(options), Rng(f"setup-{game}")))
    checked = 0
    for step in range(50_000):
        if GAME.result(state) is not None:
            return step, checked
        pending = GAME.pending(state)
        seat = sorted(pending)[Rng(f"pick-{game}", step).below(len(pending))]
        legal = GAME.legal_commands(state, seat)
        if step % 7 == 0:
            before = copy.deepcopy(state)
            for command in legal:
                GAME.decide(state, command, seat, Rng("legal", step))
                checked += 1
            assert state == before, "decide mutated the state"
        command = random_bot(Seen(seat, {}, legal), Rng(f"bot-{game}", step))
        for event in GAME.decide(state, command, seat, Rng(f"game-{game}", step)):
            state = GAME.evolve(state, event)
            assert census(state), f"game {game}: {event.type} lost or doubled a card"
    raise AssertionError(f"game {game} did not end")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    args = parser.parse_args()
    started = time.perf_counter()
    failures: Counter[str] = Counter()
    commands = checked = 0
    for game in range(args.games):
        try:
            n, c = play(game)
            commands += n
            checked += c
        except Exception as exc:  # counted and reported, the run goes on
            failures[f"{type(exc).__name__}: {exc}"[:120]] += 1
    elapsed = time.perf_counter() - started
    print(f"magblast random games: {args.games} played (2-8 players, {len(VARIANTS)} variant "
          f"sets), {args.games - sum(failures.values())} clean, {commands} commands, "
          f"{checked} offered legal commands decided and accepted, "
          f"{args.games / elapsed:.1f} games/s")
    for failure, count in failures.most_common():
        print(f"  FAILED x{count}: {failure}")


if __name__ == "__main__":
    main()
