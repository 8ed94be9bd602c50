"""Mag Blast rules: setup, evolve, decide, pending, default command, result, explain.

The spec is shared/rules/magblast.md (its decisions block settles what the rulebook leaves open);
the Korean rulebook shared/seeds/000_52943d94162eb49a.txt is the authority where both speak.
The decider is composed of turn.py (setup, phases 1-4, end of turn, No Mercy), attack.py (phase
5), chain.py (response windows) and effects.py (what resolved cards do); legal.py enumerates
commands, views.py decides what each seat sees, bot.py holds the levels.

Choices where both texts are silent (each has a test in tests/games/test_magblast*.py):
- the drawn fleet ship is placed after it is seen (a ``place_ship`` decision), as at the table;
- the maneuver counts each ship's steps from where it began the phase, so undoing a move is free;
- reinforcement payments name only needed cards (``overpaid`` otherwise);
- Ramming Speed sacrifices the rammer as the card is played (it is the cost), and the card goes
  under the target as a damage card worth the rammer's speed (Spacedock can remove it);
- a Direct Hit needs its target still in play; any other command forfeits it;
- a response answers the card on top of the chain; every seat the rules let answer it is asked
  in turn (each with a pass and the reaction clock), whatever its hand holds, so being asked
  tells the table nothing; a seat with nothing playable may only pass;
- sound_effects "on": a Blast sent without a sound waits for ``make_sound`` from its player
  before anyone answers it (``stay_silent`` misses); "strict": it misses at once;
- No Mercy: the current player proposes once a turn, never while a maneuver zone holds over 3
  ships; on agreement the current turn ends and the lowest standing hull starts (ties at random);
- Asteroids and Minefield played by an eliminated player are discarded with their cards;
- unlike AQ, a window does not ask only the seats holding an answer (that would tell the table
  who holds one); games created before this (no ``windows`` option) keep that old window so
  their logs still re-run exactly;
- the ``deal`` option (a scenario's stacked deal) is for teaching scenarios and tests: it names
  hands and deck tops, so it is test-only (refused over HTTP unless a test setting allows it)
  and never shown in a game's options or its game_created event (issue 23 item 11).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from games.core import (
    N_,
    Bot,
    Command,
    Event,
    Prompt,
    Rng,
    Seat,
    State,
    Text,
    Viewer,
    ensure,
)
from games.expert_shortlist import ShortlistGame
from games.magblast import attack, bot, chain, legal, shapes, turn, views
from games.magblast.data import (
    ACTION_IDS,
    COMMAND_SHIPS,
    RACES,
    SHIP_IDS,
    SHIPS,
    ZONES,
    kind,
)
from games.magblast.model import (
    ACCEPT_NO_MERCY,
    ACTION_DECK_RESHUFFLED,
    BLAST,
    BLAST_MISSED,
    BLASTS_SALVAGED,
    CARD_CANCELLED,
    CARD_PLAYED,
    CARD_SETTLED,
    CARDS_DISCARDED,
    CARDS_DRAWN,
    CHAIN_CLOSED,
    COMMANDS,
    CRANIUM,
    DAMAGE_DEALT,
    DAMAGE_MOVED,
    DAMAGE_REPAIRED,
    DH_EFFECT,
    DIRECT_HIT,
    DIRECT_HIT_READY,
    DISCARD,
    DRAW,
    EFFECT_EXPIRED,
    EFFECT_PLACED,
    EFFECT_SWEPT,
    END_PHASE,
    END_TURN,
    FLEET_DECK_RESHUFFLED,
    FLEET_DRAWN,
    FLEET_PLACED,
    FLEETS_DEALT,
    FLEETS_REVEALED,
    GAME_ENDED,
    GAME_STARTED,
    HAND_RAIDED,
    HANDS_DEALT,
    LAUNCH,
    MAKE_SOUND,
    MOVE,
    NO_MERCY_AGREED,
    NO_MERCY_PROPOSED,
    NO_MERCY_REFUSED,
    NO_RESPONSE,
    PHASE_STARTED,
    PLACE_FLEET,
    PLACE_SHIP,
    PLAY_CARD,
    PLAYER_ELIMINATED,
    POWER_USED,
    PROPOSE_NO_MERCY,
    RAID_HAND,
    REFUSE_NO_MERCY,
    REINFORCE,
    REINFORCEMENT_PAID,
    RESPOND,
    RESPONSE_MADE,
    RESPONSE_PASSED,
    SALVAGE_BLASTS,
    SHIP_CAPTURED,
    SHIP_DESTROYED,
    SHIP_MOVED,
    SHIP_PLACED,
    SHIPS_SCATTERED,
    SOUND_MADE,
    STAY_SILENT,
    SWEEP,
    TRANSFER_BLAST,
    TURN_ENDED,
    TURN_STARTED,
    MagBlastOptions,
    clone,
)
from games.magblast.table import Draft

SETUP_FLEET, HAND = 6, 5
# The phases' names as the prompt "<phase> phase" says them (marked for the catalogs).
PHASE_NAMES = (N_("discard"), N_("draw"), N_("reinforce"), N_("maneuver"), N_("attack"))


def _stack(rng: Rng, all_ids: tuple[str, ...], top: list[str]) -> list[str]:
    """A shuffled deck with ``top`` (a scenario's stacked cards) first, in that order."""
    rest = [c for c in all_ids if c not in set(top)]
    return list(top) + rng.shuffled(rest)


def _take(state: State, pile: str, cards: list[str]) -> None:
    for card in cards:
        state[pile].remove(card)


def _settle_card(state: State, card: str) -> None:
    """The card has left the chain: it is no longer counted on the table."""
    if state["chain"] is not None:
        for link in state["chain"]["links"]:
            if link["card"] == card:
                link["gone"] = True


class MagBlast(ShortlistGame):
    name = "magblast"
    title = "Mag Blast"
    min_seats = 2
    max_seats = 8
    rules_version = "1"
    spec = "shared/rules/magblast.md"
    options = MagBlastOptions
    commands = COMMANDS
    view_shape = shapes.VIEW
    result_shape = shapes.RESULT
    event_shapes = shapes.EVENTS
    test_only_options = frozenset({"deal"})
    # Each reveals hidden cards or a random outcome to someone.
    undo_barriers = frozenset({GAME_STARTED, FLEETS_DEALT, HANDS_DEALT, FLEETS_REVEALED,
                               CARDS_DRAWN, FLEET_DRAWN, HAND_RAIDED, ACTION_DECK_RESHUFFLED,
                               FLEET_DECK_RESHUFFLED, NO_MERCY_AGREED})
    bot_levels = ("random", "basic", "expert")
    expert_hooks = bot  # shortlist, sample_state, evaluate (games/expert_shortlist.py)
    # The expert (games/expert.py over games/expert_shortlist.py): its budget in playouts per
    # think-time ms (1 / CPU ms of a playout, bench/expert_bot.py), and the decisions a playout
    # plays (about two turns of a 2-player game) before ``evaluate`` scores the fleets.
    playouts_per_ms = 0.2
    horizon = 40

    # --- setup --------------------------------------------------------------------------------

    def setup(self, seats: int, options: dict[str, Any], rng: Rng) -> list[Event]:
        deal = options.get("deal") or {}
        opts = {k: v for k, v in options.items() if k != "deal"}
        races = list(deal.get("races") or [])
        ensure(len(set(races)) == len(races) and len(races) <= seats, "bad_deal",
               "A scenario names each race once, at most one per seat.")
        races += rng.shuffled([r for r in RACES if r not in races])[:seats - len(races)]
        fleets = [list(f) for f in deal.get("fleets") or []]
        hands = [list(h) for h in deal.get("hands") or []]
        stacked_fleet = [s for f in fleets for s in f] + list(deal.get("fleet_top") or [])
        stacked_hands = [c for h in hands for c in h] + list(deal.get("action_top") or [])
        ensure(all(s in SHIPS for s in stacked_fleet) and all(c in ACTION_IDS
                                                              for c in stacked_hands)
               and len(set(stacked_fleet)) == len(stacked_fleet)
               and len(set(stacked_hands)) == len(stacked_hands), "bad_deal",
               "A scenario names real cards, each once.")
        fleet_deck = rng.shuffled([s for s in SHIP_IDS if s not in set(stacked_fleet)])
        action_deck = rng.shuffled([c for c in ACTION_IDS if c not in set(stacked_hands)])
        # Stacked seats take exactly what they name; the others are dealt from the shuffle.
        dealt_fleets, dealt_hands = [], []
        for seat in range(seats):
            if seat < len(fleets):
                dealt_fleets.append(fleets[seat])
            else:
                dealt_fleets.append(fleet_deck[:SETUP_FLEET])
                fleet_deck = fleet_deck[SETUP_FLEET:]
            if seat < len(hands):
                dealt_hands.append(hands[seat])
            else:
                dealt_hands.append(action_deck[:HAND])
                action_deck = action_deck[HAND:]
        fleet_deck = list(deal.get("fleet_top") or []) + fleet_deck
        action_deck = list(deal.get("action_top") or []) + action_deck
        full_fleet = [s for f in dealt_fleets for s in f] + fleet_deck
        full_actions = [c for h in dealt_hands for c in h] + action_deck
        return [
            Event(GAME_STARTED, {"seats": seats, "options": opts, "races": races,
                                 "fleet_deck": full_fleet, "action_deck": full_actions}),
            Event(FLEETS_DEALT, {"ships": dealt_fleets}),
            Event(HANDS_DEALT, {"hands": dealt_hands}),
        ]

    # --- evolve -------------------------------------------------------------------------------

    def evolve(self, state: State, event: Event) -> State:
        d = event.data
        t = event.type
        if t == GAME_STARTED:
            n = d["seats"]
            return {
                "seats": n, "options": d["options"], "races": list(d["races"]),
                "alive": [True] * n, "out": [], "fleet_deck": list(d["fleet_deck"]),
                "fleet_discard": [], "action_deck": list(d["action_deck"]), "action_discard": [],
                "hands": [[] for _ in range(n)], "dealt": None, "placed": {},
                "zones": [{z: [] for z in ZONES} for _ in range(n)], "under": {}, "temp": {},
                "fired": {}, "uses": [COMMAND_SHIPS[r].uses or None for r in d["races"]],
                "effects": [], "returning": [], "turn": 0, "turn_number": 0, "phase": "setup",
                "started": [False] * n, "placing": None, "origins": {}, "chain": None,
                "dh": None, "no_mercy": False, "proposal": None, "result": None,
            }
        if t == FLEETS_DEALT:
            _take(state, "fleet_deck", [s for f in d["ships"] for s in f])
            state["dealt"] = [list(f) for f in d["ships"]]
        elif t == HANDS_DEALT:
            for seat, hand in enumerate(d["hands"]):
                _take(state, "action_deck", hand)
                state["hands"][seat] += hand
        elif t == FLEET_PLACED:
            state["placed"][str(d["seat"])] = dict(d["zones"])
        elif t == FLEETS_REVEALED:
            for seat, zones in enumerate(d["zones"]):
                for zone, ship in zones.items():
                    state["zones"][seat][zone].append(ship)
            for ships in d["discarded"]:
                state["fleet_discard"] += ships
            state["dealt"], state["placed"] = None, {}
        elif t == TURN_STARTED:
            state.update(turn=d["seat"], turn_number=d["turn"], phase=d["phase"], fired={},
                         origins={}, dh=None, proposal=None)
            state["started"][d["seat"]] = True
        elif t == EFFECT_EXPIRED:
            state["effects"] = [e for e in state["effects"] if e["card"] != d["card"]]
            state["action_discard"].append(d["card"])
        elif t == PHASE_STARTED:
            state["phase"] = d["phase"]
            state["origins"] = {}
        elif t in (CARDS_DISCARDED, REINFORCEMENT_PAID):
            for card in d["cards"]:
                state["hands"][d["seat"]].remove(card)
            state["action_discard"] += d["cards"]
        elif t == CARDS_DRAWN:
            _take(state, "action_deck", d["cards"])
            state["hands"][d["seat"]] += d["cards"]
        elif t == ACTION_DECK_RESHUFFLED:
            state["action_deck"], state["action_discard"] = list(d["deck"]), []
        elif t == FLEET_DECK_RESHUFFLED:
            state["fleet_deck"], state["fleet_discard"] = list(d["deck"]), []
        elif t == BLASTS_SALVAGED:
            _take(state, "action_discard", d["cards"])
            state["hands"][d["seat"]] += d["cards"]
        elif t == FLEET_DRAWN:
            _take(state, "fleet_deck" if d["source"] == "deck" else "fleet_discard", d["ships"])
            state["placing"] = {"seat": d["seat"], "ships": list(d["ships"]), "then": d["then"]}
        elif t == SHIP_PLACED:
            state["zones"][d["seat"]][d["zone"]].append(d["ship"])
            state["fleet_discard"] += d["discarded"]
            state["placing"] = None
        elif t == SHIP_MOVED:
            zones = state["zones"][d["seat"]]
            zones[d["origin"]].remove(d["ship"])
            zones[d["zone"]].append(d["ship"])
            state["origins"].setdefault(d["ship"], d["origin"])
        elif t == HAND_RAIDED:
            for card in d["cards"]:
                state["hands"][d["target"]].remove(card)
            state["hands"][d["seat"]] += d["cards"]
        elif t == POWER_USED:
            state["uses"][d["seat"]] -= 1
        elif t == CARD_PLAYED:
            state["hands"][d["seat"]].remove(d["card"])
            link = {"seat": d["seat"], "card": d["card"], "gone": False, **d["link"]}
            state["chain"] = {"links": [link], "passed": [], "silent": link.get("silent", False)}
            state["dh"] = None
            if link.get("turret"):
                state["fired"].setdefault(link["ship"], []).append(link["turret"])
        elif t == SOUND_MADE:
            state["chain"]["silent"] = False
        elif t == RESPONSE_MADE:
            hand = state["hands"][d["seat"]]
            for card in [d["card"]] if d["card"] else d["cards"]:
                hand.remove(card)
            state["action_discard"] += d["cards"]
            state["chain"]["links"].append({"seat": d["seat"], "card": d["card"], "gone": False,
                                            "action": d["action"], "cards": d["cards"]})
            state["chain"]["passed"] = []
        elif t == RESPONSE_PASSED:
            state["chain"]["passed"].append(d["seat"])
        elif t == CARD_SETTLED:
            _settle_card(state, d["card"])
            if d["to"] == "returning":
                state["returning"].append([d["card"], d["owner"]])
            else:
                state["action_discard"].append(d["card"])
        elif t == BLAST_MISSED:
            state["action_discard"].append(d["card"])
            state["chain"] = None
        elif t == DAMAGE_DEALT:
            if d["permanent"]:
                _settle_card(state, d["card"])
                state["under"].setdefault(d["target"], []).append([d["card"], d["damage"]])
            else:
                state["temp"][d["target"]] = state["temp"].get(d["target"], 0) + d["damage"]
        elif t == DAMAGE_MOVED:
            entry = next(e for e in state["under"][d["ship"]] if e[0] == d["blast"])
            state["under"][d["ship"]].remove(entry)
            state["under"].setdefault(d["target"], []).append(entry)
        elif t == DAMAGE_REPAIRED:
            entry = next(e for e in state["under"][d["ship"]] if e[0] == d["blast"])
            state["under"][d["ship"]].remove(entry)
            state["action_discard"].append(d["blast"])
        elif t == SHIP_DESTROYED:
            self._remove_ship(state, d["seat"], d["ship"])
            state["fleet_discard"].append(d["ship"])
        elif t == PLAYER_ELIMINATED:
            self._eliminate(state, d)
        elif t == CHAIN_CLOSED:
            state["chain"] = None
        elif t == DIRECT_HIT_READY:
            state["dh"] = {"ship": d["ship"], "target": d["target"], "stage": d["stage"]}
        elif t == SHIP_CAPTURED:
            zones = state["zones"][d["from_seat"]]
            for zone in ZONES:
                if d["ship"] in zones[zone]:
                    zones[zone].remove(d["ship"])
            state["zones"][d["seat"]][d["zone"]].append(d["ship"])
        elif t == SHIPS_SCATTERED:
            zones = state["zones"][d["fleet"]]
            for ship, zone in d["moves"].items():
                for z in ZONES:
                    if ship in zones[z]:
                        zones[z].remove(ship)
                zones[zone].append(ship)
        elif t == EFFECT_PLACED:
            _settle_card(state, d["card"])
            state["effects"].append({"card": d["card"], "by": d["by"], "fleet": d["fleet"]})
        elif t == EFFECT_SWEPT:
            state["effects"] = [e for e in state["effects"] if e["card"] != d["card"]]
            state["action_discard"].append(d["card"])
            state["fired"][d["ship"]] = list(SHIPS[d["ship"]].turrets)
            state["dh"] = None
        elif t == TURN_ENDED:
            for card, owner in state["returning"]:
                state["hands"][owner].append(card)
            state.update(returning=[], temp={}, fired={}, dh=None, chain=None)
        elif t == NO_MERCY_PROPOSED:
            state["proposal"] = {"by": d["seat"], "refused": False}
        elif t == NO_MERCY_REFUSED:
            state["proposal"]["refused"] = True
        elif t == NO_MERCY_AGREED:
            state["no_mercy"], state["proposal"] = True, None
        elif t == GAME_ENDED:
            state["result"] = {k: d[k] for k in ("reason", "winners", "scores", "ranking")}
            state["phase"] = "over"
        elif t == CARD_CANCELLED:
            pass  # a record for the table; the card moves with card_settled
        return state

    @staticmethod
    def _remove_ship(state: State, seat: Seat, ship: str) -> None:
        zones = state["zones"][seat]
        for zone in ZONES:
            if ship in zones[zone]:
                zones[zone].remove(ship)
        state["action_discard"] += [c for c, _ in state["under"].pop(ship, [])]
        state["temp"].pop(ship, None)
        state["fired"].pop(ship, None)
        if state["dh"] is not None and ship in (state["dh"]["ship"], state["dh"]["target"]):
            state["dh"] = None

    def _eliminate(self, state: State, d: dict[str, Any]) -> None:
        seat = d["seat"]
        state["alive"][seat] = False
        state["out"].append(seat)
        state["action_discard"] += state["hands"][seat]
        state["hands"][seat] = []
        for ship in d["ships"]:
            self._remove_ship(state, seat, ship)
            state["fleet_discard"].append(ship)
        race = state["races"][seat]
        state["action_discard"] += [c for c, _ in state["under"].pop(race, [])]
        state["temp"].pop(race, None)
        gone = set(d["effects"])
        state["action_discard"] += [e["card"] for e in state["effects"] if e["card"] in gone]
        state["effects"] = [e for e in state["effects"] if e["card"] not in gone]
        state["action_discard"] += [c for c, owner in state["returning"] if owner == seat]
        state["returning"] = [[c, o] for c, o in state["returning"] if o != seat]
        if state["dh"] is not None and state["dh"]["target"] == race:
            state["dh"] = None

    # --- decide -------------------------------------------------------------------------------

    def decide_command(self, state: State, command: Command, seat: Seat, rng: Rng) -> list[Event]:
        draft = Draft(state, self.evolve, rng)
        c = command
        handlers: dict[str, Callable[[], None]] = {
            PLACE_FLEET: lambda: turn.place_fleet(draft, seat, c["zones"]),
            DISCARD: lambda: turn.discard(draft, seat, c["cards"]),
            TRANSFER_BLAST: lambda: turn.transfer_blast(draft, seat, c["ship"], c["blast"],
                                                        c["target"]),
            DRAW: lambda: turn.draw(draft, seat),
            SALVAGE_BLASTS: lambda: turn.salvage(draft, seat, c["cards"]),
            REINFORCE: lambda: turn.reinforce(draft, seat, c["cards"], c["ship"]),
            PLACE_SHIP: lambda: turn.place_ship(draft, seat, c["ship"], c["zone"]),
            END_PHASE: lambda: turn.end_phase(draft, seat),
            MOVE: lambda: turn.move(draft, seat, c["ship"], c["zone"]),
            RAID_HAND: lambda: turn.raid_hand(draft, seat, c["seat"]),
            BLAST: lambda: attack.blast(draft, seat, c["card"], c["ship"], c["target"],
                                        c["sound"]),
            MAKE_SOUND: lambda: chain.make_sound(draft, seat, c["sound"]),
            STAY_SILENT: lambda: chain.miss(draft, seat, "no_sound"),
            LAUNCH: lambda: attack.launch(draft, seat, c["card"], c["carrier"], c["target"]),
            DIRECT_HIT: lambda: attack.direct_hit(draft, seat, c["card"]),
            DH_EFFECT: lambda: attack.dh_effect(draft, seat, c["card"], c["zone"], c["moves"],
                                                c["power"]),
            PLAY_CARD: lambda: attack.play_card(draft, seat, c["card"], c),
            SWEEP: lambda: attack.sweep(draft, seat, c["ship"], c["card"]),
            END_TURN: lambda: turn.end_turn(draft, seat),
            RESPOND: lambda: chain.respond(draft, seat, c["card"]),
            CRANIUM: lambda: chain.cranium(draft, seat, c["cards"]),
            NO_RESPONSE: lambda: chain.decline(draft, seat),
            PROPOSE_NO_MERCY: lambda: turn.propose_no_mercy(draft, seat),
            ACCEPT_NO_MERCY: lambda: turn.answer_no_mercy(draft, seat, True),
            REFUSE_NO_MERCY: lambda: turn.answer_no_mercy(draft, seat, False),
        }
        if c["type"] in (BLAST, LAUNCH, DIRECT_HIT, DH_EFFECT, PLAY_CARD, SWEEP):
            ensure(state["phase"] == "attack" and state["turn"] == seat
                   and state["placing"] is None and state["chain"] is None, "wrong_phase",
                   "Action cards are played in your attack phase.")
        handlers[c["type"]]()
        return draft.events

    # --- who acts, with what ------------------------------------------------------------------

    def pending(self, state: State) -> dict[Seat, Prompt]:
        if not state or state["result"] is not None:
            return {}
        if state["phase"] == "setup":
            return {s: Prompt((PLACE_FLEET,), "turn", "place your fleet, one ship per zone")
                    for s in range(state["seats"]) if str(s) not in state["placed"]}
        proposal = state["proposal"]
        if proposal is not None and not proposal["refused"]:
            other = next(s for s in range(state["seats"])
                         if state["alive"][s] and s != proposal["by"])
            return {other: Prompt((ACCEPT_NO_MERCY, REFUSE_NO_MERCY), "turn", "play No Mercy?")}
        if state["chain"] is not None:
            first = state["chain"]["links"][0]
            if state["chain"]["silent"]:
                return {first["seat"]: Prompt((MAKE_SOUND, STAY_SILENT), "reaction",
                                              "make the Blast's sound effect")}
            asked = chain.responder(state)
            if asked is None:
                # Inside one command's events (a replay may stop there) the chain is open but
                # resolves in the same batch: nobody is asked yet.
                return {}
            # magblast.md §4c, issue 12: the prompt (public) names what the rules allow the
            # seat, not what its hand holds; its legal commands say what it can play.
            may = chain.answers(state, asked) if chain.asks_holders_only(state) else (
                chain.eligible(state, asked))
            kinds = tuple(k for k in (RESPOND, CRANIUM) if k in may)
            label = Text("respond to {card}?", card=kind(chain.top(state)["card"] or "cranium-0"))
            return {asked: Prompt((*kinds, NO_RESPONSE), "reaction", label)}
        if state["placing"] is not None:
            return {state["placing"]["seat"]: Prompt((PLACE_SHIP,), "turn", "place the new ship")}
        seat, phase = state["turn"], state["phase"]
        kinds = {
            "discard": (DISCARD, TRANSFER_BLAST),
            "draw": (DRAW, SALVAGE_BLASTS),
            "reinforce": (REINFORCE, END_PHASE),
            "maneuver": (MOVE, END_PHASE, RAID_HAND),
            "attack": (BLAST, LAUNCH, DIRECT_HIT, DH_EFFECT, PLAY_CARD, SWEEP, END_TURN),
        }[phase]
        if turn.may_propose(state, seat):
            kinds += (PROPOSE_NO_MERCY,)
        return {seat: Prompt(kinds, "turn", Text("{phase} phase", phase=phase))}

    def legal_commands(self, state: State, seat: Seat) -> list[Command]:
        return legal.commands(state, seat, self.pending(state).get(seat))

    def default_command(self, state: State, seat: Seat) -> Command:
        """What a clock plays: no response, no discard, draw, end the phase or turn, refuse No
        Mercy, the first zones for setup and placing, a silent Blast misses."""
        return legal.default(state, seat, self.pending(state).get(seat))

    # --- views and result ---------------------------------------------------------------------

    def view(self, state: State, viewer: Viewer) -> dict[str, Any]:
        return views.view(state, viewer, self.pending(state))

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

    def explain(self, state: State, command: Command, seat: Seat) -> list[str]:
        """The checks each command passed, in words (turret match, zone, target exposed...)."""
        return legal.explain(self, state, command, seat)

    def bot(self, level: str) -> Bot:
        if level == "basic":
            return bot.basic_bot
        return super().bot(level)

    def copy_state(self, state: State) -> State:
        return clone(state)


GAME = MagBlast()
