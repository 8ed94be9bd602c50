"""Mag Blast bots. A bot is a function of (the seat's view, its legal commands, rng) only.

``basic``: keeps its strongest ships at setup, reinforces whenever it can pay and keeps every zone
covered (the command ship is only exposed through an empty zone), focuses fire on what it can
destroy and otherwise on the weakest exposed fleet, prefers the command ship when it is exposed,
launches Squadrons only when they destroy, follows a hit with a Direct Hit and its strongest
effect, holds Evasive Action (and Fighters, Cranium icons) for big hits, and spends Temporal Flux
to save its own attacks or stop a big one aimed at it.
"""

from __future__ import annotations

import json
from typing import Any

from games.core import Command, Rng, Seen
from games.magblast.data import ACTION_IDS, ACTIONS, COMMAND_HULL, SHIP_IDS, SHIPS, ZONES, kind
from games.magblast.table import remaining

DH_ORDER = ("catastrophic_damage", "boarding_party", "bridge_hit", "concussive_blast")
BIG_HIT = 3  # Evasive Action is held for hits of at least this much (or lethal ones)


def _owner(view: dict[str, Any], ship: str) -> int | None:
    if ship in view["races"]:
        return view["races"].index(ship)
    for seat, zones in enumerate(view["zones"]):
        if any(ship in z for z in zones.values()):
            return seat
    return None


def _left(view: dict[str, Any], ship: str) -> int:
    """Hull left: hull minus damage cards minus squadron damage this turn."""
    hull = SHIPS[ship].hull if ship in SHIPS else COMMAND_HULL
    return hull - sum(d for _, d in view["under"].get(ship, ())) - view["temp"].get(ship, 0)


def _damage(view: dict[str, Any], command: Command) -> int:
    card = command["card"]
    if kind(card) in ("fighter", "bomber"):
        amount = ACTIONS[card].damage
        owner = _owner(view, command["target"])
        if command["target"] in SHIPS and owner is not None and view["races"][owner] == "glorp":
            amount //= 2
        return amount
    return ACTIONS[card].damage


def _score(view: dict[str, Any], command: Command) -> float:
    """How good an attack is: destroying scores most (a command ship above all), then damage
    on the weakest fleet."""
    target = command["target"]
    dealt = _damage(view, command)
    left = _left(view, target)
    owner = _owner(view, target)
    fleet_left = sum(_left(view, s) for z in view["zones"][owner].values() for s in z)
    if target in view["races"]:
        return 1000 + dealt * 10 - left if dealt >= left else 100 + dealt * 10
    if dealt >= left:
        return 200 + SHIPS[target].hull * 2 - dealt
    return dealt * 5 - left - fleet_left / 20


JUNK = {"ramming_speed": 7, "catastrophic_damage": 3, "boarding_party": 5, "bridge_hit": 5,
        "concussive_blast": 6, "direct_hit": 5, "spacedock": 4, "asteroids": 4, "minefield": 4,
        "evasive_action": -5, "temporal_flux": -5}


def _junk(view: dict[str, Any], card: str, seat: int) -> int:
    """How little a hand card is worth keeping: a Blast no ship of ours can fire, a Squadron
    with no carrier, the combo cards; icons make a card worth keeping for reinforcements."""
    ships = [s for z in view["zones"][seat].values() for s in z]
    turrets = {t for s in ships for t in SHIPS[s].turrets}
    k = kind(card)
    score = JUNK.get(k, 1)
    if ACTIONS[card].turret is not None and ACTIONS[card].turret not in turrets:
        score = 10
    if k in ("fighter", "bomber") and not any(SHIPS[s].cls == "carrier" for s in ships):
        score = 8
    return score - 2 * len(ACTIONS[card].icons)


def _discard(view: dict[str, Any], legal: list[Command], seat: int) -> Command:
    """Cycle the hand: with 5 or more cards nothing would be drawn, so the least useful goes."""
    singles = [c for c in legal if c["type"] == "discard" and len(c["cards"]) == 1]
    if not singles:
        return {"type": "discard", "cards": []}
    worst = max(singles, key=lambda c: _junk(view, c["cards"][0], seat))
    if len(view["hand"]) >= 5 or _junk(view, worst["cards"][0], seat) >= 8:
        return worst
    return {"type": "discard", "cards": []}


def _setup(legal: list[Command]) -> Command:
    return max(legal, key=lambda c: (sum(SHIPS[s].hull for s in c["zones"].values()),
                                     -SHIPS[c["zones"]["n"]].speed))


def _place(view: dict[str, Any], legal: list[Command], seat: int) -> Command:
    counts = {z: len(view["zones"][seat][z]) for z in ZONES}
    return max(legal, key=lambda c: (SHIPS[c["ship"]].hull, -counts[c["zone"]]))


def _maneuver(view: dict[str, Any], legal: list[Command], seat: int) -> Command | None:
    """Cover an empty zone with a ship from a zone that has more than one."""
    zones = view["zones"][seat]
    empty = [z for z in ZONES if not zones[z]]
    for command in legal:
        if command["type"] == "move" and command["zone"] in empty:
            source = next(z for z in ZONES if command["ship"] in zones[z])
            if len(zones[source]) > 1:
                return command
    return None


def _threat(view: dict[str, Any], seat: int) -> bool:
    """Whether the card at the bottom of the chain hurts this seat enough to answer."""
    base = view["chain"]["links"][0]
    if base.get("target_seat") != seat:
        return False
    action = base["action"]
    if action == "direct_hit":
        return True
    damage = base.get("damage", 0)
    target = base["target"]
    return damage >= BIG_HIT or damage >= _left(view, target) or target in view["races"]


def _respond(view: dict[str, Any], legal: list[Command], seat: int) -> Command:
    links = view["chain"]["links"]
    top = links[-1]
    responses = [c for c in legal if c["type"] == "respond"]
    cranium = [c for c in legal if c["type"] == "cranium"]
    if len(links) == 1 and _threat(view, seat):
        for wanted in ("fighter", "evasive_action", "temporal_flux"):
            found = [c for c in responses if kind(c["card"]) == wanted]
            if found:
                return found[0]
        if cranium:
            return min(cranium, key=lambda c: len(c["cards"]))
    fluxes = [c for c in responses if kind(c["card"]) == "temporal_flux"]
    if fluxes and len(links) > 1:
        # Someone cancelled a card on my side of the chain: cancel the cancel.
        if links[-2]["seat"] == seat and top["seat"] != seat:
            return fluxes[0]
    return {"type": "no_response"}


def _attack(view: dict[str, Any], legal: list[Command], seat: int) -> Command:
    by_type: dict[str, list[Command]] = {}
    for command in legal:
        by_type.setdefault(command["type"], []).append(command)
    dh = view["dh"]
    if dh is not None:
        effects = by_type.get("dh_effect", [])
        for wanted in DH_ORDER:
            found = [c for c in effects if kind(c["card"]) == wanted]
            if found:
                return found[0]
        if dh["stage"] == "hit" and by_type.get("direct_hit"):
            return by_type["direct_hit"][0]
    misc = by_type.get("play_card", [])
    # Strategic Allocation only while the hand is short: with most of the deck in hand it
    # would draw itself back from the reshuffled discard pile for ever.
    wanted = ("reinforcements", "strategic_allocation") if len(view["hand"]) < 8 else (
        "reinforcements",)
    for name in wanted:
        found = [c for c in misc if kind(c["card"]) == name]
        if found:
            return found[0]
    for command in by_type.get("sweep", []):
        return command
    attacks = by_type.get("blast", []) + [
        c for c in by_type.get("launch", []) if _damage(view, c) >= _left(view, c["target"])]
    if attacks:
        return max(attacks, key=lambda c: (_score(view, c), ACTIONS[c["card"]].damage))
    docks = [c for c in misc if kind(c["card"]) == "spacedock"]
    if docks:
        return max(docks, key=lambda c: ACTIONS[c["blast"]].damage
                   if c["blast"] in ACTIONS else 0)
    shields = [c for c in misc if kind(c["card"]) == "asteroids" and c["seat"] == seat]
    if shields:
        return shields[0]
    mines = [c for c in misc if kind(c["card"]) == "minefield" and c["seat"] != seat]
    if mines:
        return max(mines, key=lambda c: sum(len(z) for z in view["zones"][c["seat"]].values()))
    return {"type": "end_turn"}


def basic_bot(seen: Seen, rng: Rng) -> Command:
    """The ``basic`` level (see the module docstring): it uses the seat's view and legal
    commands only (games/core.py ``Seen``)."""
    view, legal = seen.view, seen.legal
    seat = view["viewer"]
    kinds = set(view["pending"].get(str(seat), {}).get("kinds", ()))
    types = {c["type"] for c in legal}
    choice: Command | None = None
    if "place_fleet" in kinds:
        choice = _setup(legal)
    elif "accept_no_mercy" in kinds:
        mine = sum(_left(view, s) for z in view["zones"][seat].values() for s in z)
        accept = mine >= 20 and {"type": "accept_no_mercy"} in legal  # not over a zone limit
        choice = {"type": "accept_no_mercy" if accept else "refuse_no_mercy"}
    elif "make_sound" in kinds:
        choice = next(c for c in legal if c["type"] == "make_sound")
    elif "no_response" in kinds:
        choice = _respond(view, legal, seat)
    elif "place_ship" in kinds:
        choice = _place(view, legal, seat)
    elif "discard" in kinds:
        transfers = [c for c in legal if c["type"] == "transfer_blast"]
        if transfers:
            choice = max(transfers, key=lambda c: (ACTIONS[c["blast"]].damage
                                                   >= _left(view, c["target"]),
                                                   -_left(view, c["target"])))
        else:
            choice = _discard(view, legal, seat)
    elif "draw" in kinds:
        salvage = [c for c in legal if c["type"] == "salvage_blasts"]
        choice = max(salvage, key=lambda c: len(c["cards"])) if salvage else {"type": "draw"}
    elif "reinforce" in kinds:
        buys = [c for c in legal if c["type"] == "reinforce"]
        tribot = [c for c in buys if c["ship"]]
        if tribot:
            choice = max(tribot, key=lambda c: SHIPS[c["ship"]].hull)
        elif buys:
            choice = min(buys, key=lambda c: sum(ACTIONS[x].damage for x in c["cards"]))
        else:
            choice = {"type": "end_phase"}
    elif "move" in kinds:
        raids = [c for c in legal if c["type"] == "raid_hand"]
        if raids:
            choice = max(raids, key=lambda c: view["hand_counts"][c["seat"]])
        else:
            choice = _maneuver(view, legal, seat) or {"type": "end_phase"}
    elif "end_turn" in types:
        choice = _attack(view, legal, seat)
    if choice in legal:
        return choice
    if "end_phase" in types and "move" in kinds:
        return {"type": "end_phase"}
    fallback = [c for c in legal if c["type"] in ("no_response", "end_turn", "end_phase")]
    return (fallback or legal)[0]




# --- the expert level's hooks (games/expert.py) ----------------------------------------------

EXPERT_CANDIDATES = 6  # commands searched per decision: the favourite and the likeliest others
_QUIET = ("no_response", "end_turn", "end_phase", "draw", "refuse_no_mercy", "stay_silent")


def shortlist(seen: Seen, favourite: Command, size: int = EXPERT_CANDIDATES) -> list[Command]:
    """The commands the expert searches: the ``basic`` choice, the quiet ones (pass, end the
    phase or turn), the attacks ``basic`` scores highest, then the rest in legal order; at most
    ``size``. An attack phase offers dozens of Blasts and a search over all of them would spend
    the think time on two worlds each; this reads only the seat's view and legal commands."""
    # A ship moved this turn may move again within its speed of where it started, so a search
    # that finds moving it a shade better each time shuffles it back and forth forever (seen: a
    # game of 8,700 steps in one Maneuver phase). The expert moves each ship once a turn; only
    # basic's own choice (which only ever fills an empty zone) may move one again.
    moved = seen.view.get("origins") or {}
    legal = [c for c in seen.legal
             if c == favourite or not (c["type"] == "move" and c.get("ship") in moved)]
    out = [favourite] if favourite in legal else []
    out += [c for c in legal if c["type"] in _QUIET and c not in out]
    attacks = [c for c in legal if c["type"] in ("blast", "launch") and c not in out]
    attacks.sort(key=lambda c: -_score(seen.view, c))
    out += attacks[:2]
    out += [c for c in legal if c not in out]
    return [c for c in legal if c in out[:size]]  # in legal order, as basic reads it


def sample_state(seen: Seen, rng: Rng) -> dict[str, Any]:
    """A whole state the seat cannot tell from the real one (the expert's world), built from its
    view and redacted log alone: the other hands, both decks' order and contents, the fleet
    ships dealt or drawn to others and not yet shown are drawn at random from the cards the
    seat cannot place; cards it saw taken from its own hand by a raid (Freep) and never seen
    since stay in the raider's hand."""
    view, me = seen.view, seen.seat
    n = view["seats"]
    chain = view["chain"]
    state: dict[str, Any] = {
        "seats": n, "options": dict(view["options"]), "races": list(view["races"]),
        "alive": list(view["alive"]), "out": list(view["out"]),
        "fleet_discard": list(view["fleet_discard"]),
        "action_discard": list(view["action_discard"]),
        "zones": [{z: list(s) for z, s in zones.items()} for zones in view["zones"]],
        "under": {s: [list(e) for e in cards] for s, cards in view["under"].items()},
        "temp": dict(view["temp"]), "fired": {s: list(t) for s, t in view["fired"].items()},
        "uses": list(view["uses"]), "effects": [dict(e) for e in view["effects"]],
        "returning": [list(r) for r in view["returning"]], "turn": view["turn"],
        "turn_number": view["turn_number"], "phase": view["phase"],
        "started": list(view["started"]), "origins": dict(view["origins"]),
        "chain": None if chain is None else {
            "links": [dict(link) for link in chain["links"]], "passed": list(chain["passed"]),
            "silent": chain["silent"]},
        "dh": None if view["dh"] is None else dict(view["dh"]), "no_mercy": view["no_mercy"],
        "proposal": None if view["proposal"] is None else dict(view["proposal"]),
        "result": view["result"], "placed": {}, "dealt": None, "placing": None,
    }
    # Action cards: every one the seat can place, the rest drawn for the hidden hands and deck.
    known = set(view["hand"]) | set(view["action_discard"])
    known.update(c for cards in view["under"].values() for c, _ in cards)
    known.update(e["card"] for e in view["effects"])
    known.update(c for c, _ in view["returning"])
    if chain is not None:
        known.update(link["card"] for link in chain["links"] if link["card"] and not link["gone"])
    hands: list[list[str]] = [[] for _ in range(n)]
    hands[me] = list(view["hand"])
    unknown = [c for c in ACTION_IDS if c not in known]
    for raider, cards in _raided_from(seen).items():
        for card in cards:
            if card in unknown and len(hands[raider]) < view["hand_counts"][raider]:
                hands[raider].append(card)
                unknown.remove(card)
    pool = rng.shuffled(unknown)
    for seat in range(n):
        if seat != me:
            need = view["hand_counts"][seat] - len(hands[seat])
            hands[seat] += pool[:need]
            pool = pool[need:]
    state["hands"], state["action_deck"] = hands, pool
    # Ships: the face-down setup deal, a drawn ship not yet placed, and the fleet deck.
    seen_ships = {s for zones in view["zones"] for z in zones.values() for s in z}
    seen_ships |= set(view["fleet_discard"]) | set(view["dealt"])
    placing = view["placing"]
    if placing is not None and placing["seat"] == me:
        seen_ships |= set(placing["ships"])
    ships = rng.shuffled(s for s in SHIP_IDS if s not in seen_ships)
    if view["dealt"]:
        counts = next((e.data["counts"] for e in reversed(seen.events)
                       if e.type == "fleets_dealt"), [len(view["dealt"])] * n)
        dealt = []
        for seat in range(n):
            if seat == me:
                dealt.append(list(view["dealt"]))
            else:
                dealt.append(ships[:counts[seat]])
                ships = ships[counts[seat]:]
        state["dealt"] = dealt
        for seat in view["placed"]:
            state["placed"][str(seat)] = (dict(view["my_placement"]) if seat == me else
                                          dict(zip(ZONES, dealt[seat][:4], strict=True)))
    if placing is not None:
        drawn = next((e.data for e in reversed(seen.events) if e.type == "fleet_drawn"), {})
        if placing["seat"] == me:
            mine = list(placing["ships"])
        else:
            mine, ships = ships[:placing["count"]], ships[placing["count"]:]
        state["placing"] = {"seat": placing["seat"], "ships": mine,
                            "then": drawn.get("then")}
    state["fleet_deck"] = ships
    return state


def _raided_from(seen: Seen) -> dict[int, list[str]]:
    """Cards a raid took from the seat's hand that no later event has shown: still in the
    raider's hand (only the two players involved saw them)."""
    events = seen.events
    out: dict[int, list[str]] = {}
    for index, event in enumerate(events):
        if event.type != "hand_raided" or event.data.get("target") != seen.seat:
            continue
        for card in event.data.get("cards", []):
            later = any(card in json.dumps(e.data) for e in events[index + 1:])
            if not later:
                out.setdefault(event.data["seat"], []).append(card)
    return out


def evaluate(state: dict[str, Any], seat: int) -> float:
    """The seat's share of the fleets' strength left (command ship hull counted three times,
    a little for cards in hand), or its share of the win once the game is over."""
    result = state["result"]
    if result is not None:
        winners = result["winners"]
        return 1.0 / len(winners) if seat in winners else 0.0
    strengths = []
    for s in range(state["seats"]):
        if not state["alive"][s]:
            strengths.append(0.0)
            continue
        race = state["races"][s]
        left = 3 * max(0, remaining(state, race))
        left += sum(max(0, remaining(state, ship)) for zone in state["zones"][s].values()
                    for ship in zone)
        strengths.append(left + 0.5 * len(state["hands"][s]))
    total = sum(strengths)
    return strengths[seat] / total if total else 0.0
