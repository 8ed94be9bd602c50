"""The War of the Ring state machine shared by rules.py and battle.py: ``evolve`` (applies one
event, never validates), ``Tx`` (decides on a private copy: every emitted event is folded at
once so later checks see it), map queries, and the follow-ups every action ends with (capture,
political track, sieges lifted, stacking, the next turn, the end of the round and victory)."""

from __future__ import annotations

from typing import Any

from games.core import Event, Rng, Seat, State, plain_copy
from games.wotr import seats
from games.wotr.data import (
    CARDS,
    DICE,
    FACES,
    FP,
    NATION_SIDE,
    NATIONS,
    POLITICS,
    REGIONS,
    REINFORCEMENTS,
    SCENARIOS,
    SH,
    SIDES,
    SIEGE_LIMIT,
    STACK_LIMIT,
    STRONGHOLD,
)
from games.wotr.model import (
    ACTED_WITH,
    ACTION_CLOSED,
    ACTION_OPENED,
    ARMY_RETREATED,
    BATTLE_ENDED,
    BATTLE_ROUND_ENDED,
    BATTLE_STARTED,
    BATTLE_STEP,
    CARD_DISCARDED,
    CARD_DRAWN,
    COMBAT_CARD_CHOSEN,
    COMBAT_CARDS_REVEALED,
    COMBAT_ROLLED,
    DICE_ROLLED,
    DIE_USED,
    ELITE_REDUCED,
    EXCESS_REMOVED,
    FIGURES_CHOSEN,
    GAME_ENDED,
    GAME_STARTED,
    HITS_SCORED,
    LEADERS_REMOVED,
    NATION_ACTIVATED,
    ORDER_DECLARED,
    PASSED,
    POLITICAL_ADVANCED,
    ROUND_STARTED,
    SETTLEMENT_CAPTURED,
    SIEGE_LIFTED,
    TRANSFERS,
    TURN_PASSED,
    Army,
    army_side,
    copy_army,
    location,
    other,
    transfer,
    units,
)

SETTLEMENTS = ("city", "town", STRONGHOLD)

# --- evolve -----------------------------------------------------------------------------------


def initial(data: dict[str, Any]) -> State:
    """The state after ``game_started``: the scenario's armies, pools, track and decks."""
    regions = list(SCENARIOS[data["scenario"]]["regions"])
    n_seats = data.get("seats", 2)
    armies: dict[str, Army] = {}
    for name in regions:
        start = REGIONS[name].start
        if start:
            armies[name] = {start[0]: list(start[1])}
    totals = {n: list(f) for n, f in REINFORCEMENTS.items()}
    for army in armies.values():
        for n, f in army.items():
            totals[n] = [a + b for a, b in zip(totals[n], f, strict=True)]
    return {
        "scenario": data["scenario"], "regions": regions, "vp": dict(data["vp"]),
        "max_rounds": data["max_rounds"], "round": 0, "turn": FP, "rolled": False,
        "dice": {FP: [], SH: []}, "action": None, "order": None, "armies": armies, "boxes": {},
        "reinf": {n: list(f) for n, f in REINFORCEMENTS.items()},
        "dead": {n: [0, 0, 0] for n in NATIONS},
        # §6: a Fortification is not a Settlement (no control, no VP, no mustering).
        "control": {r: NATION_SIDE[REGIONS[r].nation] for r in regions
                    if REGIONS[r].settlement in SETTLEMENTS and REGIONS[r].nation},
        "politics": {n: {"step": s, "active": a} for n, (s, a) in POLITICS.items()},
        "hands": ({FP: [], SH: []} if n_seats == 2 else {str(s): [] for s in range(n_seats)}),
        "decks": {s: list(data["decks"][s]) for s in SIDES}, "seats": n_seats,
        "discards": {FP: [], SH: []}, "battle": None, "totals": totals, "exiles": {},
        "fp_acted": None,
        "over": False, "winner": None, "reason": None,
    }


def evolve(state: State, event: Event) -> State:
    kind, data = event.type, event.data
    if kind in TRANSFERS:
        transfer(state, data["src"], data["dst"], data["figures"])
        _track_exiles(state, event)
    elif kind == ELITE_REDUCED:
        nation = data["nation"]
        transfer(state, data["loc"], data["to"], {nation: [0, 1, 0]})
        transfer(state, data["replacement"], data["loc"], {nation: [1, 0, 0]})
    elif kind == DIE_USED:
        state["dice"][data["side"]].remove(data["die"])
        if "next" in state:  # decisions block: two seats a side alternate its dice
            side = data["side"]
            state["next"][side] = seats.teammate(state, state["next"][side])
    elif kind == TURN_PASSED:
        state["turn"] = data["side"]
    elif kind == ACTION_OPENED:
        state["action"] = {"side": data["side"], "from": list(data["from"]),
                           "to": list(data["to"]), "arrived": plain_copy(data["arrived"])}
    elif kind == ACTION_CLOSED:
        state["action"] = None
    elif kind == ACTED_WITH:
        _acted(state, data)
    elif kind == ORDER_DECLARED:
        state["order"] = plain_copy(data)
    elif kind == FIGURES_CHOSEN:
        state["order"] = None
    elif kind == CARD_DRAWN:
        state["decks"][data["side"]].remove(data["card"])
        state["hands"][_hand(data)].append(data["card"])
    elif kind == CARD_DISCARDED:
        state["hands"][_hand(data)].remove(data["card"])
        state["discards"][data["side"]].append(data["card"])
    elif kind == DICE_ROLLED:
        # wotr.md §2 PROPOSED: no Hunt, so an Eye result is simply lost.
        state["dice"] = {s: [f for f in data[s] if f != "eye"] for s in SIDES}
        state["rolled"] = True
    elif kind == ROUND_STARTED:
        state["round"] = data["round"]
        state["turn"] = FP
        state["rolled"] = False
        if seats.count(state) > 2:
            state["next"] = {side: seats.first_to_act(state, side) for side in SIDES}
    elif kind == SETTLEMENT_CAPTURED:
        state["control"][data["region"]] = data["side"]
    elif kind == POLITICAL_ADVANCED:
        state["politics"][data["nation"]]["step"] = data["step"]
        _track_exiles(state, event)
    elif kind == NATION_ACTIVATED:
        state["politics"][data["nation"]]["active"] = True
    elif kind == BATTLE_STARTED:
        state["battle"] = {**plain_copy(data), "att": {}, "round": 1,
                           "cards": {FP: None, SH: None}, "x": {FP: 0, SH: 0},
                           "revealed": None, "hits": {FP: 0, SH: 0}, "rolls": [],
                           "pre": [], "stage": "start", "next": None}
    elif kind == BATTLE_STEP:
        state["battle"].update(plain_copy(data))
    elif kind == COMBAT_CARD_CHOSEN:
        side = data["side"]
        if data["card"]:
            state["hands"][_hand(data)].remove(data["card"])
        state["battle"]["cards"][side] = data["card"]
        state["battle"]["x"][side] = data.get("x", 0)
    elif kind == COMBAT_CARDS_REVEALED:
        state["battle"]["revealed"] = {FP: data[FP], SH: data[SH]}
        state["battle"]["rolls"] = []  # the previous round's dice stay visible until now
    elif kind == COMBAT_ROLLED:
        state["battle"]["rolls"].append(plain_copy(data))
    elif kind == HITS_SCORED:
        hits = state["battle"]["hits"]
        for side in SIDES:
            hits[side] += data.get(side, 0)
    elif kind == BATTLE_ROUND_ENDED:
        battle = state["battle"]
        for side in SIDES:
            card = battle["cards"][side]
            if card:
                state["discards"][side].append(card)
        battle.update(round=data["round"], cards={FP: None, SH: None}, x={FP: 0, SH: 0},
                      revealed=None, hits={FP: 0, SH: 0}, pre=[], cancelled=False,
                      relentless=0)
    elif kind == BATTLE_ENDED:
        battle = state["battle"]
        for side in SIDES:
            card = battle["cards"][side]
            if card:
                state["discards"][side].append(card)
        state["battle"] = None
    elif kind == PASSED:
        pass  # the turn_passed that follows says who acts
    elif kind == GAME_ENDED:
        state.update(over=True, winner=data["winner"], reason=data["reason"])
    elif kind == GAME_STARTED:
        return initial(data)
    return state


def _acted(state: State, data: dict[str, Any]) -> None:
    """Keep ``fp_acted`` (seats.py): a new action's record, the previous one kept as ``before``;
    a second move of the same action adds to it."""
    last = state.get("fp_acted")
    if data.get("more") and last:
        state["fp_acted"] = {
            "nations": sorted({*last["nations"], *data["nations"]}),
            "armies": sorted({*last["armies"], *data["armies"]}), "before": last.get("before")}
        return
    before = None if last is None else {"nations": last["nations"], "armies": last["armies"]}
    state["fp_acted"] = {"nations": list(data["nations"]), "armies": list(data["armies"]),
                         "before": before}


def acted(tx: Tx, side: str, nations: list[str], armies: list[str] | None = None,
          more: bool = False) -> None:
    """Record what an action of the lone Free Peoples player of a 3-seat game acted with
    (wotr.md §16); nothing for any other seat."""
    if seats.alternates(tx.state, side):
        extra = {"more": True} if more else {}
        tx.emit(ACTED_WITH, side=side, nations=sorted(set(nations)),
                armies=sorted(set(armies or ())), **extra)


def _hand(data: dict[str, Any]) -> str:
    """The hand a card event names: its seat's with two seats a side, else its side's."""
    return str(data["seat"]) if "seat" in data else data["side"]


def copy_state(state: State) -> State:
    """A copy ``evolve`` may change: what it changes in place is copied, the rest shared. A
    figure transfer replaces an army's lists of figures rather than changing them (model._add),
    so they are shared too. About a third of a JSON round trip's cost; a decide and the fold
    after it each copy the state (tests/games/test_conformance.py holds this to ``evolve``)."""
    if not state:
        return plain_copy(state)
    out = dict(state)
    for key in ("armies", "boxes"):
        out[key] = {region: dict(army) for region, army in state[key].items()}
    for key in ("reinf", "dead", "control"):
        out[key] = dict(state[key])
    for key in ("dice", "hands", "decks", "discards", "exiles"):
        if key in state:
            out[key] = {k: list(v) for k, v in state[key].items()}
    out["politics"] = {nation: dict(track) for nation, track in state["politics"].items()}
    for key in ("battle", "next"):
        if state.get(key) is not None:
            out[key] = plain_copy(state[key])
    return out


class Tx:
    """Events decided for one command, each folded at once into a private copy of the state."""

    def __init__(self, state: State, rng: Rng, seat: Seat | None = None):
        self.state = copy_state(state)
        self.rng = rng
        self.seat = seat  # the seat whose command this is
        self.events: list[Event] = []

    def emit(self, kind: str, /, **data: Any) -> None:
        event = Event(kind, data)
        evolve(self.state, event)
        self.events.append(event)


# --- map queries ------------------------------------------------------------------------------


def neighbours(state: State, region: str) -> list[str]:
    """Adjacent regions inside the scenario (§14: cut-off neighbours are impassable)."""
    inside = _inside(state)
    return [r for r in REGIONS[region].adjacent if r in inside]


_INSIDE_CACHE: dict[str, frozenset[str]] = {}


def _inside(state: State) -> frozenset[str]:
    name = state["scenario"]
    if name not in _INSIDE_CACHE:
        _INSIDE_CACHE[name] = frozenset(SCENARIOS[name]["regions"])
    return _INSIDE_CACHE[name]


def at_war(state: State, nation: str) -> bool:
    return state["politics"][nation]["step"] == 0


def field_side(state: State, region: str) -> str | None:
    return army_side(state["armies"].get(region))


def box_side(state: State, region: str) -> str | None:
    return army_side(state["boxes"].get(region))


def enemy_controlled(state: State, region: str, side: str) -> bool:
    owner = state["control"].get(region)
    return owner is not None and owner != side


def free_for_retreat(state: State, region: str, side: str) -> bool:
    """wotr.md decisions: a free region has no enemy army and no enemy-controlled Settlement."""
    enemy = field_side(state, region)
    return (enemy in (None, side) and box_side(state, region) in (None, side)
            and not enemy_controlled(state, region, side))


def may_enter(state: State, nation: str, region: str) -> bool:
    """wotr.md §3: units of a Nation not At War stay in their own Nation or neutral regions."""
    target = REGIONS[region].nation
    return at_war(state, nation) or target is None or target == nation


def may_retreat_into(state: State, army: Army, region: str, side: str) -> bool:
    """wotr.md §5.5: a free region; units of a Nation not At War cross a border only into an
    allied Nation's land (the seed: "후퇴할 때에만 예외적으로 동맹국의 영토에 들어갈 수 있습니다",
    only when retreating may they enter an ally's territory), never an enemy Nation's."""
    if not free_for_retreat(state, region, side):
        return False
    target = REGIONS[region].nation
    return all(at_war(state, nation) or target is None or NATION_SIDE[target] == side
               for nation, f in army.items() if f[0] + f[1])


def must_leave(state: State, nation: str, src: str, dst: str) -> bool:
    """wotr.md §3: units that retreated into another Nation's land must leave it with their next
    move unless their own Nation is now At War (the seed: "다음에 그 피규어들을 이동시키려고 하면
    ('전쟁 중'이 아닌 한) 무조건 그 영토에서 나와야 합니다"): True when moving them from ``src`` to
    ``dst`` would keep them in that land."""
    land = REGIONS[src].nation
    return (nation in state.get("exiles", {}).get(src, ()) and not at_war(state, nation)
            and REGIONS[dst].nation == land)


def may_move(state: State, nation: str, src: str, dst: str) -> bool:
    """Whether ``nation``'s units may go from ``src`` to ``dst`` (§3: borders, then exiles)."""
    return may_enter(state, nation, dst) and not must_leave(state, nation, src, dst)


def _track_exiles(state: State, event: Event) -> None:
    """Keep ``state["exiles"]`` ({region: [nation]}: units of a Nation not At War that retreated
    into another Nation's land, §3) in step with a figure transfer or a political advance."""
    exiles = state.setdefault("exiles", {})
    data = event.data
    if event.type == ARMY_RETREATED:
        land = REGIONS[data["dst"]].nation
        for nation, f in data["figures"].items():
            if f[0] + f[1] and not at_war(state, nation) and land not in (None, nation):
                if nation not in exiles.setdefault(data["dst"], []):
                    exiles[data["dst"]].append(nation)
    for region in list(exiles):
        army = state["armies"].get(region) or {}
        kept = [n for n in exiles[region]
                if sum(army.get(n, [0, 0, 0])[:2]) and not at_war(state, n)]
        if kept:
            exiles[region] = kept
        else:
            del exiles[region]


def vp(state: State, side: str) -> int:
    """wotr.md §8: VP of the enemy Settlements ``side`` controls (City 1, Stronghold 2)."""
    return sum(REGIONS[r].vp for r, owner in state["control"].items()
               if owner == side and NATION_SIDE[REGIONS[r].nation] != side)


# --- follow-ups -------------------------------------------------------------------------------


def advance_politics(tx: Tx, nation: str) -> None:
    """One step towards At War; a passive Nation stops one step short (wotr.md §9)."""
    track = tx.state["politics"][nation]
    step = track["step"]
    if step == 0 or (step == 1 and not track["active"]):
        return
    tx.emit(POLITICAL_ADVANCED, nation=nation, step=step - 1)


def activate(tx: Tx, nation: str) -> None:
    if NATION_SIDE[nation] == FP and not tx.state["politics"][nation]["active"]:
        tx.emit(NATION_ACTIVATED, nation=nation)


def entered(tx: Tx, side: str, region: str) -> None:
    """An army of ``side`` entered ``region``: activation (§9) and capture (§8)."""
    state = tx.state
    nation = REGIONS[region].nation
    if nation and NATION_SIDE[nation] != side:
        activate(tx, nation)  # §9: an enemy army entering a passive FP Nation's region
    if not enemy_controlled(state, region, side):
        return
    if REGIONS[region].settlement == STRONGHOLD and box_side(state, region) not in (None, side):
        return  # a besieged Stronghold falls only when its garrison is gone (§7)
    capture(tx, side, region)


def capture(tx: Tx, side: str, region: str) -> None:
    """wotr.md §8: control passes; an enemy capture advances the owning Nation one step."""
    tx.emit(SETTLEMENT_CAPTURED, region=region, side=side)
    nation = REGIONS[region].nation
    if NATION_SIDE[nation] != side:
        activate(tx, nation)
        advance_politics(tx, nation)


def remove_to_pool(nation: str) -> str:
    """wotr.md §5.4: Shadow figures return to reinforcements, Free Peoples ones are eliminated."""
    return "reinf" if NATION_SIDE[nation] == SH else "dead"


def trim(army: Army, limit: int) -> Army:
    """The units over ``limit`` to remove: Regulars first, then Elites (PROPOSED: the owner's
    choice made for him, keeping the strongest army)."""
    excess = units(army) - limit
    out: Army = {}
    for kind in (0, 1):
        for nation in sorted(army):
            if excess <= 0:
                break
            take = min(excess, army[nation][kind])
            if take:
                out.setdefault(nation, [0, 0, 0])[kind] += take
                excess -= take
    return out


def settle(tx: Tx) -> None:
    """What the rules do at once or at the end of every action: a siege whose besiegers are gone
    ends (§7), Free Peoples Leaders alone are removed (§1), Nazgûl with no Shadow unit go back to
    reinforcements (PROPOSED: flying is out of scope, so they could never move again), and
    stacking above 10 (5 in a besieged Stronghold) is trimmed (§1, §7)."""
    state = tx.state
    for region in sorted(state["armies"]):
        army = state["armies"][region]
        if units(army) == 0:
            for nation, f in sorted(army.items()):
                tx.emit(LEADERS_REMOVED, src=region, dst=remove_to_pool(nation),
                        figures={nation: list(f)})
    for region in sorted(state["boxes"]):
        box = state["boxes"][region]
        if units(box) == 0:
            for nation, f in sorted(box.items()):
                tx.emit(LEADERS_REMOVED, src="box:" + region, dst=remove_to_pool(nation),
                        figures={nation: list(f)})
            continue
        if field_side(state, region) not in (None, box_side(state, region)):
            continue  # the besiegers are still there
        tx.emit(SIEGE_LIFTED, src="box:" + region, dst=region, figures=copy_army(box))
    for loc, limit in ([(r, STACK_LIMIT) for r in sorted(state["armies"])]
                       + [("box:" + r, SIEGE_LIMIT) for r in sorted(state["boxes"])]):
        army = location(state, loc)
        if army and units(army) > limit:
            tx.emit(EXCESS_REMOVED, src=loc, dst="reinf", figures=trim(army, limit))


def invariant_breaks(state: State) -> list[str]:
    """What is wrong with ``state`` after a command (none expected; the property test of issue
    24): a region holds figures of both sides, except a besieged Stronghold with its garrison
    inside and the besiegers outside (§7, and the attacker never enters the battle's region,
    §4); and, between actions, a region over 10 units or a besieged Stronghold over 5 (§1)."""
    out = []
    for region in sorted({*state["armies"], *state["boxes"]}):
        field, box = state["armies"].get(region), state["boxes"].get(region)
        for where, army in (("field", field), ("box", box)):
            if len({NATION_SIDE[n] for n in army or {}}) > 1:
                out.append(f"{region}: both sides in its {where}: {army}")
        if field and box and (army_side(field) == army_side(box)
                              or REGIONS[region].settlement != STRONGHOLD):
            out.append(f"{region}: {field} outside and {box} inside")
    if state["action"] is None and state["battle"] is None and not state.get("order"):
        for loc, limit in ([(r, STACK_LIMIT) for r in state["armies"]]
                           + [("box:" + r, SIEGE_LIMIT) for r in state["boxes"]]):
            if units(location(state, loc)) > limit:
                out.append(f"{loc}: {units(location(state, loc))} units, over {limit}")
    return out


def end_action(tx: Tx, side: str) -> None:
    """The action is over: settle, then the next player acts (wotr.md §2: alternate, FP first;
    a player out of dice is skipped) or the round ends."""
    settle(tx)
    state = tx.state
    if state["over"]:
        return
    dice = state["dice"]
    if dice[other(side)]:
        tx.emit(TURN_PASSED, side=other(side))
    elif dice[side]:
        tx.emit(TURN_PASSED, side=side)
    else:
        end_round(tx)


def end_round(tx: Tx) -> None:
    """wotr.md §13.1: the Victory Check at the end of the round, Shadow first; then the Ring's
    clock (data.WotrOptions.max_rounds); else the next round starts."""
    state = tx.state
    scores = {side: vp(state, side) for side in SIDES}
    if scores[SH] >= state["vp"][SH]:
        tx.emit(GAME_ENDED, winner=SH, reason="military_victory", vp=scores)
    elif scores[FP] >= state["vp"][FP]:
        tx.emit(GAME_ENDED, winner=FP, reason="military_victory", vp=scores)
    elif state["round"] >= state["max_rounds"]:
        tx.emit(GAME_ENDED, winner=FP, reason="ring_destroyed", vp=scores)
    else:
        start_round(tx)


def start_round(tx: Tx) -> None:
    """A new round: each side draws one Strategy card (§12), then both roll their action dice."""
    state = tx.state
    tx.emit(ROUND_STARTED, round=state["round"] + 1)
    for side in SIDES:
        if state["decks"][side]:
            # with two seats a side, the side's card goes to its Leading seat (who alternate)
            tx.emit(CARD_DRAWN, **card_data(state, seats.leading(state, side)),
                    card=state["decks"][side][0])
    if not over_hand_limit(state):
        roll_dice(tx)


def roll_dice(tx: Tx) -> None:
    rolled = {side: [FACES[side][tx.rng.below(6)] for _ in range(DICE[side])] for side in SIDES}
    tx.emit(DICE_ROLLED, **rolled)
    if not tx.state["dice"][FP]:
        tx.emit(TURN_PASSED, side=SH)


def over_hand_limit(state: State) -> list[Seat]:
    """The seats holding more cards than the hand limit (§12: 6; 4 with two seats a side)."""
    limit = seats.hand_limit(state)
    return [seats.seat_of_hand(state, key) for key, hand in state["hands"].items()
            if len(hand) > limit]


def battle_seat(state: State, side: str) -> Seat:
    """The seat deciding for ``side`` in the battle in progress: the attacking seat, and the
    seat in charge of the defending army (decisions block: two seats a side)."""
    return state["battle"].get("seats", {}).get(side, SIDES.index(side))


def card_data(state: State, seat: Seat) -> dict[str, Any]:
    """The fields naming whose hand a card event touches: the side, and the seat when the side
    has two (a 2-seat log stays as it was)."""
    side = seats.side_of(state, seat)
    return {"side": side} if seats.count(state) == 2 else {"side": side, "seat": seat}


def card_ok(card: str, side: str) -> bool:
    return card in CARDS and CARDS[card].side == side
