"""Loot bot levels: ``random`` (uniform over the legal commands) and ``basic`` (a greedy one-move
heuristic). Bots see only what their seat has seen (``Seen``: its view, legal commands and
redacted log), never the state; ``expert`` is the kernel's search over ``rules.sample_state``."""

from __future__ import annotations

from typing import Any

from games.core import Bot, Command, Rng, Seen
from games.loot.data import ADMIRAL, CAPTAIN, DECK_IDS, GOLD, KIND, MERCHANT, PIRATE, SKULLS
from games.loot.model import (
    DISCARD,
    DISCARD_TAKEN,
    DRAW,
    MERCHANT_CAPTURED,
    PLAY_ADMIRAL,
    PLAY_CAPTAIN,
    PLAY_MERCHANT,
    PLAY_PIRATE,
    TAKE_DISCARD,
)

_TRUMP_COST = 3.5  # a captain or the admiral is worth keeping for a rich ship
_KEEP = {MERCHANT: 0.0, PIRATE: 1.0, CAPTAIN: 6.0, ADMIRAL: 6.0}


def _leader_after(ship: dict[str, Any], side: int, skulls: int, trump: bool) -> int | None:
    """Who would lead on ``ship`` if ``side`` added ``skulls`` or played a trump (loot.md §5.4)."""
    if trump:
        return side
    if ship["trump"] is not None:
        return ship["trump"]
    strengths = list(ship["strengths"])
    strengths[side] += skulls
    best = max(strengths)
    if best == 0:
        return ship["leader"]
    if strengths.count(best) > 1:
        return None
    return strengths.index(best)


def _battle_score(view: dict[str, Any], command: Command, side: int) -> float:
    ship = next(s for s in view["ships"] if s["merchant"] == command["merchant"])
    gold = ship["gold"]
    now = ship["leader"]
    trump = command["type"] != PLAY_PIRATE
    skulls = 0 if trump else SKULLS[command["card"]]
    if now == side:
        return -1.0 - skulls  # already leading: keep the card for a real fight
    after = _leader_after(ship, side, skulls, trump)
    if after != side:
        # Building towards a lead or a tie is worth a little on a rich ship.
        return 0.1 * gold - 0.2 * skulls if after is None else -0.5
    swing = 2.0 * gold if now is not None else float(gold)  # take it from the leader, or a tie
    cost = _TRUMP_COST if trump else 0.35 * skulls
    if trump and gold < 4 and view["deck_count"] > 10:
        cost += 2.0  # save trumps for rich ships while the game is young
    return 2.0 + swing - cost


def basic(seen: Seen, rng: Rng) -> Command:
    """Greedy: grab or defend the richest ship cheaply, play merchants when safe, else draw."""
    view, legal = seen.view, seen.legal
    side = view["side_of"][view["viewer"]]
    deck = view["deck_count"]
    hand = view["hand"] or []
    defenders = sum(1 for c in hand if KIND[c] in (PIRATE, ADMIRAL))
    best, best_score = [], float("-inf")
    for command in legal:
        kind = command["type"]
        if kind == DRAW:
            score = 1.0
        elif kind == PLAY_MERCHANT:
            gold = GOLD[command["card"]]
            score = 0.3 + 0.25 * gold + 0.3 * min(defenders, 3)
            if deck <= len(view["hand_counts"]) * 2:
                score += gold  # §7: a merchant still in hand at the end costs its gold
        elif kind in (PLAY_PIRATE, PLAY_CAPTAIN, PLAY_ADMIRAL):
            score = _battle_score(view, command, side)
        elif kind == DISCARD:
            card = command["card"]
            score = -_KEEP[KIND[card]] - SKULLS[card] * 0.5
        elif kind == TAKE_DISCARD:
            score = 0.2 * _KEEP[KIND[command["card"]]] + 0.1 * SKULLS[command["card"]]
        else:
            score = 0.0
        if score > best_score:
            best, best_score = [command], score
        elif score == best_score:
            best.append(command)
    return best[rng.below(len(best))]


def level(name: str) -> Bot:
    """The game's own bot of level ``name`` (KeyError for one the kernel provides)."""
    return {"basic": basic}[name]


# --- the expert's hook: a world consistent with what the seat has seen ---------------------------

def sample_state(seen: Seen, rng: Rng) -> dict[str, Any]:
    """A whole state drawn from the seat's information set: its view, plus what its log shows
    of the others (the merchants each one captured, cards taken from the discard pile and not
    played since); every card it cannot place is dealt at random to the others' hands and the
    draw pile."""
    view, me = seen.view, seen.seat
    n, sides = view["seats"], view["sides"]
    won: list[list[str]] = [[] for _ in range(n)]
    taken: dict[int, list[str]] = {}
    for event in seen.events:
        if event.type == MERCHANT_CAPTURED:
            won[event.data["seat"]].append(event.data["merchant"])
        elif event.type == DISCARD_TAKEN and event.data["seat"] != me:
            taken.setdefault(event.data["seat"], []).append(event.data["card"])
    won[me] = list(view["won"])
    ships = []
    public = set(view["discard"]) | {c for w in won for c in w}
    for ship in view["ships"]:
        anchor: list[int | None] = [None] * sides
        anchor[ship["owner"] % sides] = ship["owner"]
        for seat, card in ship["plays"]:
            if anchor[seat % sides] is None:
                anchor[seat % sides] = seat
            public.add(card)
        public.add(ship["merchant"])
        ships.append({"m": ship["merchant"], "owner": ship["owner"],
                      "plays": [list(p) for p in ship["plays"]], "col": list(ship["colours"]),
                      "str": list(ship["strengths"]), "anchor": anchor, "trump": ship["trump"]})
    known = public | set(view["hand"])
    pool = rng.shuffled([c for c in DECK_IDS if c not in known])
    hands: list[list[str]] = []
    for seat, count in enumerate(view["hand_counts"]):
        if seat == me:
            hands.append(list(view["hand"]))
            continue
        hand = [c for c in taken.get(seat, []) if c not in known][:count]
        for card in hand:
            pool.remove(card)
        while len(hand) < count:
            hand.append(pool.pop())
        hands.append(hand)
    options = view["options"]
    return {"n": n, "sides": sides, "teams": view["teams"],
            "empty_deck_mode": options["empty_deck_mode"],
            "team_capture": options["team_capture"],
            "end_requires_play": options["end_requires_play"], "turn": view["turn"],
            "hands": hands, "deck": pool, "discard": list(view["discard"]), "won": won,
            "ships": ships, "over": view["over"]}
