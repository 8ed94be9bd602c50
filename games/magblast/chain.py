"""Mag Blast's response chain: who may answer a card just played, and resolving it LIFO.

magblast.md §4b-§4c. Every action card played opens a chain (``state["chain"]``)::

    {links: [{seat, card, action, ...}], passed: [seats that passed on the top link],
     silent: bool}

Link 0 is the card played; each later link answers the link below it (a response always answers
the card on top). The seats that may answer the top link are asked **one at a time, in turn
order, starting after the player of that card**. Who is asked follows from the rules and the
table alone (``eligible``: an opponent for Temporal Flux, the attacked seat for Evasive Action,
a Fighter or Cranium Consortium), never from what the hand holds: the prompts are public, so
asking only the holders of an answer (as AQ's ``playersThatCanRespondToActions``) would tell the
table who holds one (issue 12). A seat asked with nothing playable may only pass; only its own
legal commands show that. A seat with an empty hand (its count is public) is not asked. A new
response starts a fresh round of asking after its player. When every seat has passed on the top
link, the chain resolves last-in first-out: a response that stands cancels the link below it.

Games created before this (their options lack ``windows``) keep the old window, which asked
only the seats holding an answer, so their logs still fold and audit exactly as recorded.

Answers: Temporal Flux (any opponent of the top card's player; it cancels any action card,
another Flux included, never an ability: decisions block), Evasive Action (the owner of the
targeted ship, against a Blast, Ramming Speed, Squadron or Direct Hit), an intercepting Fighter
(the owner of the targeted ship against a Squadron, if that fleet has a carrier and no Minefield)
and Cranium Consortium (discard cards showing 2 resource icons to cancel a Blast or Ramming Speed
on one of its fleet ships).

Where the cards go: a card Flux cancels is discarded (a Squadron too); a Squadron evaded goes back
to its owner at the end of the turn with the others launched (decision: the KR text "returns to
the hand" read with "every launched squadron returns at the end of the turn", so it cannot be
relaunched at once); an intercepted Bomber is discarded and the Fighter returns at the end of the
turn; two Fighters meeting are both discarded (KR 비행대 방어하기).
"""

from __future__ import annotations

from typing import Any

from games.core import Seat, State, ensure
from games.magblast import effects
from games.magblast.data import ACTIONS, SHIPS, kind
from games.magblast.model import (
    BLAST_MISSED,
    CARD_CANCELLED,
    CARD_PLAYED,
    CARD_SETTLED,
    CHAIN_CLOSED,
    RESPONSE_MADE,
    RESPONSE_PASSED,
    SOUND_MADE,
)
from games.magblast.table import Draft, after, carriers, race, under_effect

ATTACKS = ("blast", "ramming", "launch", "direct_hit")


def top(state: State) -> dict[str, Any]:
    return state["chain"]["links"][-1]


def answers(state: State, seat: Seat) -> dict[str, list[str]]:
    """What ``seat`` could answer the top link with: {"respond": cards, "cranium": [] or [""]}."""
    chain = state["chain"]
    link = chain["links"][-1]
    hand = state["hands"][seat]
    cards: list[str] = []
    if seat != link["seat"] and link["action"] != "cranium":
        cards += [c for c in hand if kind(c) == "temporal_flux"]
    out: dict[str, list[str]] = {}
    if len(chain["links"]) == 1 and link["action"] in ATTACKS and seat == link["target_seat"]:
        cards += [c for c in hand if kind(c) == "evasive_action"]
        if (link["action"] == "launch" and carriers(state, seat)
                and not under_effect(state, seat, "minefield")):
            cards += [c for c in hand if kind(c) == "fighter"]
        if (link["action"] in ("blast", "ramming") and race(state, seat) == "cranium"
                and link["target"] in SHIPS
                and sum(len(ACTIONS[c].icons) for c in hand) >= 2):
            out["cranium"] = [""]
    if cards:
        out["respond"] = cards
    return out


def eligible(state: State, seat: Seat) -> tuple[str, ...]:
    """The answer kinds the rules give ``seat`` against the top link whatever its hand holds
    (magblast.md §4c), from public facts only: ``respond`` (Temporal Flux for an opponent of
    the card's player; Evasive Action or a Fighter for the attacked seat) and ``cranium``."""
    chain = state["chain"]
    link = chain["links"][-1]
    if not state["hands"][seat]:
        return ()  # every answer is a hand card (or paid with them), and the count is public
    out: tuple[str, ...] = ()
    if seat != link["seat"] and link["action"] != "cranium":
        out = ("respond",)
    if len(chain["links"]) == 1 and link["action"] in ATTACKS and seat == link["target_seat"]:
        out = ("respond",)
        if (link["action"] in ("blast", "ramming") and race(state, seat) == "cranium"
                and link["target"] in SHIPS):
            out += ("cranium",)
    return out


def asks_holders_only(state: State) -> bool:
    """A game created before issue 12's fix (no ``windows`` option): its windows asked only the
    seats holding an answer, and its log re-runs that way."""
    return state["options"].get("windows") != "every_eligible"


def responder(state: State) -> Seat | None:
    """The seat asked now: the first in turn order after the top card's player that has not
    passed on it and that the rules let answer it (``eligible``, not its hand)."""
    chain = state["chain"]
    if chain is None or chain["silent"]:
        return None
    may = answers if asks_holders_only(state) else eligible
    for seat in after(state, top(state)["seat"]):
        if seat not in chain["passed"] and may(state, seat):
            return seat
    return None


def play(draft: Draft, seat: Seat, card: str, **link: Any) -> None:
    """Put an action card on the table: it opens the chain, which runs until a seat must be
    asked or it has resolved."""
    draft.emit(CARD_PLAYED, seat=seat, card=card, link=link)
    advance(draft)


def advance(draft: Draft) -> None:
    state = draft.state
    if state["chain"] is None or state["chain"]["silent"] or responder(state) is not None:
        return
    resolve(draft)


def respond(draft: Draft, seat: Seat, card: str) -> None:
    """Answer the top link with Temporal Flux, Evasive Action or an intercepting Fighter."""
    ensure(responder(draft.state) == seat, "not_asked", "You are not the one asked to respond.")
    options = answers(draft.state, seat).get("respond", [])
    ensure(card in options, "cannot_respond_with",
           "That card cannot answer the card on top of the chain.", card=card)
    action = {"temporal_flux": "flux", "evasive_action": "evade",
              "fighter": "intercept"}[kind(card)]
    draft.emit(RESPONSE_MADE, seat=seat, card=card, cards=[], action=action)
    advance(draft)


def cranium(draft: Draft, seat: Seat, cards: list[str]) -> None:
    """Cranium Consortium: discard cards showing exactly 2 resource icons to cancel the Blast."""
    state = draft.state
    ensure(responder(state) == seat, "not_asked", "You are not the one asked to respond.")
    ensure("cranium" in answers(state, seat), "no_power", "Cranium Consortium cannot answer this.")
    ensure(len(set(cards)) == len(cards) and all(c in state["hands"][seat] for c in cards),
           "card_not_in_hand", "Those cards are not all in your hand.")
    ensure(sum(len(ACTIONS[c].icons) for c in cards) == 2
           and all(ACTIONS[c].icons for c in cards), "wrong_icons",
           "Discard cards showing exactly 2 resource icons.")
    draft.emit(RESPONSE_MADE, seat=seat, card=None, cards=list(cards), action="cranium")
    advance(draft)


def decline(draft: Draft, seat: Seat) -> None:
    ensure(responder(draft.state) == seat, "not_asked", "You are not the one asked to respond.")
    draft.emit(RESPONSE_PASSED, seat=seat)
    advance(draft)


def make_sound(draft: Draft, seat: Seat, sound: str) -> None:
    """sound_effects "on": the sound may follow the card, before anyone answers it."""
    chain = draft.state["chain"]
    ensure(chain is not None and chain["silent"] and chain["links"][0]["seat"] == seat,
           "no_blast_waiting", "No Blast of yours is waiting for its sound.")
    ensure(bool(sound.strip()), "no_sound", "A sound effect is some text, not nothing.")
    draft.emit(SOUND_MADE, seat=seat, sound=sound)
    advance(draft)


def miss(draft: Draft, seat: Seat, reason: str) -> None:
    """KR 함포 발사: a Blast without its sound effect misses (the card is spent)."""
    chain = draft.state["chain"]
    ensure(chain is not None and chain["silent"] and chain["links"][0]["seat"] == seat,
           "no_blast_waiting", "No Blast of yours is waiting for its sound.")
    draft.emit(BLAST_MISSED, seat=seat, card=chain["links"][0]["card"], reason=reason)


def _settle(draft: Draft, link: dict[str, Any], to: str, owner: Seat | None = None) -> None:
    if link["card"] is not None:
        draft.emit(CARD_SETTLED, card=link["card"], to=to,
                   owner=link["seat"] if owner is None else owner)


def resolve(draft: Draft) -> None:
    """Resolve the chain last-in first-out, then close it."""
    links = draft.state["chain"]["links"]
    cancelled: dict[int, dict[str, Any]] = {}
    for i in reversed(range(len(links))):
        link = links[i]
        by = cancelled.get(i)
        if by is not None:
            draft.emit(CARD_CANCELLED, card=link["card"], seat=link["seat"], by=by["action"],
                       by_seat=by["seat"])
            if by["action"] == "evade" and link["action"] == "launch":
                _settle(draft, link, "returning")
            else:
                _settle(draft, link, "discard")
            continue
        if i > 0:
            cancelled[i - 1] = link
            base = links[i - 1]
            if link["action"] == "intercept" and base.get("squadron") == "bomber":
                _settle(draft, link, "returning")  # it shot the Bomber down and flies home
            elif link["action"] != "cranium":
                _settle(draft, link, "discard")
            continue
        effects.resolve_base(draft, link)
    draft.emit(CHAIN_CLOSED)
