"""Faker Blue bots. A bot is a function of (what its seat has seen, rng) only.

``basic``: plays its strongest card truthfully and keeps a Shield-bearer or Wizard for defence,
bluffs sometimes (always with a Clown or when it holds only defence cards), defends when it holds
a defence (bluffing a defence now and then against a heavy hit), and challenges only when the
expected health gain is positive (issue 12): the chance that a card is what it claims combines
how often this table has been caught bluffing (the reveals in the seat's log, with a prior) with
how many copies of the kind it has not seen; the gain weighs the penalties against the effect a
caught lie cancels.
"""

from __future__ import annotations

from typing import Any

from games.core import Command, Event, Rng, Seen
from games.faker_blue.data import KINDS, card_ids, kind_of
from games.faker_blue.model import CARD_REVEALED, CARD_USED, DEFENCE_DECLARED

BLUFF_RATE = 0.15  # how often a Clown is played as a bluff while a real attack card waits
DEFENCE_BLUFF = {"lethal": 0.7, "heavy": 0.3, "light": 0.0}  # a bluffed Shield-bearer, by stake
BLUFF_KINDS = ("assassin", "vampire", "bomber", "fire_dragon", "vampire_king")
# The prior on a declaration being true before any reveal, as pseudo-counts: (true, false).
# The prior chance that a declaration is true, before this game's reveals, as measured in
# basic-vs-basic games (bench/faker_blue_challenges.py): attacks are bluffed now and then, heals
# and Wizards hardly ever, and a Shield-bearer the more the hit would cost its user.
ATTACK_TRUTH = 0.85
DEFENCE_TRUTH = {"lethal": 0.3, "heavy": 0.6, "light": 0.97}
RARELY_BLUFFED = 0.97  # heals, the Alchemist, the Wizard
PRIOR_WEIGHT = 4.0  # the prior counts as this many reveals of the kind
# The bot plays safe with its health: a challenge's expected gain is charged this much per
# unit of the variance of its outcome, so a near coin flip is taken only when it pays well.
RISK_AVERSION = 0.16


def _unseen(view: dict[str, Any]) -> dict[str, int]:
    """Copies of each kind the bot has not seen (public pile, own cards, peeks, table)."""
    unseen = dict(view["options"]["counts"])
    seen = list(view["public"]) + list(view["hand"]) + [p["card"] for p in view["peeked"]]
    if view["play"] is not None:
        seen += [c["card"] for c in view["play"]["cards"] if c["card"] is not None]
    for card in set(seen):
        unseen[kind_of(card)] -= 1
    return unseen


def _p_holds(unseen: dict[str, int], declared: str, held: int) -> float:
    """Chance that a player choosing among ``held`` unknown cards really holds ``declared``."""
    total = sum(max(v, 0) for v in unseen.values())
    if unseen[declared] <= 0 or total <= 0:
        return 0.0
    return 1 - (1 - unseen[declared] / total) ** held


def _prior(declared: str, stake: str) -> float:
    if declared == "shield_bearer":
        return DEFENCE_TRUTH[stake]
    if KINDS[declared].effect in ("damage", "steal"):
        return ATTACK_TRUTH
    return RARELY_BLUFFED


def truth_shifts(events: tuple[Event, ...] | list[Event], seat: int) -> dict[Any, float]:
    """What this game's reveals (in the seat's log) taught: for each player (key: its seat)
    and each declared kind (key: the kind), the odds that a declaration is true as learned,
    over the odds the prior gave (1.0 where nothing was flipped). A reveal counts once against
    PRIOR_WEIGHT pseudo-reveals of the prior."""
    tallies: dict[Any, list[float]] = {}
    for event in events:
        if event.type == CARD_REVEALED and event.data.get("owner") != seat:
            prior = _prior(event.data["declared"], "heavy")
            for key in (event.data["owner"], event.data["declared"]):
                tally = tallies.setdefault(key, [0, 0, 0.0])
                tally[0 if event.data["truthful"] else 1] += 1
                tally[2] += prior
    shifts = {}
    for key, (true, false, priors) in tallies.items():
        prior = min(priors / (true + false), 0.99)
        learned = (true + PRIOR_WEIGHT * prior) / (true + false + PRIOR_WEIGHT)
        shifts[key] = (learned / (1 - learned)) / (prior / (1 - prior))
    return shifts


def p_truthful(view: dict[str, Any], card: dict[str, Any], unseen: dict[str, int],
               shifts: dict[str, float]) -> float:
    """The chance a face-down card is the kind declared: zero when every copy of the kind is
    already seen (a sure lie); else the prior for the kind and its stake, in odds, times what
    this game's reveals taught (truth_shifts). A defence is one card held, and a bluffed one
    is claimed whatever the hand, so its odds also scale with the share of the kind among the
    cards unseen against its share of the deck (card counting)."""
    declared = card["declared"]
    if _p_holds(unseen, declared, 2 if card["slot"] == 0 else 1) <= 0.0:
        return 0.0
    stake = "light"
    if card["slot"] > 0:
        play = view["play"]
        hit = play["hits"][card["hit"]]
        amount = view["options"]["amounts"][play["declared"]]
        stake = ("lethal" if amount >= view["health"][hit["target"]]
                 else "heavy" if amount >= 2 else "light")
    prior = _prior(declared, stake)
    odds = prior / (1 - prior) * shifts.get(declared, 1.0) * shifts.get(card["owner"], 1.0)
    if card["slot"] > 0:
        counts = view["options"]["counts"]
        share = unseen[declared] / max(1, sum(max(v, 0) for v in unseen.values()))
        typical = counts[declared] / sum(counts.values())
        odds *= (share / (1 - share)) / (typical / (1 - typical)) if share < 1 else 100.0
    return odds / (1 + odds)


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
    # Bluff with the Clown, else with the weaker defence card. The kind claimed is drawn in
    # proportion to the copies not yet seen, as an honest hand would hold them: a bluff that
    # always claims the same kind is the one a table learns to challenge (issue 12).
    card = (clowns or sorted(others, key=lambda c: view["options"]["values"][kind_of(c)])
            or hand)[0]
    harmful = [k for k in BLUFF_KINDS if unseen[k] > 0] or ["assassin"]
    pick = rng.below(sum(max(unseen[k], 1) for k in harmful))
    for kind in harmful:
        pick -= max(unseen[kind], 1)
        if pick < 0:
            return _aim(view, legal, seat, card, kind)
    return _aim(view, legal, seat, card, harmful[-1])


def _aim(view: dict[str, Any], legal: list[Command], seat: int, card: str,
         declare: str) -> Command | None:
    mode = KINDS[declare].target
    target = None if mode == "area" else seat if mode == "any" else _weakest_foe(view, seat)
    command = {"type": "use", "card": card, "declare": declare, "target": target}
    return command if command in legal else None


def challenged_share(events: tuple[Event, ...] | list[Event], seat: int) -> float:
    """How often the others flipped this seat's face-down cards in this game (its log), with
    one flip in four as the prior: a bluff against a table that checks is a lost token."""
    placed, flipped = 4.0, 1.0
    for event in events:
        if event.type in (CARD_USED, DEFENCE_DECLARED) and event.data["seat"] == seat:
            placed += 1
        elif event.type == CARD_REVEALED and event.data.get("owner") == seat:
            flipped += 1
    return min(1.0, flipped / placed)


def _defend(view: dict[str, Any], legal: list[Command], rng: Rng, seat: int,
            events: tuple[Event, ...]) -> Command:
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
    odds = DEFENCE_BLUFF["lethal" if lethal else "heavy" if amount >= 2 else "light"]
    if not lethal:  # lethal: nothing to lose; else bluff less against a table that checks
        odds *= 1 - challenged_share(events, seat)
    if KINDS[kind].value >= 9:
        odds /= 2  # a strong card is worth keeping
    if rng.random() < odds:
        return {"type": "defend", "card": card, "declare": "shield_bearer", "redirect": None}
    return {"type": "no_defence"}


def _stake(view: dict[str, Any], card: dict[str, Any], seat: int) -> float:
    """The health the bot gains, relative to its rivals, if this card's effect is cancelled."""
    play = view["play"]
    rivals = max(1, sum(view["alive"]) - 1)
    attack = KINDS[play["declared"]]
    amount = view["options"]["amounts"][play["declared"]]
    if attack.effect == "steal":
        amount *= 2  # a steal moves a token from one side to the other
    if card["slot"] == 0:
        if attack.effect in ("heal", "inspect_heal"):
            healed = min(amount, view["supply"]) + (0.5 if attack.effect == "inspect_heal" else 0)
            return healed / rivals  # a rival's heal, or a peek at the bot
        if attack.target == "area" or play["target"] == seat:
            mine = [h for h in play["hits"] if h["target"] == seat and h["parent"] is None]
            shielded = any(h["defence"] is not None for h in mine)
            return amount * (0.5 if shielded else 1.0)  # a standing defence may save it anyway
        return amount / rivals / 2  # it hurts a rival: cancelling it helps only the others
    if card["redirect"] == seat or play["attacker"] == seat:
        return float(amount)  # a Wizard sending it to the bot, or a defence against its attack
    return 0.0


def _challenge(view: dict[str, Any], legal: list[Command], seat: int,
               events: tuple[Event, ...]) -> Command:
    """Challenge the card with the best positive expected health gain, if any."""
    unseen = _unseen(view)
    options = view["options"]
    health = view["health"][seat]
    rivals = max(1, sum(view["alive"]) - 1)
    shifts = truth_shifts(events, seat)
    best, best_gain = None, 0.0
    for command in legal:
        if command["type"] != "challenge":
            continue
        card = view["play"]["cards"][command["slot"]]
        p = p_truthful(view, card, unseen, shifts)
        if health <= options["challenger_penalty"] and p > 0:
            continue  # never risk the last token on a guess
        caught = options["liar_penalty"] / rivals + _stake(view, card, seat)
        wrong = options["challenger_penalty"]
        gain = (1 - p) * caught - p * wrong
        # Mean-variance: a guess near a coin flip swings health both ways; pay for it.
        gain -= RISK_AVERSION * p * (1 - p) * (caught + wrong) ** 2
        if gain > best_gain:
            best, best_gain = command, gain
    return best or {"type": "no_challenge"}


def basic_bot(seen: Seen, rng: Rng) -> Command:
    """The ``basic`` level (see the module docstring)."""
    view, legal = seen.view, seen.legal
    seat = view["viewer"]
    kinds = set(view["pending"].get(str(seat), {}).get("kinds", ()))
    choice: Command | None = None
    if "use" in kinds:
        choice = _use(view, legal, rng, seat)
    elif "defend" in kinds:
        choice = _defend(view, legal, rng, seat, seen.events)
    elif "challenge" in kinds:
        choice = _challenge(view, legal, seat, seen.events)
    if choice in legal:
        return choice
    passes = [c for c in legal if c["type"] in ("no_defence", "no_challenge")]
    return (passes or legal)[0]


# --- the expert's hook: a world consistent with what the seat has seen ---------------------------

def sample_state(seen: Seen, rng: Rng) -> dict[str, Any]:
    """A whole state drawn from the seat's information set (its view and redacted log only).

    Cards the seat cannot place are shuffled into the places it cannot see: the others' hands
    (a card seen with an Alchemist stays where it was seen), their face-down cards on the table
    (the kind declared, with the chance ``p_truthful`` gives it, so the world bluffs as often
    as this table does), the hidden pile and the draw pile. The seat's own face-down cards that
    were never flipped are known to be in the hidden pile.
    """
    view, me = seen.view, seen.seat
    play = view["play"]
    on_table = [c["card"] for c in play["cards"] if c["card"] is not None] if play else []
    peeked = {p["card"]: p["seat"] for p in view["peeked"]}
    public = set(view["public"])
    mine_hidden = [e.data["card"] for e in seen.events
                   if e.type in (CARD_USED, DEFENCE_DECLARED) and e.data["seat"] == me
                   and e.data["card"] not in public and e.data["card"] not in on_table]
    known = set(view["hand"]) | public | set(on_table) | set(peeked) | set(mine_hidden)
    pool = rng.shuffled([c for c in card_ids(view["options"]["counts"]) if c not in known])
    cards = []
    if play is not None:
        unseen = _unseen(view)
        shifts = truth_shifts(seen.events, me)
        for c in play["cards"]:
            card = c["card"]
            if card is None:
                want = c["declared"] if rng.random() < p_truthful(view, c, unseen, shifts) \
                    else None
                card = next((x for x in pool if want is None or kind_of(x) == want), pool[0])
                if want is None:  # a bluff: any card but the kind claimed, if there is one
                    card = next((x for x in pool if kind_of(x) != c["declared"]), card)
                pool.remove(card)
            cards.append({**c, "card": card, "declined": list(c.get("declined", ()))})
    hands: list[list[str]] = []
    for seat, count in enumerate(view["hand_counts"]):
        if seat == me:
            hands.append(list(view["hand"]))
            continue
        hand = [card for card, holder in peeked.items() if holder == seat]
        while len(hand) < count:
            hand.append(pool.pop())
        hands.append(hand)
    hidden = list(mine_hidden)
    while len(hidden) < view["hidden"]:
        hidden.append(pool.pop())
    state = {key: view[key] for key in ("seats", "options", "first", "turn", "turn_number",
                                        "step", "supply", "box", "result")}
    state.update(health=list(view["health"]), alive=list(view["alive"]),
                 out=[list(g) for g in view["out"]], public=list(view["public"]),
                 hands=hands, hidden=hidden, deck=pool, known={str(me): list(peeked)},
                 play=None if play is None else {**play, "cards": cards,
                                                 "hits": [dict(h) for h in play["hits"]],
                                                 "passed": list(play["passed"])})
    return state
