"""Faker Blue bots. A bot is a function of (the seat's view, its legal commands, rng) only.

``basic``: plays its strongest card truthfully and keeps a Shield-bearer or Wizard for defence,
bluffs sometimes (always with a Clown or when it holds only defence cards), challenges a card
when the declared kind is unlikely given the public pile, its own cards and what it has seen,
and defends when it holds a defence (bluffing a defence now and then against a heavy hit).
"""

from __future__ import annotations

from typing import Any

from games.core import Command, Rng
from games.faker_blue.data import KINDS, kind_of

BLUFF_RATE = 0.3  # how often a Clown is played as a bluff while a real attack card waits
CHALLENGE_BELOW = 0.4  # challenge a card less likely than this to be what it claims
CHALLENGE_BELOW_HURT = 0.55  # ... or than this when it hurts the bot


def _unseen(view: dict[str, Any]) -> dict[str, int]:
    """Copies of each kind the bot has not seen (public pile, own cards, peeks, table)."""
    unseen = dict(view["options"]["counts"])
    seen = list(view["public"]) + list(view["hand"]) + [p["card"] for p in view["peeked"]]
    if view["play"] is not None:
        seen += [c["card"] for c in view["play"]["cards"] if c["card"] is not None]
    for card in set(seen):
        unseen[kind_of(card)] -= 1
    return unseen


def _p_true(unseen: dict[str, int], declared: str, held: int) -> float:
    """Chance that a player choosing among ``held`` unknown cards really holds ``declared``."""
    total = sum(max(v, 0) for v in unseen.values())
    if unseen[declared] <= 0 or total <= 0:
        return 0.0
    return 1 - (1 - unseen[declared] / total) ** held


def _power(view: dict[str, Any], kind: str, seat: int) -> float:
    """How much a truthful use of ``kind`` is worth to ``seat`` now."""
    spec = KINDS[kind]
    amount = view["options"]["amounts"][kind]
    foes = sum(view["alive"]) - 1
    if spec.effect == "damage":
        return amount * (foes if spec.target == "area" else 1)
    if spec.effect == "steal":
        return 2 * amount * (foes if spec.target == "area" else 1)
    return min(amount, view["supply"]) + (0.5 if spec.effect == "inspect_heal" else 0)


def _weakest_foe(view: dict[str, Any], seat: int) -> int:
    foes = [s for s in range(view["seats"]) if view["alive"][s] and s != seat]
    return min(foes, key=lambda s: (view["health"][s], (s - seat) % view["seats"]))


def _use(view: dict[str, Any], legal: list[Command], rng: Rng, seat: int) -> Command | None:
    hand = view["hand"]
    attacks = [c for c in hand if KINDS[kind_of(c)].phase == "use"]
    others = [c for c in hand if c not in attacks]
    unseen = _unseen(view)
    clowns = [c for c in others if kind_of(c) == "clown"]
    if attacks and not (clowns and rng.random() < BLUFF_RATE):
        card = max(attacks, key=lambda c: _power(view, kind_of(c), seat))
        if _power(view, kind_of(card), seat) > 0 or not others:
            declare = kind_of(card)
            return _aim(view, legal, seat, card, declare)
    # Bluff with the Clown, else with the weaker defence card; claim a likely, harmful kind.
    card = (clowns or sorted(others, key=lambda c: view["options"]["values"][kind_of(c)])
            or hand)[0]
    declare = max(("assassin", "vampire", "bomber", "fire_dragon"),
                  key=lambda k: (unseen[k] > 0) * _power(view, k, seat) * max(unseen[k], 0))
    return _aim(view, legal, seat, card, declare)


def _aim(view: dict[str, Any], legal: list[Command], seat: int, card: str,
         declare: str) -> Command | None:
    mode = KINDS[declare].target
    target = None if mode == "area" else seat if mode == "any" else _weakest_foe(view, seat)
    command = {"type": "use", "card": card, "declare": declare, "target": target}
    return command if command in legal else None


def _defend(view: dict[str, Any], legal: list[Command], rng: Rng, seat: int) -> Command:
    play = view["play"]
    hit = next(h for h in play["hits"]
               if h["target"] == seat and h["defence"] is None and not h["declined"])
    card = view["hand"][0]
    kind = kind_of(card)
    if kind == "shield_bearer":
        return {"type": "defend", "card": card, "declare": "shield_bearer", "redirect": None}
    if kind == "wizard":
        source = hit["source"]
        redirect = source if view["alive"][source] and source != seat else _weakest_foe(view, seat)
        return {"type": "defend", "card": card, "declare": "wizard", "redirect": redirect}
    amount = view["options"]["amounts"][play["declared"]]
    lethal = amount >= view["health"][seat]
    odds = 0.7 if lethal else 0.3 if amount >= 2 else 0.0
    if KINDS[kind].value >= 9:
        odds /= 2  # a strong card is worth keeping
    if rng.random() < odds:
        return {"type": "defend", "card": card, "declare": "shield_bearer", "redirect": None}
    return {"type": "no_defence"}


def _hurts(view: dict[str, Any], card: dict[str, Any], seat: int) -> bool:
    """Whether the face-down card works against the bot."""
    play = view["play"]
    if card["slot"] == 0:
        spec = KINDS[card["declared"]]
        if spec.target == "area" or play["target"] == seat:
            return spec.defendable  # it hits the bot
        return not spec.defendable and play["target"] != seat  # it heals someone else
    if card["redirect"] == seat:
        return True
    return play["attacker"] == seat  # a defence against the bot's own attack


def _challenge(view: dict[str, Any], legal: list[Command], seat: int) -> Command:
    unseen = _unseen(view)
    health = view["health"][seat]
    penalty = view["options"]["challenger_penalty"]
    best, best_p = None, 1.0
    for command in legal:
        if command["type"] != "challenge":
            continue
        card = view["play"]["cards"][command["slot"]]
        p = _p_true(unseen, card["declared"], 2 if card["slot"] == 0 else 1)
        hurts = _hurts(view, card, seat)
        if not hurts and view["seats"] > 2 and p > 0:
            continue
        if health <= penalty and p > 0:
            continue  # never risk the last token on a guess
        limit = CHALLENGE_BELOW_HURT if hurts else CHALLENGE_BELOW
        if p < limit and p < best_p:
            best, best_p = command, p
    return best or {"type": "no_challenge"}


def basic_bot(view: dict[str, Any], legal: list[Command], rng: Rng) -> Command:
    """The ``basic`` level (see the module docstring)."""
    seat = view["viewer"]
    kinds = set(view["pending"].get(str(seat), {}).get("kinds", ()))
    choice: Command | None = None
    if "use" in kinds:
        choice = _use(view, legal, rng, seat)
    elif "defend" in kinds:
        choice = _defend(view, legal, rng, seat)
    elif "challenge" in kinds:
        choice = _challenge(view, legal, seat)
    if choice in legal:
        return choice
    passes = [c for c in legal if c["type"] in ("no_defence", "no_challenge")]
    return (passes or legal)[0]
