"""Mask Men bots: ``random`` (the kernel's) and ``basic``, a hand-written heuristic.

A bot sees only what a human in its seat sees (``Seen``: its view, legal commands, redacted log)
and an rng; ``expert`` is the kernel's search over ``rules.sample_state``.
"""

from __future__ import annotations

from typing import Any

from games.core import Command, Rng, Seen
from games.maskmen.data import DATA, card_key, wrestler_of

SHED = 10.0  # per card played: emptying the hand first is the goal (maskmen.md §7)
WEAK = 2.0  # per rival known stronger: shed weak wrestlers while they can still be played
STRONG = 2.0  # per rival known weaker: a proven-strong wrestler is worth keeping for later
BREAK_SET = 8.0  # splitting a set of 3: it could lead, or answer any 3-card play it is proven over
SINGLETON = 3.0  # leaving a lone card, which only ever sheds one at a time


def basic_bot(seen: Seen, rng: Rng) -> Command:
    """Shed weak wrestlers early, keep the sets that proofs let play as 3, and give up rather
    than spend them on a small follow (maskmen.md §5)."""
    view, legal = seen.view, seen.legal
    plays = [c for c in legal if c["type"] == "play"]
    give_up = next((c for c in legal if c["type"] == "give_up"), None)
    if not plays:
        return give_up if give_up is not None else legal[0]
    hand = view["hand"] or []
    held: dict[str, int] = {}
    for card in hand:
        held[wrestler_of(card)] = held.get(wrestler_of(card), 0) + 1
    beats = view["knowledge"]["beats"]
    best_score, best = max((_score(c, held, beats, len(hand)), -i) for i, c in enumerate(plays))
    if give_up is not None and best_score < 0:
        return give_up  # every play would waste a set a proof unlocks
    return plays[-best]


def _score(play: Command, held: dict[str, int], beats: dict[str, list[str]], size: int) -> float:
    v, k = play["wrestler"], play["count"]
    if k == size:
        return 1000.0  # going out
    left = held[v] - k
    below_rivals = sum(1 for below in beats.values() if v in below)
    score = SHED * k + WEAK * below_rivals - STRONG * len(beats[v])
    if held[v] >= DATA.max_cards_per_play > left > 0:
        score -= BREAK_SET
    if left == 1:
        score -= SINGLETON
    return score


# --- the expert's hook: a world consistent with what the seat has seen ---------------------------

def sample_state(seen: Seen, rng: Rng) -> dict[str, Any]:
    """A whole state drawn from the seat's information set (its view only: a played card is
    public as its wrestler, so each played copy is given an id the seat does not hold; every
    other card it does not hold is dealt at random to the others' hands and the set-aside)."""
    view, me = seen.view, seen.seat
    held = set(view["hand"] or ())
    spare: dict[str, list[str]] = {}
    for card in rng.shuffled(DATA.deck(view["edition"])):
        if card not in held:
            spare.setdefault(wrestler_of(card), []).append(card)

    def take(wrestler: str) -> str:
        return spare[wrestler].pop()

    rnd = view["round"]
    played = [take(w) for w in view["played"]]
    tail = len(played) - sum(len(p["cards"]) for p in rnd["plays"])
    plays = []
    for p in rnd["plays"]:  # the round's cards are the last ones on the played pile
        plays.append({**p, "cards": played[tail:tail + len(p["cards"])]})
        tail += len(p["cards"])
    pool = rng.shuffled([c for cards in spare.values() for c in cards])
    hands = []
    for seat, count in enumerate(view["hand_counts"]):
        if seat == me:
            hands.append(list(view["hand"]))
        else:
            hands.append(sorted((pool.pop() for _ in range(count)), key=card_key))
    knowledge = view["knowledge"]
    return {
        "seats": view["seats"], "edition": view["edition"], "seasons": view["seasons"],
        "wins_needed": view["wins_needed"], "season": view["season"], "hands": hands,
        "set_aside": sorted(pool, key=card_key), "played": played,
        "debuted": list(knowledge["debuted"]), "proofs": [list(p) for p in knowledge["proofs"]],
        "beats": {w: list(b) for w, b in knowledge["beats"].items()},
        "round": {"number": rnd["number"], "leader": rnd["leader"],
                  "current": dict(rnd["current"]) if rnd["current"] else None,
                  "plays": plays, "given_up": list(rnd["given_up"])},
        "turn": view["turn"], "out": list(view["out"]), "scores": list(view["scores"]),
        "season_wins": list(view["season_wins"]),
        "history": [{**h, "points": list(h["points"])} for h in view["history"]],
        "result": view["result"],
    }
