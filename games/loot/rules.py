"""Loot rules (shared/rules/loot.md): setup, decide, evolve, pending, legal and default commands,
result, secrets, explain. Views and redaction live in views.py, the bot levels in bot.py."""

from __future__ import annotations

import math
from typing import Any

from games.core import (
    AUDITOR,
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
from games.loot import bot, shapes, views
from games.loot.data import (
    ADMIRAL,
    CAPTAIN,
    COLOUR,
    DECK_IDS,
    DEFAULTS,
    HAND_SIZE,
    KIND,
    MAX_SEATS,
    MERCHANT,
    MIN_SEATS,
    OPTION_NAMES,
    PIRATE,
    RANK,
    SKULLS,
    TEAM_SEATS,
    LootOptionsSchema,
)
from games.loot.model import (
    ADMIRAL_PLAYED,
    CAPTAIN_PLAYED,
    CARD_DISCARDED,
    CARD_DRAWN,
    COMMANDS,
    DISCARD,
    DISCARD_TAKEN,
    DRAW,
    GAME_ENDED,
    LOOT_STARTED,
    MERCHANT_CAPTURED,
    MERCHANT_PLAYED,
    PIRATE_PLAYED,
    PLAY_ADMIRAL,
    PLAY_CAPTAIN,
    PLAY_MERCHANT,
    PLAY_PIRATE,
    SEED_LITERAL_KINDS,
    TAKE_DISCARD,
    TURN_KINDS,
    TURN_PASSED,
    TURN_SKIPPED,
    capturer,
    seat_scores,
    side_of,
)

_TURN_PROMPT = Prompt(TURN_KINDS, "turn", "your turn")
_SEED_LITERAL_PROMPT = Prompt(SEED_LITERAL_KINDS, "turn", "your turn")
_HAND_TAKERS = (DRAW, TAKE_DISCARD)


def _find_ship(state: State, merchant: str) -> dict[str, Any] | None:
    for ship in state["ships"]:
        if ship["m"] == merchant:
            return ship
    return None


def _copy_ship(ship: dict[str, Any]) -> dict[str, Any]:
    return {"m": ship["m"], "owner": ship["owner"], "plays": [list(p) for p in ship["plays"]],
            "col": list(ship["col"]), "str": list(ship["str"]), "anchor": list(ship["anchor"]),
            "trump": ship["trump"]}


def _clone_for_action(state: State, seat: Seat) -> State:
    """A copy deep enough to fold one action's events into (they touch one hand, the piles and
    the ships); cheaper than deepcopy on the hot path."""
    clone = dict(state)
    hands = list(state["hands"])
    hands[seat] = list(hands[seat])
    clone["hands"] = hands
    clone["deck"] = list(state["deck"])
    clone["discard"] = list(state["discard"])
    clone["ships"] = [_copy_ship(s) for s in state["ships"]]
    return clone


class Loot(SearchingGame):
    name = "loot"
    title = "Loot"
    min_seats = MIN_SEATS
    max_seats = MAX_SEATS
    spec = "shared/rules/loot.md"
    options = LootOptionsSchema
    commands = COMMANDS
    view_shape = shapes.VIEW
    result_shape = shapes.RESULT
    event_shapes = shapes.EVENTS
    undo_barriers = frozenset({LOOT_STARTED, CARD_DRAWN})
    bot_levels = ("random", "basic", "expert")
    playouts_per_ms = 1.5  # the expert's budget: 1 / CPU ms per playout (bench/expert_bot.py)
    horizon = 30  # playout decisions before evaluate() scores the gold standing

    # --- setup and evolve ----------------------------------------------------------------------

    def setup(self, seats: int, options: dict[str, Any], rng: Rng) -> list[Event]:
        opts = {name: options.get(name, getattr(DEFAULTS, name)) for name in OPTION_NAMES}
        ensure(MIN_SEATS <= seats <= MAX_SEATS, "bad_seat_count",
               "Loot is for {min} to {max} players.", seats=seats,
               params={"min": MIN_SEATS, "max": MAX_SEATS})
        ensure(not opts["teams"] or seats in TEAM_SEATS, "teams_need_4_6_or_8",
               "Team play needs 4, 6 or 8 players (loot.md §9).", seats=seats)
        shuffled = rng.shuffled(DECK_IDS)
        dealt = HAND_SIZE * seats
        # §3: deal 6 cards each, one at a time, starting at seat 0 (the dealer's left); the rest
        # is the draw pile, top card first. Seat 0 starts.
        hands = [shuffled[i:dealt:seats] for i in range(seats)]
        return [Event(LOOT_STARTED, {"seats": seats, "options": opts, "first": 0,
                                     "hands": hands, "deck": shuffled[dealt:]})]

    def evolve(self, state: State, event: Event) -> State:
        kind, data = event.type, event.data
        if kind == CARD_DRAWN:
            state["deck"].pop(0)
            state["hands"][data["seat"]].append(data["card"])
        elif kind == TURN_PASSED:
            state["turn"] = data["seat"]
        elif kind in (PIRATE_PLAYED, CAPTAIN_PLAYED, ADMIRAL_PLAYED):
            seat, card = data["seat"], data["card"]
            state["hands"][seat].remove(card)
            ship = _find_ship(state, data["merchant"])
            side = seat % state["sides"]
            ship["plays"].append([seat, card])
            if ship["anchor"][side] is None:
                ship["anchor"][side] = seat
            if kind == PIRATE_PLAYED:
                ship["col"][side] = COLOUR[card]
                ship["str"][side] += SKULLS[card]
            else:
                ship["trump"] = side
        elif kind == MERCHANT_PLAYED:
            seat, card = data["seat"], data["card"]
            state["hands"][seat].remove(card)
            sides = state["sides"]
            anchor = [None] * sides
            anchor[seat % sides] = seat
            state["ships"].append({"m": card, "owner": seat, "plays": [], "col": [None] * sides,
                                   "str": [0] * sides, "anchor": anchor, "trump": None})
        elif kind == MERCHANT_CAPTURED:
            ship = _find_ship(state, data["merchant"])
            state["ships"].remove(ship)
            state["won"][data["seat"]].append(ship["m"])
            state["discard"].extend(card for _, card in ship["plays"])
        elif kind == CARD_DISCARDED:
            state["hands"][data["seat"]].remove(data["card"])
            state["discard"].append(data["card"])
        elif kind == DISCARD_TAKEN:
            state["discard"].remove(data["card"])
            state["hands"][data["seat"]].append(data["card"])
        elif kind == GAME_ENDED:
            # §7: ships still in play, tied ones included, are discarded and score for nobody.
            for ship in state["ships"]:
                state["discard"].append(ship["m"])
                state["discard"].extend(card for _, card in ship["plays"])
            state["ships"] = []
            state["turn"] = None
            state["over"] = True
        elif kind == LOOT_STARTED:
            opts = data["options"]
            seats = data["seats"]
            return {"n": seats, "sides": seats // 2 if opts["teams"] else seats,
                    "teams": opts["teams"], "empty_deck_mode": opts["empty_deck_mode"],
                    "team_capture": opts["team_capture"],
                    "end_requires_play": opts["end_requires_play"], "turn": data["first"],
                    "hands": [list(h) for h in data["hands"]], "deck": list(data["deck"]),
                    "discard": [], "won": [[] for _ in range(seats)], "ships": [], "over": False}
        return state  # TURN_SKIPPED changes nothing: the seat sits out (§9)

    # --- decide --------------------------------------------------------------------------------

    def decide_command(self, state: State, command: Command, seat: Seat, rng: Rng) -> list[Event]:
        action = self._action(state, command, seat)
        after = _clone_for_action(state, seat)
        self.evolve(after, action)
        return [action, *self._after_action(after, seat, command["type"])]

    def _action(self, state: State, command: Command, seat: Seat) -> Event:
        """Check one action (loot.md §4) and return its event."""
        kind = command["type"]
        hand = state["hands"][seat]
        if kind == DRAW:
            ensure(bool(state["deck"]), "deck_empty", "The draw pile is empty (loot.md §8).")
            return Event(CARD_DRAWN, {"seat": seat, "card": state["deck"][0]})
        card = command["card"]
        if kind == TAKE_DISCARD:
            ensure(not state["deck"], "deck_not_empty",
                   "You may take from the discard pile only once the draw pile is empty.")
            ensure(card in state["discard"], "not_in_discard", "That card is not in the discard "
                   "pile.", card=card)
            ensure(KIND[card] != MERCHANT, "cannot_take_merchant",
                   "Merchant ships may not be taken from the discard pile (SEED §7).")
            # Engine decision: only a card you could play now may be taken, so the game cannot
            # cycle forever between hands and the discard pile.
            ensure(bool(_targets(state, seat, card)), "card_not_playable",
                   "You may only take a card you could play now.", card=card)
            return Event(DISCARD_TAKEN, {"seat": seat, "card": card})
        ensure(card in hand, "not_in_hand", "That card is not in your hand.", card=card)
        if kind == PLAY_MERCHANT:
            ensure(KIND[card] == MERCHANT, "not_a_merchant", "That card is not a merchant ship.")
            return Event(MERCHANT_PLAYED, {"seat": seat, "card": card})
        if kind == DISCARD:
            ensure(not state["deck"], "deck_not_empty",
                   "You may discard only once the draw pile is empty (loot.md §8).")
            ensure(KIND[card] != MERCHANT, "cannot_discard_merchant",
                   "Merchant ships may never be discarded (loot.md §8).")
            if state["empty_deck_mode"] == "seed_literal":
                # SEED §7 offers playing or taking; discarding is left for a seat that can do
                # neither, so every turn has an action.
                ensure(not _plays(state, seat) and not _takes(state, seat), "discard_not_needed",
                       "You can play a card or take one from the discard pile.")
            return Event(CARD_DISCARDED, {"seat": seat, "card": card})
        expected = {PLAY_PIRATE: PIRATE, PLAY_CAPTAIN: CAPTAIN, PLAY_ADMIRAL: ADMIRAL}[kind]
        ensure(KIND[card] == expected, f"not_a_{expected}" if expected != ADMIRAL
               else "not_an_admiral", "That card is not a {expected}.", card=card,
               params={"expected": expected})
        ensure(bool(state["ships"]), "no_merchant_in_play", "No merchant ship is in play.")
        ship = _find_ship(state, command["merchant"])
        ensure(ship is not None, "merchant_not_in_play", "That merchant ship is not in play.",
               merchant=command["merchant"])
        side = side_of(state, seat)
        data = {"seat": seat, "card": card, "merchant": ship["m"]}
        if kind == PLAY_PIRATE:
            mine, colour = ship["col"][side], COLOUR[card]
            if mine is None:
                # §5.1: a new attacker (the owner too) needs a colour nobody uses on this ship.
                ensure(colour not in ship["col"], "colour_taken",
                       "{colour} is already in use on this ship.", colour=colour)
            else:
                ensure(colour == mine, "wrong_colour",
                       "You attack this ship with {colour}; you cannot change colour.",
                       colour=mine)
            return Event(PIRATE_PLAYED, data)
        if kind == PLAY_CAPTAIN:
            # §5.2 (§9: the team colour): the captain goes onto your own pirates of its colour.
            ensure(ship["col"][side] == COLOUR[card], "no_matching_pirates",
                   "You have no {colour} pirate ships on this merchant ship.",
                   params={"colour": COLOUR[card]})
            return Event(CAPTAIN_PLAYED, data)
        # §5.3 (§9: or the partner's ship): the admiral guards only your own merchant ships.
        ensure(ship["owner"] % state["sides"] == side, "admiral_not_own_ship",
               "The admiral may only be played onto your own merchant ship.")
        return Event(ADMIRAL_PLAYED, data)

    def _after_action(self, after: State, seat: Seat, kind: str) -> list[Event]:
        """The end check (§7), then the turn passes, skipping seats that sit out (§9), and the
        next seat's capture step runs at once (§4.1, §6)."""
        if self._ends(after, seat, kind):
            return [Event(GAME_ENDED, {"unclaimed": [s["m"] for s in after["ships"]]})]
        n, events = after["n"], []
        hands, deck = after["hands"], after["deck"]
        nxt = seat
        for _ in range(n):
            nxt = (nxt + 1) % n
            sits_out = not deck and not hands[nxt]
            events.append(Event(TURN_SKIPPED if sits_out else TURN_PASSED, {"seat": nxt}))
            for ship in after["ships"]:
                if capturer(after, ship) == nxt:
                    events.append(Event(MERCHANT_CAPTURED, {
                        "seat": nxt, "merchant": ship["m"],
                        "cards": [card for _, card in ship["plays"]]}))
            if not sits_out:
                return events
        # Nobody can act any more (only reachable through end_requires_play): end here.
        return [*events, Event(GAME_ENDED, {"unclaimed": [s["m"] for s in after["ships"]
                                                           if not _captured(events, s["m"])]})]

    def _ends(self, after: State, seat: Seat, kind: str) -> bool:
        """§7: the draw pile is empty and a player is out of cards (§9: both partners)."""
        if after["deck"]:
            return False
        hands = after["hands"]
        if after["end_requires_play"]:
            if kind in _HAND_TAKERS or hands[seat]:
                return False  # only playing (or discarding) one's last card ends the game
            return not after["teams"] or not hands[(seat + after["sides"]) % after["n"]]
        if not after["teams"]:
            return any(not hand for hand in hands)
        sides = after["sides"]
        return any(not hands[s] and not hands[s + sides] for s in range(sides))

    # --- prompts and commands ------------------------------------------------------------------

    def pending(self, state: State) -> dict[Seat, Prompt]:
        if not state or state["over"]:
            return {}
        if state["empty_deck_mode"] == "seed_literal":
            return {state["turn"]: _SEED_LITERAL_PROMPT}
        return {state["turn"]: _TURN_PROMPT}

    def legal_commands(self, state: State, seat: Seat) -> list[Command]:
        if not state or state["over"] or state["turn"] != seat:
            return []
        hand, deck = state["hands"][seat], state["deck"]
        out: list[Command] = [{"type": DRAW}] if deck else []
        plays = _plays(state, seat)
        out.extend(plays)
        if deck:
            return out
        if state["empty_deck_mode"] == "seed_literal":
            takes = _takes(state, seat)
            out.extend(takes)
            if plays or takes:
                return out
        out.extend({"type": DISCARD, "card": card} for card in hand if KIND[card] != MERCHANT)
        return out

    def default_command(self, state: State, seat: Seat) -> Command:
        """Draw if possible, else discard the lowest non-merchant card, else play the lowest
        merchant ship (a hand of merchants can always play one, loot.md §8). In seed_literal
        mode: the lowest merchant, else the lowest take or play, else a discard."""
        if state["deck"]:
            return {"type": DRAW}
        hand = state["hands"][seat]
        others = [c for c in hand if KIND[c] != MERCHANT]
        if state["empty_deck_mode"] == "seed_literal":
            # Discarding is only for a seat that can neither play nor take (see _action).
            plays, takes = _plays(state, seat), _takes(state, seat)
            if len(others) < len(hand):
                return {"type": PLAY_MERCHANT, "card": min(
                    (c for c in hand if KIND[c] == MERCHANT), key=RANK.__getitem__)}
            if takes or plays:
                return min(takes or plays, key=lambda c: RANK[c["card"]])
        if others:
            return {"type": DISCARD, "card": min(others, key=RANK.__getitem__)}
        return {"type": PLAY_MERCHANT, "card": min(hand, key=RANK.__getitem__)}

    # --- result and hidden information ---------------------------------------------------------

    def result(self, state: State) -> dict[str, Any] | None:
        if not state or not state["over"]:
            return None
        scores = seat_scores(state)
        n = state["n"]
        out: dict[str, Any] = {"scores": {str(s): scores[s] for s in range(n)}}
        if state["teams"]:
            sides = state["sides"]
            # §9: the team score is both partners' scores added; the team ranks as one.
            party = {side: [side, side + sides] for side in range(sides)}
            totals = {side: scores[side] + scores[side + sides] for side in range(sides)}
            out["teams"] = {str(side): {"seats": party[side], "score": totals[side]}
                            for side in range(sides)}
        else:
            party = {s: [s] for s in range(n)}
            totals = dict(enumerate(scores))
        levels = sorted(set(totals.values()), reverse=True)
        out["ranking"] = [sorted(s for side, t in totals.items() if t == level for s in party[side])
                          for level in levels]
        out["winners"] = out["ranking"][0]  # §7 PROPOSED: tied players share the win
        return out

    def secrets(self, state: State, viewer: Viewer) -> set[str]:
        if not state or state["over"] or viewer == AUDITOR:
            return set()  # after the game everything is revealed
        hidden = set(state["deck"])
        for seat in range(state["n"]):
            if seat != viewer:
                # Captured ships lie face down (§6), but every player saw them captured from
                # the table, so they are not secrets; only hands and the pile are.
                hidden.update(state["hands"][seat])
        return hidden

    def view(self, state: State, viewer: Viewer) -> dict[str, Any]:
        return views.view(self, state, viewer)

    def replay_view(self, state: State, viewer: Viewer, game_over: bool) -> dict[str, Any]:
        """Once the game is over every card is face up (loot.md §7 and §10: hands are counted
        against their holders), so a replay of a finished game shows the whole table."""
        return self.view(state, AUDITOR if game_over else viewer)

    def secrets_after_end(self, state: State, viewer: Viewer) -> set[str]:
        return set()

    def redact(self, event: Event, viewer: Viewer) -> Event | None:
        return views.redact(event, viewer)

    def explain(self, state: State, command: Command, seat: Seat) -> list[str]:
        lines = super().explain(state, command, seat)
        try:
            events = self.decide(state, command, seat, Rng("explain"))
        except Rejected as exc:
            return [Text("Rejected ({code}): {message}", code=exc.code, message=exc.message)]
        kind = command.get("type")
        if kind in (PLAY_PIRATE, PLAY_CAPTAIN, PLAY_ADMIRAL):
            ship = _find_ship(state, command["merchant"])
            side = side_of(state, seat)
            lines.append(Text("{merchant} was in play, owned by seat {owner}.",
                              merchant=command["merchant"], owner=ship["owner"]))
            if kind == PLAY_PIRATE:
                if ship["col"][side]:
                    lines.append(Text("Your colour there was {yours}; {colour} was free or yours "
                                      "(loot.md §5.1).", yours=ship["col"][side],
                                      colour=COLOUR[command["card"]]))
                else:
                    lines.append(Text("Your colour there was not yet chosen; {colour} was free "
                                      "or yours (loot.md §5.1).", colour=COLOUR[command["card"]]))
            elif kind == PLAY_CAPTAIN:
                lines.append("You had pirate ships of the captain's colour there (loot.md §5.2).")
            else:
                lines.append("It was your (or your partner's) ship (loot.md §5.3).")
        elif kind in (DISCARD, TAKE_DISCARD):
            lines.append("The draw pile was empty (loot.md §8).")
        lines.extend(Text("Then: {event} {data}", event=e.type, data=e.data)
                     for e in events[1:] if e.type != TURN_PASSED)
        return lines

    def sample_state(self, seen: Seen, rng: Rng) -> State:
        return bot.sample_state(seen, rng)

    def copy_state(self, state: State) -> State:
        """A copy ``evolve`` may mutate: the lists it changes copied, not the whole tree (the
        expert copies a world once per playout)."""
        clone = dict(state)
        clone["hands"] = [list(h) for h in state["hands"]]
        clone["deck"] = list(state["deck"])
        clone["discard"] = list(state["discard"])
        clone["won"] = [list(w) for w in state["won"]]
        clone["ships"] = [_copy_ship(s) for s in state["ships"]]
        return clone

    def evaluate(self, state: State, seat: Seat) -> float:
        """The win share once over; before that, the seat's score (captured gold minus gold
        in hand, loot.md §7) against the best rival side's."""
        if state["over"]:
            return super().evaluate(state, seat)
        scores = seat_scores(state)
        sides = state["sides"]
        side = [sum(scores[s] for s in range(state["n"]) if s % sides == k)
                for k in range(sides)]
        mine = seat % sides
        rival = max(v for k, v in enumerate(side) if k != mine)
        return 0.5 + 0.5 * math.tanh((side[mine] - rival) / 8)

    def bot(self, level: str) -> Bot:
        if level == "basic":
            return bot.level(level)
        return super().bot(level)


def _targets(state: State, seat: Seat, card: str) -> list[str]:
    """The merchant ships in play that ``seat`` may play ``card`` onto (§5.1-5.3, §9)."""
    kind = KIND[card]
    sides = state["sides"]
    side = seat % sides
    if kind == PIRATE:
        colour = COLOUR[card]
        return [ship["m"] for ship in state["ships"]
                if ship["col"][side] == colour or (ship["col"][side] is None
                                                   and colour not in ship["col"])]
    if kind == CAPTAIN:
        colour = COLOUR[card]
        return [ship["m"] for ship in state["ships"] if ship["col"][side] == colour]
    if kind == ADMIRAL:
        return [ship["m"] for ship in state["ships"] if ship["owner"] % sides == side]
    return []


_PLAY_OF = {PIRATE: PLAY_PIRATE, CAPTAIN: PLAY_CAPTAIN, ADMIRAL: PLAY_ADMIRAL}


def _plays(state: State, seat: Seat) -> list[Command]:
    """Every legal play from ``seat``'s hand: merchants, and battle cards onto each target."""
    out: list[Command] = []
    for card in state["hands"][seat]:
        if KIND[card] == MERCHANT:
            out.append({"type": PLAY_MERCHANT, "card": card})
        else:
            kind = _PLAY_OF[KIND[card]]
            out.extend({"type": kind, "card": card, "merchant": m}
                       for m in _targets(state, seat, card))
    return out


def _takes(state: State, seat: Seat) -> list[Command]:
    """seed_literal (SEED §7): the non-merchant discards ``seat`` could play at once."""
    return [{"type": TAKE_DISCARD, "card": card} for card in state["discard"]
            if KIND[card] != MERCHANT and _targets(state, seat, card)]


def _captured(events: list[Event], merchant: str) -> bool:
    return any(e.type == MERCHANT_CAPTURED and e.data["merchant"] == merchant for e in events)


GAME = Loot()
