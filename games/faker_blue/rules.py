"""Faker Blue rules: setup, decide, evolve, pending, legal and default commands, result.

The spec is shared/rules/fakerblue.md (its decisions block settles the lost card table); the
original Korean text with Q&A 1-7 is shared/seeds/004_c4fbdc3041988119.txt and wins where both
speak. The reaction window (defences and challenges) lives in reactions.py.

A turn: the draw is automatic (it needs no decision), so a turn starts with ``turn_started`` and
``card_drawn``; the active player then ``use``s a card, the reaction window runs, and its last
command also applies the result, refills, checks the end and starts the next turn.
"""

from __future__ import annotations

import math
from typing import Any

from games.core import (
    Bot,
    Command,
    Event,
    Prompt,
    Rejected,
    Rng,
    Seat,
    Seen,
    State,
    Text,
    Viewer,
    ensure,
)
from games.expert import SearchingGame
from games.faker_blue import reactions, shapes, views
from games.faker_blue.bot import basic_bot, sample_state
from games.faker_blue.data import (
    AMOUNTS,
    ATTACK_KINDS,
    COUNTS,
    HEALTH_TOKENS,
    KINDS,
    SETUPS,
    SHIELD,
    VALUES,
    WIZARD,
    card_ids,
    kind_of,
)
from games.faker_blue.model import (
    CARD_DRAWN,
    CARD_INSPECTED,
    CARD_REVEALED,
    CARD_USED,
    CARDS_DEALT,
    CARDS_DISCARDED,
    CHALLENGE,
    CHALLENGE_MADE,
    CHALLENGE_PASSED,
    COMMANDS,
    DEFENCE_DECLARED,
    DEFENCE_DECLINED,
    DEFEND,
    GAME_ENDED,
    GAME_STARTED,
    HEALTH_GAINED,
    HEALTH_LOST,
    HEALTH_STOLEN,
    NO_CHALLENGE,
    NO_DEFENCE,
    PLAYERS_ELIMINATED,
    TURN_STARTED,
    USE,
    FakerBlueOptions,
    clone,
)
from games.faker_blue.reactions import Draft, from_first


def resolve_options(options: dict[str, Any], seats: int) -> dict[str, Any]:
    """Loaded options made concrete for ``seats``: table health/supply, full card tables."""
    mode = "beginner" if options.get("beginner") else "standard"
    table = SETUPS[mode][seats]
    return {
        **options,
        "health": table.health if options.get("health") is None else options["health"],
        "supply": table.supply if options.get("supply") is None else options["supply"],
        "counts": {**COUNTS, **options.get("counts", {})},
        "values": {**VALUES, **options.get("values", {})},
        "amounts": {**AMOUNTS, **options.get("amounts", {})},
    }


def targets_for(state: State, seat: Seat, kind: str) -> list[Seat | None]:
    """Who ``seat`` may name when declaring ``kind`` (fakerblue.md §5.1)."""
    mode = KINDS[kind].target
    if mode == "area":
        return [None]
    living = [s for s in range(state["seats"]) if state["alive"][s]]
    return living if mode == "any" else [s for s in living if s != seat]


def hand_value(state: State, seat: Seat) -> int:
    """The tie-break value of a hand; no card counts as the lowest, 0 (SEED, end of game)."""
    values = state["options"]["values"]
    return max((values[kind_of(c)] for c in state["hands"][seat]), default=0)


class FakerBlue(SearchingGame):
    name = "faker_blue"
    title = "Faker Blue"
    min_seats = 2
    max_seats = 4
    # 2: challenges are offered one seat at a time (Q&A 7); a v1 log does not re-run under v2.
    rules_version = "2"
    spec = "shared/rules/fakerblue.md"
    options = FakerBlueOptions
    commands = COMMANDS
    view_shape = shapes.VIEW
    result_shape = shapes.RESULT
    event_shapes = shapes.EVENTS
    # Each reveals hidden cards or a random outcome to someone.
    undo_barriers = frozenset({GAME_STARTED, CARDS_DEALT, CARD_DRAWN, CARD_REVEALED,
                               CARD_INSPECTED})
    bot_levels = ("random", "basic", "expert")
    playouts_per_ms = 0.3  # the expert's budget (games/expert.py; bench/expert_bot.py)
    horizon = 24  # playout decisions before evaluate() scores the health standing

    # --- setup and evolve ---------------------------------------------------------------------

    def setup(self, seats: int, options: dict[str, Any], rng: Rng) -> list[Event]:
        opts = resolve_options(options, seats)
        deck = rng.shuffled(card_ids(opts["counts"]))
        ensure(len(deck) > seats, "deck_too_small", "The deck must hold a card for everyone and "
               "one to draw.", cards=len(deck))
        # SEED setup: one card each; the first player (seat 0, where the eldest sits) draws.
        first = 0
        return [
            Event(GAME_STARTED, {"seats": seats, "options": opts, "first": first, "deck": deck}),
            Event(CARDS_DEALT, {"hands": [[deck[i]] for i in range(seats)]}),
            Event(TURN_STARTED, {"seat": first, "turn": 1}),
            Event(CARD_DRAWN, {"seat": first, "card": deck[seats], "reason": "turn"}),
        ]

    def evolve(self, state: State, event: Event) -> State:
        data = event.data
        kind = event.type
        if kind == GAME_STARTED:
            n, opts = data["seats"], data["options"]
            return {"seats": n, "options": opts, "first": data["first"], "turn": data["first"],
                    "turn_number": 0, "step": "use", "deck": list(data["deck"]),
                    "hands": [[] for _ in range(n)], "health": [opts["health"]] * n,
                    "supply": opts["supply"], "alive": [True] * n,
                    # tokens left in the box (SEED: 35 in all); never used in play
                    "box": max(0, HEALTH_TOKENS - n * opts["health"] - opts["supply"]),
                    "out": [], "public": [], "hidden": [], "known": {}, "play": None,
                    "result": None}
        if kind == CARDS_DEALT:
            for seat, hand in enumerate(data["hands"]):
                for card in hand:
                    state["deck"].remove(card)
                    state["hands"][seat].append(card)
        elif kind == TURN_STARTED:
            state["turn"], state["turn_number"], state["step"] = data["seat"], data["turn"], "use"
        elif kind == CARD_DRAWN:
            state["deck"].remove(data["card"])
            state["hands"][data["seat"]].append(data["card"])
        elif kind == CARD_USED:
            state["hands"][data["seat"]].remove(data["card"])
            defendable = KINDS[data["declared"]].defendable
            state["step"] = "react"
            state["play"] = {
                "attacker": data["seat"], "declared": data["declared"], "target": data["target"],
                "cards": [self._slot(0, data["seat"], data["card"], data["declared"])],
                "hits": [{"id": i, "target": t, "source": data["seat"], "parent": None,
                          "defence": None, "declined": False}
                         for i, t in enumerate(data["targets"] if defendable else [])],
                "defence_open": defendable, "passed": []}
        elif kind == DEFENCE_DECLARED:
            play = state["play"]
            state["hands"][data["seat"]].remove(data["card"])
            slot = self._slot(data["slot"], data["seat"], data["card"], data["declared"])
            slot.update(hit=data["hit"], redirect=data["redirect"])
            play["cards"].append(slot)
            play["hits"][data["hit"]]["defence"] = data["slot"]
            if data["declared"] == WIZARD:
                play["hits"].append({"id": len(play["hits"]), "target": data["redirect"],
                                     "source": data["seat"], "parent": data["hit"],
                                     "defence": None, "declined": False})
            play["passed"] = []
        elif kind == DEFENCE_DECLINED:
            state["play"]["hits"][data["hit"]]["declined"] = True
        elif kind == CHALLENGE_PASSED:
            if "slot" in data:  # Q&A 7: declined that one card
                state["play"]["cards"][data["slot"]].setdefault("declined", []).append(
                    data["seat"])
            else:  # rules version 1 logs: a pass covered every card until something changed
                state["play"]["passed"].append(data["seat"])
        elif kind == CHALLENGE_MADE:
            state["play"]["cards"][data["slot"]]["challenger"] = data["seat"]
        elif kind == CARD_REVEALED:
            play = state["play"]
            play["cards"][data["slot"]]["truthful"] = data["truthful"]
            play["passed"] = []
            if data["slot"] == 0:
                play["defence_open"] = False  # SEED: no defence once the attack is revealed
        elif kind == HEALTH_LOST:
            state["health"][data["seat"]] -= data["amount"]
            state["supply"] += data["amount"]
        elif kind == HEALTH_GAINED:
            state["health"][data["seat"]] += data["amount"]
            state["supply"] -= data["amount"]
        elif kind == HEALTH_STOLEN:
            state["health"][data["seat"]] -= data["amount"]
            state["health"][data["by"]] += data["amount"]
        elif kind == CARD_INSPECTED:
            state["known"].setdefault(str(data["seat"]), []).append(data["card"])
        elif kind == PLAYERS_ELIMINATED:
            for seat, cards in zip(data["seats"], data["cards"], strict=True):
                state["alive"][seat] = False
                state["hidden"].extend(cards)
                state["hands"][seat] = []
            state["out"].append(list(data["seats"]))
        elif kind == CARDS_DISCARDED:
            state["public"].extend(data["public"])
            state["hidden"].extend(data["hidden"])
            state["play"] = None
        elif kind == GAME_ENDED:
            state["result"] = {k: data[k] for k in ("reason", "winners", "scores", "ranking")}
            state["result"]["tiebreak"] = list(data.get("tiebreak", []))  # shown hands
            state["step"] = "over"
            state["play"] = None
        return state

    @staticmethod
    def _slot(slot: int, owner: Seat, card: str, declared: str) -> dict[str, Any]:
        return {"slot": slot, "owner": owner, "card": card, "declared": declared, "hit": None,
                "redirect": None, "challenger": None, "truthful": None, "declined": []}

    # --- decide -------------------------------------------------------------------------------

    def decide_command(self, state: State, command: Command, seat: Seat, rng: Rng) -> list[Event]:
        draft = Draft(state, self.evolve)
        kind = command["type"]
        if kind == USE:
            self._use(draft, seat, command["card"], command["declare"], command["target"])
        elif kind == DEFEND:
            reactions.defend(draft, seat, command["card"], command["declare"],
                             command["redirect"])
        elif kind == NO_DEFENCE:
            reactions.decline(draft, seat)
        elif kind == CHALLENGE:
            reactions.challenge(draft, seat, command["slot"])
        elif kind == NO_CHALLENGE:
            reactions.pass_challenges(draft, seat)
        else:  # pragma: no cover - the kernel only passes known command types
            raise Rejected("unknown_command", "Faker Blue has no command {kind!r}.",
                           params={"kind": kind})
        if draft.state["play"] is not None and reactions.settle(draft):
            self._end_turn(draft)
        return draft.events

    def _use(self, draft: Draft, seat: Seat, card: str, declare: str, target: Seat | None) -> None:
        """SEED, 카드 사용 단계: one of the two cards face down, any attack-phase kind, a target."""
        state = draft.state
        ensure(card in state["hands"][seat], "card_not_in_hand", "That card is not in your hand.",
               card=card)
        spec = KINDS[declare]
        ensure(spec.phase == "use", "not_declarable",
               "Shield-bearer, Wizard and Clown cannot be declared when using a card.",
               declare=declare)
        if spec.target == "area":
            ensure(target is None, "target_not_allowed", "{card} hits every other player.",
                   params={"card": spec.name})
            n = state["seats"]  # one hit per other living player, clockwise from the attacker
            targets = [(seat + i) % n for i in range(1, n) if state["alive"][(seat + i) % n]]
        else:
            ensure(target is not None, "target_required", "{card} needs a target.",
                   params={"card": spec.name})
            ensure(target in targets_for(state, seat, declare), "invalid_target",
                   "{card} cannot target that player.", target=target,
                   params={"card": spec.name})
            targets = [target]
        draft.emit(CARD_USED, seat=seat, card=card, declared=declare, target=target,
                   targets=targets)

    def _end_turn(self, draft: Draft) -> None:
        """Eliminate, check for a last survivor, refill from the first player clockwise, check
        the draw pile (fakerblue.md §5.5), then start the next turn with its draw."""
        reactions.eliminate_dead(draft)
        state = draft.state
        if sum(state["alive"]) <= 1:
            self._finish(draft, "last_survivor")
            return
        for seat in from_first(state):
            if state["alive"][seat] and not state["hands"][seat] and state["deck"]:
                draft.emit(CARD_DRAWN, seat=seat, card=state["deck"][0], reason="refill")
        if not state["deck"]:
            self._finish(draft, "deck_exhausted")
            return
        n = state["seats"]
        following = next(s for s in ((state["turn"] + i) % n for i in range(1, n + 1))
                         if state["alive"][s])
        draft.emit(TURN_STARTED, seat=following, turn=state["turn_number"] + 1)
        draft.emit(CARD_DRAWN, seat=following, card=state["deck"][0], reason="turn")

    def _finish(self, draft: Draft, reason: str) -> None:
        """SEED, 게임의 종료: a last survivor wins at once; on an empty draw pile the most
        health wins, then the higher card value, then everyone still tied."""
        state = draft.state
        living = [s for s in from_first(state) if state["alive"][s]]

        def key(seat: Seat) -> tuple[int, int]:
            return (state["health"][seat], hand_value(state, seat))

        groups: list[list[Seat]] = []
        for seat in sorted(living, key=key, reverse=True):
            if groups and key(groups[-1][0]) == key(seat):
                groups[-1].append(seat)
            else:
                groups.append([seat])
        # SEED, 게임의 종료 2: a health tie is settled by the cards in hand, so those hands are
        # shown: every living player whose health another living player shares.
        tied = [s for s in living
                if sum(state["health"][o] == state["health"][s] for o in living) > 1]
        tiebreak = [{"seat": s, "health": state["health"][s], "hand": list(state["hands"][s]),
                     "value": hand_value(state, s)} for s in sorted(tied)]
        groups += [sorted(group) for group in reversed(state["out"])]
        # Nobody left standing (not reachable with the default table): the last to fall share it.
        winners = groups[0] if groups else []
        draft.emit(GAME_ENDED, reason=reason, winners=sorted(winners),
                   scores={str(s): state["health"][s] for s in range(state["seats"])},
                   ranking=[sorted(g) for g in groups], tiebreak=tiebreak)

    # --- who acts, with what ------------------------------------------------------------------

    def pending(self, state: State) -> dict[Seat, Prompt]:
        if not state or state["result"] is not None:
            return {}
        if state["step"] == "use":
            return {state["turn"]: Prompt((USE,), "turn", "use a card")}
        return reactions.prompts(state)

    def legal_commands(self, state: State, seat: Seat) -> list[Command]:
        prompt = self.pending(state).get(seat)
        if prompt is None:
            return []
        hand = state["hands"][seat]
        out: list[Command] = []
        if USE in prompt.kinds:
            out += [{"type": USE, "card": card, "declare": kind, "target": target}
                    for card in hand for kind in ATTACK_KINDS
                    for target in targets_for(state, seat, kind)]
        if DEFEND in prompt.kinds:
            others = [s for s in range(state["seats"]) if state["alive"][s] and s != seat]
            for card in hand:
                out.append({"type": DEFEND, "card": card, "declare": SHIELD, "redirect": None})
                out += [{"type": DEFEND, "card": card, "declare": WIZARD, "redirect": s}
                        for s in others]
            out.append({"type": NO_DEFENCE})
        if CHALLENGE in prompt.kinds:
            out += [{"type": CHALLENGE, "slot": slot}
                    for slot in reactions.challengeable(state, seat)]
            out.append({"type": NO_CHALLENGE})
        return out

    def default_command(self, state: State, seat: Seat) -> Command:
        """No defence, then no challenge; on the use step the lowest-value card that can be
        declared truthfully, at a sensible target (a bluffed Priest on oneself if none can)."""
        prompt = self.pending(state).get(seat)
        kinds = prompt.kinds if prompt else ()
        if NO_DEFENCE in kinds:
            return {"type": NO_DEFENCE}
        if NO_CHALLENGE in kinds or USE not in kinds:
            return {"type": NO_CHALLENGE}
        values = state["options"]["values"]
        hand = sorted(state["hands"][seat], key=lambda c: (values[kind_of(c)], c))
        truthful = [c for c in hand if KINDS[kind_of(c)].phase == "use"]
        card = (truthful or hand)[0]
        declare = kind_of(card) if truthful else "priest"
        return {"type": USE, "card": card, "declare": declare,
                "target": self._sensible_target(state, seat, declare)}

    @staticmethod
    def _sensible_target(state: State, seat: Seat, kind: str) -> Seat | None:
        mode = KINDS[kind].target
        if mode in ("area", "any"):
            return None if mode == "area" else seat  # heals go to oneself
        n = state["seats"]
        others = [s for s in ((seat + i) % n for i in range(1, n)) if state["alive"][s]]
        return max(others, key=lambda s: state["health"][s])  # the healthiest, nearest first

    # --- views and result ---------------------------------------------------------------------

    def view(self, state: State, viewer: Viewer) -> dict[str, Any]:
        return views.view(state, viewer, self.pending(state))

    def explain(self, state: State, command: Command, seat: Seat) -> list[str]:
        """The checks behind a use, defence or challenge, in words (fakerblue.md §1, §5)."""
        lines = super().explain(state, command, seat)
        kind = command["type"]
        if kind in ("use", "defend"):
            declared = KINDS[command["declare"]]
            truth = kind_of(command["card"]) == command["declare"]
            if truth:
                lines.append(Text("The card was face down in seat {seat}'s hand and was declared "
                                  "as {card}: any kind may be declared, truthfully or not (here "
                                  "the truth, hidden until challenged).", seat=seat,
                                  card=declared.name))
            else:
                lines.append(Text("The card was face down in seat {seat}'s hand and was declared "
                                  "as {card}: any kind may be declared, truthfully or not (here "
                                  "a bluff, hidden until challenged).", seat=seat,
                                  card=declared.name))
            if kind == "use":
                lines.append(Text("{card} takes a target of kind '{target_kind}', and the target "
                                  "named was {target}.", card=declared.name,
                                  target_kind=declared.target, target=command.get("target")))
            else:
                lines.append(Text("Only a Shield-bearer or a Wizard may be declared in defence, "
                                  "and only against a hit that can be defended (Q&A 1)."))
        elif kind == "challenge":
            lines.append(Text("Face-down card {slot} of the open play was not yet challenged, "
                              "and was not the challenger's own (each card at most once).",
                              slot=command["slot"]))
        else:
            lines.append(Text("Declining is always allowed."))
        return lines

    def replay_view(self, state: State, viewer: Viewer, game_over: bool) -> dict[str, Any]:
        """The end reveals nothing more: a never-challenged card stays hidden outside the
        audit transcript (fakerblue.md; issue 4), so a replay shows what the seat saw then."""
        return self.view(state, viewer)

    def redact(self, event: Event, viewer: Viewer) -> Event | None:
        return views.redact(event, viewer)

    def secrets(self, state: State, viewer: Viewer) -> set[str]:
        return views.secrets(state, viewer)

    def result(self, state: State) -> dict[str, Any] | None:
        if not state or state["result"] is None:
            return None
        return dict(state["result"])

    def seats_in_play(self, state: State) -> int:
        return state.get("seats", 0)

    def sample_state(self, seen: Seen, rng: Rng) -> State:
        return sample_state(seen, rng)

    def copy_state(self, state: State) -> State:
        return clone(state)

    def evaluate(self, state: State, seat: Seat) -> float:
        """The win share once over; before that, the seat's health against the best rival's
        (fakerblue.md: the most health wins when the draw pile runs out)."""
        if state["result"] is not None or not state["alive"][seat]:
            return super().evaluate(state, seat) if state["result"] is not None else 0.0
        rival = max((state["health"][s] for s in range(state["seats"])
                     if s != seat and state["alive"][s]), default=0)
        return 0.5 + 0.5 * math.tanh((state["health"][seat] - rival) / 3)

    def bot(self, level: str) -> Bot:
        if level == "basic":
            return basic_bot
        return super().bot(level)


GAME = FakerBlue()
