"""The reaction window of a Faker Blue turn: defences, challenges, and applying what survived.

fakerblue.md §1 (steps 3-5) and §5. The window opens when a card is used and stays open while
any seat still has a decision:

- a *defence decision* for every player with a card who has an open hit aimed at them (several
  at once against an area attack; a Wizard's new target gets one too, SEED Q&A 6);
- a *challenge decision* for one seat at a time (SEED Q&A 7: "1명씩 차례대로 의심을 진행하여야
  합니다"): the lowest face-down card not yet challenged is offered to the living seats in turn,
  starting left of the card's player and going clockwise; a seat that declines is not asked again
  about that card. So over a network no challenge is a click race.

Defence decisions are independent and may be answered in any order. Challenging the attack card
first lets every open defence decision be answered, then reveals it, which closes defences
(SEED, 의심 단계). The card of a player knocked out mid-challenge is no longer offered: it goes
to the hidden pile unrevealed (SEED, 카드 적용 단계 4: "탈락한 플레이어의 카드는 공개되지 않고").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from games.core import Event, Prompt, Seat, State, Text, ensure
from games.faker_blue.data import DEFENCE_KINDS, KINDS, SHIELD, WIZARD, kind_of
from games.faker_blue.model import (
    CARD_INSPECTED,
    CARD_REVEALED,
    CARDS_DISCARDED,
    CHALLENGE,
    CHALLENGE_MADE,
    CHALLENGE_PASSED,
    DEFENCE_DECLARED,
    DEFENCE_DECLINED,
    DEFEND,
    HEALTH_GAINED,
    HEALTH_LOST,
    HEALTH_STOLEN,
    NO_CHALLENGE,
    NO_DEFENCE,
    PLAYERS_ELIMINATED,
    clone,
)


class Draft:
    """The events decided so far and the state they lead to: decide folds as it goes."""

    def __init__(self, state: State, evolve: Callable[[State, Event], State]):
        self.state = clone(state)
        self.events: list[Event] = []
        self._evolve = evolve

    def emit(self, type_: str, **data: Any) -> None:
        event = Event(type_, data)
        self.events.append(event)
        self.state = self._evolve(self.state, event)


def from_first(state: State) -> list[Seat]:
    """All seats clockwise from the first player (refills and eliminations go in this order)."""
    n = state["seats"]
    return [(state["first"] + i) % n for i in range(n)]


# --- who may do what ----------------------------------------------------------------------------

def _live(play: dict[str, Any], hit: dict[str, Any]) -> bool:
    """A hit still matters unless a Wizard on its way here was revealed as a lie."""
    while hit["parent"] is not None:
        hit = play["hits"][hit["parent"]]
        if play["cards"][hit["defence"]]["truthful"] is False:
            return False
    return True


def open_defences(state: State) -> dict[Seat, int]:
    """Seat -> the hit it must decide to defend now (its lowest open one)."""
    play = state["play"]
    if play is None or not play["defence_open"]:
        return {}
    out: dict[Seat, int] = {}
    for hit in play["hits"]:
        seat = hit["target"]
        if (seat not in out and hit["defence"] is None and not hit["declined"]
                and state["alive"][seat] and state["hands"][seat] and _live(play, hit)):
            out[seat] = hit["id"]
    return out


def awaiting_reveal(play: dict[str, Any]) -> bool:
    """The attack was challenged and waits for the last defence decisions before it flips."""
    attack = play["cards"][0]
    return attack["challenger"] is not None and attack["truthful"] is None


def challenge_turn(state: State) -> tuple[Seat, int] | None:
    """(seat, slot): who is asked now, about which card; None when nobody is (Q&A 7).

    Cards are offered lowest slot first; each to the living seats clockwise from the left of
    its player, skipping those who declined it. A card whose player is out is never offered.
    """
    play = state["play"]
    if play is None or awaiting_reveal(play):
        return None
    n, alive = state["seats"], state["alive"]
    for card in play["cards"]:
        if card["challenger"] is not None or not alive[card["owner"]]:
            continue
        declined = card.get("declined", ())
        for step in range(1, n):
            seat = (card["owner"] + step) % n
            if alive[seat] and seat not in declined:
                return seat, card["slot"]
    return None


def challengeable(state: State, seat: Seat) -> list[int]:
    """The slots ``seat`` may challenge now: the one it is asked about, if it is asked."""
    turn = challenge_turn(state)
    return [turn[1]] if turn is not None and turn[0] == seat else []


def prompts(state: State) -> dict[Seat, Prompt]:
    """Every seat with a decision in the window, each with its own reaction prompt."""
    play = state["play"]
    if play is None:
        # Between a turn's discard and the next turn's draw (a replay can stop inside one
        # command's events, e.g. at cards_discarded) no reaction window is open.
        return {}
    defences = open_defences(state)
    name = KINDS[play["declared"]].name
    asked = challenge_turn(state)
    out = {}
    for seat in range(state["seats"]):
        kinds: tuple[str, ...] = ()
        label: str = ""
        if seat in defences:
            kinds += (DEFEND, NO_DEFENCE)
            label = Text("defend against {card}?", card=name)
        if asked is not None and asked[0] == seat:
            card = play["cards"][asked[1]]
            kinds += (CHALLENGE, NO_CHALLENGE)
            label = label or Text("challenge seat {seat}'s {card}?", seat=card["owner"],
                                  card=KINDS[card["declared"]].name)
        if kinds:
            out[seat] = Prompt(kinds, "reaction", label)
    return out


# --- commands -----------------------------------------------------------------------------------

def defend(draft: Draft, seat: Seat, card: str, declare: str, redirect: Seat | None) -> None:
    """Put the hand card face down as a declared Shield-bearer or Wizard (fakerblue.md §1.3)."""
    state = draft.state
    hit = open_defences(state).get(seat)
    ensure(hit is not None, "no_defence_open", "Nothing aimed at you can be defended now.")
    ensure(card in state["hands"][seat], "card_not_in_hand", "That card is not in your hand.",
           card=card)
    ensure(declare in DEFENCE_KINDS, "not_declarable",
           "A defence may only be declared as a Shield-bearer or a Wizard.", declare=declare)
    if declare == WIZARD:
        ensure(redirect is not None, "redirect_required",
               "A Wizard names the player it redirects to.")
        ensure(0 <= redirect < state["seats"] and state["alive"][redirect] and redirect != seat,
               "invalid_redirect", "A Wizard redirects to another living player.",
               redirect=redirect)
    else:
        ensure(redirect is None, "redirect_not_allowed", "Only a Wizard redirects.")
    draft.emit(DEFENCE_DECLARED, seat=seat, slot=len(state["play"]["cards"]), card=card,
               declared=declare, hit=hit, redirect=redirect)


def decline(draft: Draft, seat: Seat) -> None:
    """No defence against the hit this seat was deciding on."""
    hit = open_defences(draft.state).get(seat)
    ensure(hit is not None, "no_defence_open", "Nothing aimed at you can be defended now.")
    draft.emit(DEFENCE_DECLINED, seat=seat, hit=hit)


def challenge(draft: Draft, seat: Seat, slot: int) -> None:
    """Challenge one face-down card; each card can be challenged once (fakerblue.md §5.3)."""
    state = draft.state
    cards = state["play"]["cards"]
    ensure(slot < len(cards), "no_such_card", "There is no face-down card in that slot.",
           slot=slot)
    ensure(cards[slot]["challenger"] is None, "already_challenged",
           "That card has already been challenged.", slot=slot)
    ensure(cards[slot]["owner"] != seat, "own_card", "You cannot challenge your own card.")
    ensure(state["alive"][cards[slot]["owner"]], "owner_eliminated",
           "That card's player is out: their card is not revealed (SEED, 카드 적용 단계 4).",
           slot=slot)
    turn = challenge_turn(state)
    ensure(turn is not None and turn[0] == seat, "not_asked",
           "Challenges go one at a time in turn order (Q&A 7); you are not asked now.")
    ensure(turn[1] == slot, "not_asked_about_card",
           "You are asked about another card now (Q&A 7).", slot=slot, asked=turn[1])
    draft.emit(CHALLENGE_MADE, seat=seat, slot=slot)
    # SEED: "when the attack card is challenged, first ask whether anyone will still defend".
    if slot != 0 or not open_defences(draft.state):
        reveal(draft, slot)


def pass_challenges(draft: Draft, seat: Seat) -> None:
    """This seat declines the card it is asked about; it is not asked about that card again."""
    turn = challenge_turn(draft.state)
    ensure(turn is not None and turn[0] == seat, "not_asked",
           "Challenges go one at a time in turn order (Q&A 7); you are not asked now.")
    draft.emit(CHALLENGE_PASSED, seat=seat, slot=turn[1])


# --- outcomes -----------------------------------------------------------------------------------

def lose(draft: Draft, seat: Seat, amount: int, reason: str) -> None:
    """Tokens go back to the supply; nobody drops below 0."""
    amount = min(amount, draft.state["health"][seat])
    if amount > 0 and draft.state["alive"][seat]:
        draft.emit(HEALTH_LOST, seat=seat, amount=amount, reason=reason)


def gain(draft: Draft, seat: Seat, amount: int, reason: str) -> None:
    """Healing takes tokens from the supply; an empty supply heals nobody (SEED, setup)."""
    amount = min(amount, draft.state["supply"])
    if amount > 0 and draft.state["alive"][seat]:
        draft.emit(HEALTH_GAINED, seat=seat, amount=amount, reason=reason)


def eliminate_dead(draft: Draft) -> None:
    """Players at 0 are out at once; their hand goes to the hidden pile unrevealed (SEED 4)."""
    state = draft.state
    dead = [s for s in from_first(state) if state["alive"][s] and state["health"][s] <= 0]
    if dead:
        draft.emit(PLAYERS_ELIMINATED, seats=dead, cards=[list(state["hands"][s]) for s in dead])


def reveal(draft: Draft, slot: int) -> None:
    """Flip a challenged card; the wrong side pays (fakerblue.md §4 penalties, as options)."""
    state = draft.state
    card = state["play"]["cards"][slot]
    truthful = kind_of(card["card"]) == card["declared"]
    draft.emit(CARD_REVEALED, slot=slot, owner=card["owner"], card=card["card"],
               declared=card["declared"], truthful=truthful, challenger=card["challenger"])
    options = state["options"]
    if truthful:
        lose(draft, card["challenger"], options["challenger_penalty"], "wrong_challenge")
    else:
        lose(draft, card["owner"], options["liar_penalty"], "caught_lying")
    eliminate_dead(draft)


def settle(draft: Draft) -> bool:
    """Flip a challenged attack once nobody is left deciding a defence; True when the window
    has closed and been applied."""
    state = draft.state
    if awaiting_reveal(state["play"]) and not open_defences(state):
        reveal(draft, 0)
    if sum(draft.state["alive"]) > 1 and prompts(draft.state):
        return False
    apply(draft)
    return True


def apply(draft: Draft) -> None:
    """fakerblue.md §5.4: a lying attack does nothing; otherwise resolve the chain, then move
    every used card to its pile (unrevealed -> hidden, revealed -> public)."""
    state = draft.state
    play = state["play"]
    attack = play["cards"][0]
    spec = KINDS[play["declared"]]
    amount = state["options"]["amounts"][play["declared"]]
    if attack["truthful"] is not False:
        if spec.effect == "heal":
            gain(draft, play["target"], amount, "heal")
        elif spec.effect == "inspect_heal":
            attacker, target = play["attacker"], play["target"]
            if state["alive"][attacker] and state["alive"][target] and state["hands"][target]:
                draft.emit(CARD_INSPECTED, seat=attacker, target=target,
                           card=state["hands"][target][0])
            gain(draft, attacker, amount, "heal")
        else:
            for hit in play["hits"]:
                if hit["parent"] is None:
                    _strike(draft, hit["id"], spec.effect, amount)
    cards = draft.state["play"]["cards"]
    draft.emit(CARDS_DISCARDED,
               public=[c["card"] for c in cards if c["truthful"] is not None],
               hidden=[c["card"] for c in cards if c["truthful"] is None])


def _strike(draft: Draft, hit_id: int, effect: str, amount: int) -> None:
    """One hit: a standing Shield-bearer stops it, a standing Wizard passes it on, a void
    (revealed false) defence lets it land on the defender (fakerblue.md §5.4)."""
    state = draft.state
    play = state["play"]
    hit = play["hits"][hit_id]
    if hit["defence"] is not None:
        defence = play["cards"][hit["defence"]]
        if defence["truthful"] is not False:
            if defence["declared"] == SHIELD:
                return
            child = next(h for h in play["hits"] if h["parent"] == hit_id)
            _strike(draft, child["id"], effect, amount)
            return
    target, source = hit["target"], hit["source"]
    if not state["alive"][target]:
        return
    if effect == "damage":
        lose(draft, target, amount, "damage")
        return
    # Steal (Vampire, Vampire King; Q&A 2, 3): the token goes straight to the beneficiary, who
    # is the Wizard's user after a redirect. An eliminated beneficiary cannot keep it.
    taken = min(amount, state["health"][target])
    if taken <= 0:
        return
    if state["alive"][source]:
        draft.emit(HEALTH_STOLEN, seat=target, by=source, amount=taken)
    else:
        lose(draft, target, taken, "stolen")
