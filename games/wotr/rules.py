"""War of the Ring — the war of nations (shared/rules/wotr.md): setup, decide, pending, legal and
default commands, result. The action phase lives here; the battle round in battle.py, the state
machine shared by both in engine.py, views and redaction in views.py, the bots in bot.py.

Where the spec and the seed are silent, these choices hold (each has a test):

- A move or attack names how many figures of each kind go (figures.py; without them the same
  seat is asked next, orders.py): units are taken from the Nations that may go in name order;
  no Leader or Nazgûl is left without a unit. The army that was joined may move on without the
  joining figures.
- Units over a stacking limit are removed Regulars first; casualties are taken one hit at a time
  by their owner, and a hit with only one way to take it is applied without asking.
- The Leader re-roll is made for every miss it may (it can only help); an Elite with no Regular
  left to replace it is removed by one hit; FP replacements come from eliminated units first.
- Combat cards are chosen attacker first, then defender (who sees whether a card was laid face
  down), and revealed together; Relentless Assault and
  Onslaught name their X with the card (capped so one unit survives). After a battle the
  attacker names the figures that advance (none, some or all).
- A Free Peoples Leader is mustered only where Free Peoples units stand; Nazgûl left with no
  Shadow unit go back to reinforcements. Discarded cards lie face up.
- The Ring's clock (``max_rounds``): with no military victory by the end of that round the
  Free Peoples win.
- With 3 or 4 seats (seats.py, wotr.md §16) a seat commands its own Nations and the armies in
  its charge; the attacking seat and the seat in charge of the defending army decide a battle.
  With 3 the lone Free Peoples player may not act twice in a row with the same Nation, nor with
  the same mixed army (seats.check_alternation; ``fp_acted`` in the state and view).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from games.core import (
    AUDITOR,
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
from games.expert_shortlist import ShortlistGame
from games.wotr import battle, bot, orders, seats, shapes, views
from games.wotr.data import (
    DECKS,
    DEFAULTS,
    FP,
    NATION_SIDE,
    OPTION_NAMES,
    REGIONS,
    SCENARIOS,
    SH,
    SIDES,
    STRONGHOLD,
    WotrOptionsSchema,
)
from games.wotr.engine import (
    Tx,
    acted,
    at_war,
    battle_seat,
    card_data,
    copy_state,
    end_action,
    evolve,
    field_side,
    over_hand_limit,
    roll_dice,
    start_round,
    vp,
)
from games.wotr.model import (
    ACTION_CLOSED,
    ACTION_KINDS,
    ATTACK,
    CARD_DISCARDED,
    CARD_DRAWN,
    CHOOSE_FIGURES,
    COMBAT_CARD_CHOSEN,
    COMMANDS,
    DIE_USED,
    DIPLOMACY,
    DISCARD,
    DRAW_CARD,
    END_ACTION,
    FIGURES_MUSTERED,
    GAME_STARTED,
    MOVE,
    MUSTER,
    PASS,
    PASSED,
    POLITICAL_ADVANCED,
    SECOND_MOVE,
    SKIP_DIE,
    TURN_PASSED,
    Army,
    army_side,
    other,
    units,
)

# wotr.md §2 [DZ-chart]: which faces allow which action; Will of the West is any face.
ARMY_FACES = ("army", "muster_army", "will")
MUSTER_FACES = ("muster", "muster_army", "will")
EVENT_FACES = ("event", "will")
_KIND_INDEX = {"regular": 0, "elite": 1, "leader": 2}
_SECOND = Prompt((SECOND_MOVE, END_ACTION), "turn", "move a second army, or end the action")
_DISCARD = Prompt((DISCARD,), "turn", "discard down to 6 cards")


def _army_at(state: State, command: Command, side: str) -> Army | None:
    """The army a move or attack names: the field army of ``from``, or for a sortie (``from``
    == ``to`` where one's own army is besieged) the army inside the Stronghold."""
    src = command.get("from_", command.get("from"))
    box = state["boxes"].get(src)
    if command["type"] == ATTACK and src == command.get("to") and army_side(box) == side:
        return box
    return state["armies"].get(src)


def _order_seat(state: State) -> Seat:
    """The seat asked which figures go: the one that declared the order (its die is used when
    the figures are chosen; a second move's die was used already, and the side's next die
    passed to the teammate)."""
    side = state["order"]["side"]
    if state["action"] is not None:
        return seats.teammate(state, seats.acting(state, side))
    return seats.acting(state, side)


def seat_may(state: State, seat: Seat, command: Command) -> bool:
    """Whether the command is this seat's to give when two seats share a side (decisions block;
    [DZ-multi]: a player acts only with the Nations he controls): a move or attack with an army
    in its charge, musters and diplomacy for its own Nations. Always true with a seat a side."""
    if len(seats.seats_of(state, seats.side_of(state, seat))) == 1:
        return True
    kind = command["type"]
    side = seats.side_of(state, seat)
    if kind in (MOVE, SECOND_MOVE, ATTACK) and ("from" in command or "from_" in command):
        army = _army_at(state, command, side)
        return army is None or seats.in_charge(state, army, side) == seat
    mine = seats.nations_of(state, seat)
    if kind == MUSTER:
        return all(r["nation"] in mine for r in command["recruits"])
    if kind == DIPLOMACY:
        return command["nation"] in mine
    return True


class WarOfTheRing(ShortlistGame):
    name = "wotr"
    title = "War of the Ring — the war of nations"
    min_seats = 2
    max_seats = 4  # decisions block: two seats per side (3 or 4 players, wotr.md §16)
    # "2" (issue 24): figures chosen kind by kind; attackers stay in their region. "3": the lone
    # Free Peoples player of a 3-seat game alternates its Nations (wotr.md §16; 2-seat games
    # and their logs are unchanged).
    rules_version = "3"
    spec = "shared/rules/wotr.md"
    options = WotrOptionsSchema
    commands = COMMANDS
    view_shape = shapes.VIEW
    result_shape = shapes.RESULT
    event_shapes = shapes.EVENTS
    undo_barriers = frozenset({GAME_STARTED, CARD_DRAWN, "dice_rolled", "combat_rolled",
                               "combat_cards_revealed"})
    bot_levels = ("random", "basic", "expert")
    expert_hooks = bot  # shortlist, sample_state, evaluate (games/expert_shortlist.py)
    # The expert (games/expert.py over games/expert_shortlist.py): its budget in playouts per
    # think-time ms (1 / CPU ms of a playout, bench/expert_bot.py), and the decisions a playout
    # plays before ``evaluate`` scores VP progress and army strength. A game is ~200 decisions
    # and a playout step costs ~1 ms, so playouts stop within about one round.
    playouts_per_ms = 0.06
    horizon = 16

    # --- setup and evolve ----------------------------------------------------------------------

    def setup(self, seats: int, options: dict[str, Any], rng: Rng) -> list[Event]:
        ensure(2 <= seats <= 4, "bad_seat_count", "War of the Ring is for 2 to 4 players.",
               seats=seats)
        opts = {name: options.get(name, getattr(DEFAULTS, name)) for name in OPTION_NAMES}
        scenario = opts["scenario"]
        decks = {side: rng.shuffled(DECKS[side]) for side in SIDES}
        data = {"scenario": scenario, "vp": SCENARIOS[scenario]["vp"],
                "max_rounds": opts["max_rounds"], "decks": decks}
        if seats > 2:
            data["seats"] = seats  # a 2-seat game's start event is as it always was
        start = Event(GAME_STARTED, data)
        tx = Tx(evolve({}, start), rng)
        start_round(tx)
        return [start, *tx.events]

    def evolve(self, state: State, event: Event) -> State:
        return evolve(state, event)

    def copy_state(self, state: State) -> State:
        return copy_state(state)

    # --- decide --------------------------------------------------------------------------------

    def decide_command(self, state: State, command: Command, seat: Seat, rng: Rng) -> list[Event]:
        side = seats.side_of(state, seat)
        if "from" in command and "from_" not in command:
            # A legal command as listed (the expert's playouts skip the kernel's schema load,
            # which names the wire's "from" from_).
            command = {**command, "from_": command["from"]}
        tx = Tx(state, rng, seat)
        kind = command["type"]
        self._check_seat(state, seat, command)
        if kind == DISCARD:
            self._discard(tx, side, command["card"])
        elif kind == CHOOSE_FIGURES:
            orders.choose(tx, side, command)
        elif state["battle"] is not None:
            battle.decide(tx, command, side)
        elif kind in (SECOND_MOVE, END_ACTION):
            self._second(tx, side, command)
        else:
            self._action(tx, side, command)
        return tx.events

    def _check_seat(self, state: State, seat: Seat, command: Command) -> None:
        ensure(state["battle"] is not None or seat_may(state, seat, command), "not_your_nation",
               "With two seats a side, each commands only its own Nations and the armies in its "
               "charge (most units; wotr.md §16).", seats=list(seats.nations_of(state, seat)))

    def _discard(self, tx: Tx, side: str, card: str) -> None:
        ensure(card in seats.hand_of(tx.state, tx.seat), "not_in_hand",
               "That card is not in your hand.")
        tx.emit(CARD_DISCARDED, **card_data(tx.state, tx.seat), card=card)
        state = tx.state
        if over_hand_limit(state):
            return
        if not state["rolled"]:
            roll_dice(tx)  # the round's draw is done: roll the action dice
        else:
            end_action(tx, side)  # an Event die's draw went over the limit

    def _action(self, tx: Tx, side: str, command: Command) -> None:
        state = tx.state
        kind = command["type"]
        if kind == PASS:
            ensure(len(state["dice"][side]) < len(state["dice"][other(side)]), "cannot_pass",
                   "Only a player with fewer unused action dice may pass (wotr.md §2).")
            tx.emit(PASSED, side=side)
            tx.emit(TURN_PASSED, side=other(side))
            return
        die = command["die"]
        ensure(die in state["dice"][side], "no_such_die", "You have no unused die with that face.",
               die=die)
        if kind == SKIP_DIE:
            tx.emit(DIE_USED, side=side, die=die, action="skip")
            acted(tx, side, [])  # §16: an action with no Nation
            end_action(tx, side)
        elif kind in (MOVE, ATTACK):
            orders.order(tx, side, command)
        elif kind == MUSTER:
            ensure(die in MUSTER_FACES, "wrong_die", "Mustering needs a Muster die (§2).")
            recruits = [(r["nation"], r["kind"], r["region"]) for r in command["recruits"]]
            self._check_muster(state, side, recruits)
            nations = [nation for nation, _, _ in recruits]
            seats.check_alternation(state, side, nations)
            tx.emit(DIE_USED, side=side, die=die, action="muster")
            acted(tx, side, nations)
            for nation, what, region in recruits:
                figures = [0, 0, 0]
                figures[_KIND_INDEX[what]] = 1
                tx.emit(FIGURES_MUSTERED, src="reinf", dst=region, figures={nation: figures})
            end_action(tx, side)
        elif kind == DIPLOMACY:
            ensure(die in MUSTER_FACES, "wrong_die", "A diplomatic action needs a Muster die.")
            nation = command["nation"]
            ensure(nation in self._diplomacy_nations(state, side), "cannot_advance",
                   "That Nation cannot advance on the Political track now (§9).", nation=nation)
            seats.check_alternation(state, side, [nation])
            tx.emit(DIE_USED, side=side, die=die, action="diplomacy")
            acted(tx, side, [nation])
            tx.emit(POLITICAL_ADVANCED, nation=nation, step=state["politics"][nation]["step"] - 1)
            end_action(tx, side)
        elif kind == DRAW_CARD:
            ensure(die in EVENT_FACES, "wrong_die", "Drawing a card needs an Event die (§12).")
            ensure(bool(state["decks"][side]), "deck_empty", "Your Strategy deck is empty.")
            tx.emit(DIE_USED, side=side, die=die, action="draw")
            acted(tx, side, [])  # §16: an action with no Nation
            tx.emit(CARD_DRAWN, **card_data(state, tx.seat), card=state["decks"][side][0])
            if not over_hand_limit(tx.state):
                end_action(tx, side)

    def _second(self, tx: Tx, side: str, command: Command) -> None:
        if command["type"] == END_ACTION:
            tx.emit(ACTION_CLOSED, side=side)
            end_action(tx, side)
            return
        orders.order(tx, side, command)

    # --- checks --------------------------------------------------------------------------------

    def _muster_places(self, state: State, side: str) -> list[tuple[str, str, str]]:
        """(nation, kind, region) a Muster die may place now (wotr.md §10)."""
        out = []
        for region in state["regions"]:
            info = REGIONS[region]
            nation = info.nation
            if (info.settlement not in ("city", "town", STRONGHOLD) or nation is None
                    or NATION_SIDE[nation] != side or not at_war(state, nation)
                    or state["control"].get(region) != side
                    or field_side(state, region) == other(side) or region in state["boxes"]):
                continue
            for kind in ("regular", "elite", "leader"):
                if not state["reinf"][nation][_KIND_INDEX[kind]]:
                    continue
                if kind == "leader" and nation == "sauron" and info.settlement != STRONGHOLD:
                    continue  # §10: Nazgûl only in Sauron Strongholds
                if kind == "leader" and side == FP and units(state["armies"].get(region)) == 0:
                    continue  # §1: a Free Peoples Leader is never alone on the map
                out.append((nation, kind, region))
        return out

    def _check_muster(self, state: State, side: str, recruits: list[tuple[str, str, str]]) -> None:
        places = set(self._muster_places(state, side))
        for recruit in recruits:
            ensure(recruit in places, "cannot_muster_there",
                   "That figure cannot be mustered there (wotr.md §10).", recruit=list(recruit))
        if len(recruits) == 2:
            (n1, k1, r1), (n2, k2, r2) = recruits
            ensure("elite" not in (k1, k2), "elite_alone", "A die musters one Elite alone.")
            ensure(r1 != r2, "same_settlement", "Two figures go to two different Settlements.")
            if n1 == n2 and k1 == k2:
                ensure(state["reinf"][n1][_KIND_INDEX[k1]] >= 2, "not_enough_reinforcements",
                       "Not enough figures left in reinforcements.")

    def _diplomacy_nations(self, state: State, side: str) -> list[str]:
        return [n for n, track in state["politics"].items()
                if NATION_SIDE[n] == side and track["step"] > 0
                and (track["active"] or track["step"] > 1)]

    def _musters(self, state: State, side: str, die: str) -> list[Command]:
        places = self._muster_places(state, side)
        out = []
        for i, first in enumerate(places):
            out.append(_muster(die, [first]))
            if first[1] == "elite":
                continue
            for second in places[i + 1:]:
                if second[1] == "elite" or second[2] == first[2]:
                    continue
                if first[:2] == second[:2] and state["reinf"][first[0]][
                        _KIND_INDEX[first[1]]] < 2:
                    continue
                out.append(_muster(die, [first, second]))
        return out

    # --- prompts and commands ------------------------------------------------------------------

    def pending(self, state: State) -> dict[Seat, Prompt]:
        if not state or state["over"]:
            return {}
        heavy = over_hand_limit(state)
        if heavy:
            return {seat: _DISCARD for seat in heavy}
        if state.get("order"):
            return {_order_seat(state): orders.PROMPT}
        if state["battle"] is not None:
            return {battle_seat(state, side): p for side, p in battle.pending(state).items()}
        if state["action"] is not None:
            # the seat that used the die (the side's next die already passed to its teammate)
            acted = seats.teammate(state, seats.acting(state, state["action"]["side"]))
            return {acted: _SECOND}
        side = state["turn"]
        kinds = ACTION_KINDS if self._may_pass(state, side) else ACTION_KINDS[:-1]
        return {seats.acting(state, side): Prompt(kinds, "turn", "use an action die")}

    def _may_pass(self, state: State, side: str) -> bool:
        return len(state["dice"][side]) < len(state["dice"][other(side)])

    def legal_commands(self, state: State, seat: Seat) -> list[Command]:
        if seat not in self.pending(state):
            return []
        side = seats.side_of(state, seat)
        if over_hand_limit(state):
            return [{"type": DISCARD, "card": c} for c in sorted(set(seats.hand_of(state, seat)))]
        if state.get("order"):
            return orders.legal_choices(state)
        if state["battle"] is not None:
            return battle.legal(state, side)
        shared = len(seats.seats_of(state, side)) > 1  # else every command is this seat's
        if state["action"] is not None:
            return [c for c in orders.second_moves(state, side, state["action"])
                    if not shared or seat_may(state, seat, c)] + [{"type": END_ACTION}]
        return [c for c in self._action_commands(state, side)
                if not shared or seat_may(state, seat, c)]

    def _action_commands(self, state: State, side: str) -> list[Command]:
        out: list[Command] = []
        faces = sorted(set(state["dice"][side]))
        army_orders = orders.army_orders(
            state, side, (die for die in faces if die in ARMY_FACES or die == "character"))
        for die in faces:
            out.extend(army_orders.get(die, ()))
            if die in MUSTER_FACES:
                # §16: the lone Free Peoples player of a 3-seat game alternates its Nations
                repeated = set(seats.last_acted(state).get("nations", ())) if (
                    seats.alternates(state, side)) else set()
                out.extend(c for c in self._musters(state, side, die)
                           if not repeated & {r["nation"] for r in c["recruits"]})
                out.extend({"type": DIPLOMACY, "die": die, "nation": n}
                           for n in self._diplomacy_nations(state, side) if n not in repeated)
            if die in EVENT_FACES and state["decks"][side]:
                out.append({"type": DRAW_CARD, "die": die})
            out.append({"type": SKIP_DIE, "die": die})
        if self._may_pass(state, side):
            out.append({"type": PASS})
        return out

    def default_command(self, state: State, seat: Seat) -> Command:
        """What a clock plays: the first card for a discard, every figure that may go for a
        declared move or attack, the battle defaults (battle.py), end an open Army action, pass
        when allowed, else skip the first die (§2)."""
        side = seats.side_of(state, seat)
        if over_hand_limit(state):
            return {"type": DISCARD, "card": sorted(seats.hand_of(state, seat))[0]}
        if state.get("order"):
            return orders.legal_choices(state)[0]
        if state["battle"] is not None:
            return battle.default(state, side)
        if state["action"] is not None:
            return {"type": END_ACTION}
        if self._may_pass(state, side):
            return {"type": PASS}
        return {"type": SKIP_DIE, "die": sorted(state["dice"][side])[0]}

    # --- result and hidden information ---------------------------------------------------------

    def result(self, state: State) -> dict[str, Any] | None:
        if not state or not state["over"]:
            return None
        won = seats.seats_of(state, state["winner"])
        lost = seats.seats_of(state, other(state["winner"]))
        return {"winners": won, "ranking": [won, lost],
                "scores": {str(seat): vp(state, seats.side_of(state, seat))
                           for seat in range(seats.count(state))},
                "reason": state["reason"], "winner_side": state["winner"],
                "summary": views.outcome(state)}

    def seats_in_play(self, state: State) -> int:
        return seats.count(state) if state else 0

    def secrets(self, state: State, viewer: Viewer) -> set[str]:
        return views.secrets(state, viewer)

    def view(self, state: State, viewer: Viewer) -> dict[str, Any]:
        return views.view(self, state, viewer)

    def redact(self, event: Event, viewer: Viewer) -> Event | None:
        return views.redact(event, viewer)

    def explain(self, state: State, command: Command, seat: Seat) -> list[str]:
        lines = super().explain(state, command, seat)
        try:
            events = self.decide(state, command, seat, Rng("explain"))
        except Rejected as exc:
            return [Text("Rejected ({code}): {message}", code=exc.code, message=exc.message)]
        # The lines may reach any viewer: events with hidden data show their type only.
        return [*lines, *(f"{e.type}: {e.data}" if e.type not in _HIDDEN_DATA else e.type
                          for e in events)]

    def bot(self, level: str) -> Callable[[Seen, Rng], Command]:
        if level == "basic":
            return bot.level(level)
        return super().bot(level)


_HIDDEN_DATA = frozenset({COMBAT_CARD_CHOSEN, CARD_DRAWN, GAME_STARTED})


def _muster(die: str, recruits: list[tuple[str, str, str]]) -> Command:
    return {"type": MUSTER, "die": die,
            "recruits": [{"nation": n, "kind": k, "region": r} for n, k, r in recruits]}


GAME = WarOfTheRing()
_ = (FP, SH, AUDITOR)
