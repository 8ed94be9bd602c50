"""The battle sub-decider (wotr.md §4-§7, §12; the seed text's field battle): combat rounds
with secret combat cards, rolls, Leader re-rolls, casualties chosen by their owner, cease or
retreat, advance; cities and fortifications; sieges, sorties, relief and capture.

``state["battle"]`` while a battle runs::

    attacker, defender   sides; kind: "field" | "siege" | "sortie"
    region               where the defending army stands (its field, or its Stronghold box)
    origin               the attacking army's place: a region or "box:<region>" (a sortie)
    def_loc              the defending army's location (region or "box:<region>")
    att                  the attacking force: the figures of ``origin`` that fight (they never
                         leave it, §4; the rest are the rearguard), model.py's "att" location
    round                combat round number; city: the first round's hits-on-6 applies (§6)
    stage                the step in progress (prompt stages below, automatic ones in ``run``)
    cards, x             each side's chosen card ("" none, None not chosen yet) and its X
    revealed             {side: card} once both chose; cancelled: Swarm of Bats cancelled FP
    pre                  the pre-roll card effects still to resolve, in initiative order
    hits                 hits each side's army must still take; next: the step after them
    rolls                this round's combat rolls (public once rolled)

Prompt stages: siege_choice (defender), besiege (attacker), cards (the attacker, then the
defender; secret until both chose), scouts (defender), casualties (attacker's hits first,
removals are simultaneous since every roll is made before them), extend (siege attacker),
cease (attacker), retreat (defender), advance (attacker: which attacking figures enter,
figures.py).
"""

from __future__ import annotations

from typing import Any

from games.core import Command, Prompt, Rejected, State, ensure
from games.wotr import seats
from games.wotr.casualties import (
    auto_casualty,
    casualty_side,
    extend_options,
    force,
    hit_options,
    replacement,
    take_hit,
)
from games.wotr.data import (
    CARDS,
    CITY,
    FORTIFICATION,
    FP,
    MAX_DICE,
    NATION_SIDE,
    REGIONS,
    SH,
    SIDES,
    STRONGHOLD,
)
from games.wotr.engine import (
    Tx,
    activate,
    advance_politics,
    battle_seat,
    box_side,
    capture,
    card_data,
    end_action,
    entered,
    may_enter,
    may_retreat_into,
    neighbours,
    remove_to_pool,
    trim,
)
from games.wotr.figures import Counts, as_counts, check_split, less, options, pick
from games.wotr.model import (
    ADVANCE,
    ARMY_ADVANCED,
    ARMY_MOVED,
    ARMY_RETREATED,
    BATTLE_ENDED,
    BATTLE_ROUND_ENDED,
    BATTLE_STARTED,
    BATTLE_STEP,
    BESIEGE,
    COMBAT_CARD,
    COMBAT_CARD_CHOSEN,
    COMBAT_CARDS_REVEALED,
    COMBAT_ROLLED,
    CONTINUE_BATTLE,
    ELITE_REDUCED,
    EXCESS_REMOVED,
    EXTEND_SIEGE,
    HITS_SCORED,
    LEADERS_REMOVED,
    RETREAT,
    SIEGE_LIFTED,
    TAKE_HIT,
    WITHDRAW,
    WITHDREW_INTO_SIEGE,
    Army,
    capacity,
    copy_army,
    elites,
    leaders,
    location,
    other,
    units,
)

PROMPTS = {
    "siege_choice": Prompt((WITHDRAW,), "reaction", "field battle or retreat into the siege?"),
    "besiege": Prompt((BESIEGE,), "reaction", "which figures advance and lay siege?"),
    "cards": Prompt((COMBAT_CARD,), "reaction", "choose a combat card (secret)"),
    "scouts": Prompt((RETREAT,), "reaction", "Scouts: retreat before the combat roll?"),
    "casualties": Prompt((TAKE_HIT,), "reaction", "remove casualties"),
    "extend": Prompt((EXTEND_SIEGE,), "reaction", "reduce an Elite to fight another round?"),
    "cease": Prompt((CONTINUE_BATTLE,), "reaction", "continue the attack or cease?"),
    "retreat": Prompt((RETREAT,), "reaction", "retreat or stand?"),
    "advance": Prompt((ADVANCE,), "reaction", "which figures advance into the region?"),
}
_PRE = {"swarm_of_bats", "scouts", "charge", "sudden_strike", "relentless_assault"}
_POST = {"onslaught", "great_host", "we_come_to_kill"}
X_MAX = {"relentless_assault": 2, "onslaught": 4}  # wotr.md §12: "up to 2" / "up to 4" hits


# --- starting a battle ------------------------------------------------------------------------


def start(tx: Tx, side: str, origin: str, region: str, kind: str, force: Army) -> None:
    """wotr.md §4: ``force`` attacks from ``origin`` and stays there ("공격군이 전투 지역으로
    들어가지 않습니다": the attacker does not enter the battle's region), the rest of the army
    is its rearguard; every Nation with units in the defending army advances one step on the
    Political track (once per battle) and an FP Nation is activated."""
    state = tx.state
    def_loc = "box:" + region if kind == "siege" else region
    defenders = location(state, def_loc) or {}
    city = (kind == "field" and REGIONS[region].settlement in (CITY, FORTIFICATION))
    tx.emit(BATTLE_STARTED, attacker=side, defender=other(side), kind=kind, region=region,
            origin=origin, def_loc=def_loc, city=city, **_seats(tx, side, defenders))
    tx.emit(ARMY_MOVED, src=origin, dst="att", figures=force)
    for nation in sorted(n for n, f in defenders.items() if f[0] + f[1]):
        # the seed: "방어군에 부대가 포함된 국가들" - Nations with *units* in the defending army;
        # a Leader alone does not move his Nation (issue 24 point 4)
        activate(tx, nation)
        advance_politics(tx, nation)
    begin_round(tx)
    run(tx)



def _seats(tx: Tx, side: str, defenders: Army) -> dict[str, Any]:
    """With two seats a side: the attacking seat and the seat in charge of the defending army
    decide for their sides (play its cards, take its casualties; wotr.md §16)."""
    state = tx.state
    if seats.count(state) == 2:
        return {}
    return {"seats": {side: tx.seat, other(side): seats.in_charge(state, defenders, other(side))}}


def begin_round(tx: Tx) -> None:
    """§7: before every round of a field battle in his own Stronghold's region the defender
    chooses between the field and a retreat into the siege."""
    b = tx.state["battle"]
    region = b["region"]
    own_stronghold = (REGIONS[region].settlement == STRONGHOLD
                      and tx.state["control"].get(region) == b["defender"])
    if b["kind"] == "field" and own_stronghold and box_side(tx.state, region) is None:
        _stage(tx, "siege_choice")
    else:
        _stage(tx, "cards")


def _stage(tx: Tx, stage: str, **more: Any) -> None:
    tx.emit(BATTLE_STEP, stage=stage, **more)


def active(b: dict[str, Any], combat: str) -> bool:
    """Whether a revealed card with the combat effect ``combat`` is in force this round."""
    revealed = b.get("revealed") or {}
    for side in SIDES:
        card = revealed.get(side)
        if card and CARDS[card].combat == combat:
            return not (side == FP and b.get("cancelled"))
    return False


# --- the automatic steps ----------------------------------------------------------------------


def run(tx: Tx) -> None:
    """Advance the battle through its automatic steps until someone must decide or it ends."""
    while tx.state["battle"] is not None and not tx.state["over"]:
        b = tx.state["battle"]
        stage = b["stage"]
        if stage == "casualties":
            if not auto_casualty(tx):
                return
        elif stage == "pre":
            _pre(tx)
        elif stage == "roll":
            _roll(tx)
        elif stage == "post":
            _post(tx)
        elif stage == "onslaught_roll":
            hits = _extra(tx, SH, b["x"][SH], 4, "onslaught")
            _hits(tx, {FP: hits}, "end")
        elif stage == "end":
            _end_round(tx)
        else:
            return


def _hits(tx: Tx, hits: dict[str, int], then: str) -> None:
    hits = {s: h for s, h in hits.items() if h > 0}
    if hits:
        tx.emit(HITS_SCORED, **hits)
    _stage(tx, "casualties", next=then)


def _wiped(state: State) -> bool:
    return any(units(force(state, side)) == 0 for side in SIDES)


def _pre(tx: Tx) -> None:
    b = tx.state["battle"]
    if not b["pre"]:
        _stage(tx, "end" if _wiped(tx.state) else "roll")
        return
    effect, rest = b["pre"][0], b["pre"][1:]
    _stage(tx, "pre", pre=rest)
    if effect == "swarm_of_bats" and b["revealed"][FP]:
        _stage(tx, "pre", cancelled=True)  # §12: cancel the FP combat card
    elif effect == "scouts" and active(b, "scouts"):
        _stage(tx, "scouts")
    elif effect == "charge" and active(b, "charge"):
        _hits(tx, {SH: _extra(tx, FP, min(MAX_DICE, elites(force(tx.state, FP))), 5,
                               "charge")}, "pre")
    elif effect == "sudden_strike" and active(b, "sudden_strike"):
        _hits(tx, {SH: _extra(tx, FP, min(MAX_DICE, leaders(force(tx.state, FP))), 5,
                               "sudden_strike")}, "pre")
    elif effect == "relentless_assault" and active(b, "relentless_assault"):
        x = min(b["x"][SH], capacity(force(tx.state, SH)) - 1)
        if x > 0:
            _stage(tx, "pre", relentless=x)
            _hits(tx, {SH: x}, "pre")


def _extra(tx: Tx, side: str, dice: int, target: int, why: str) -> int:
    """An extra attack of ``dice`` dice hitting on ``target`` (a card's, wotr.md §12)."""
    rolled = [tx.rng.roll() for _ in range(dice)]
    hits = sum(1 for d in rolled if d != 1 and d >= target)
    tx.emit(COMBAT_ROLLED, side=side, why=why, dice=rolled, target=target, mod=0, rerolls=[],
            hits=hits)
    return hits


def _hit(die: int, mod: int, target: int) -> bool:
    """§5.2: a natural 1 always misses, a natural 6 always hits, else die + modifiers >= target."""
    return die != 1 and (die == 6 or die + mod >= target)


def _roll(tx: Tx) -> None:
    """§5.2-§5.3 and the cards timed in the roll (wotr.md §12)."""
    state = tx.state
    b = state["battle"]
    scored: dict[str, int] = {}
    self_hits = 0
    fp_card = None if b.get("cancelled") else (b["revealed"] or {}).get(FP)
    for side in (b["attacker"], b["defender"]):
        army = force(state, side)
        dice = min(MAX_DICE, units(army))
        if side == SH and active(b, "daylight"):
            dice = min(dice, 3)
        target = 5
        if side == b["attacker"] and (b["kind"] == "siege" or (b["city"] and b["round"] == 1)):
            target = 6  # §6 first round against a City/Fortification; §7 every siege round
        mod = rmod = 0
        for combat, who, m, r in (("deadly_strife", None, 2, 2), ("desperate_battle", None, 1, 1),
                                  ("valour", FP, 1, 0), ("advantageous_position", SH, -1, 0),
                                  ("devilry_of_orthanc", SH, 1, 0), ("mumakil", SH, 1, 0)):
            if active(b, combat) and who in (None, side):
                mod, rmod = mod + m, rmod + r
        if side == SH:
            mod += b.get("relentless", 0)
            if active(b, "swarm_of_bats") and not fp_card:
                rmod += 1  # §12: Swarm of Bats with no FP card: +1 to the re-roll dice
        rolled = [tx.rng.roll() for _ in range(dice)]
        hits = sum(1 for d in rolled if _hit(d, mod, target))
        confused = side == SH and active(b, "confusion")
        ones = sum(1 for d in rolled if d == 1) if confused else 0
        misses = dice - hits - ones
        rerolled = [tx.rng.roll() for _ in range(min(leaders(army), misses))]
        rehits = sum(1 for d in rerolled if _hit(d, rmod, target))
        total = hits + rehits
        if side == FP and active(b, "no_quarter") and total >= 1:
            total += 1
        self_hits += ones
        tx.emit(COMBAT_ROLLED, side=side, why="combat", dice=rolled, target=target, mod=mod,
                rerolls=rerolled, hits=total)
        scored[side] = total
    if active(b, "mumakil") and scored[SH] > scored[FP]:
        scored[SH] += 1
    if active(b, "shield_wall") and scored[SH] >= 2:
        scored[SH] -= 1
    _hits(tx, {FP: scored[SH], SH: scored[FP] + self_hits}, "post")


def _post(tx: Tx) -> None:
    """Initiative-7 effects, after casualties (wotr.md §12)."""
    state = tx.state
    b = state["battle"]
    if _wiped(state):
        _stage(tx, "end")
    elif active(b, "onslaught") and min(b["x"][SH], capacity(force(state, SH)) - 1) > 0:
        x = min(b["x"][SH], capacity(force(state, SH)) - 1)
        tx.emit(BATTLE_STEP, x={FP: b["x"][FP], SH: x})
        _hits(tx, {SH: x}, "onslaught_roll")
    elif active(b, "great_host"):
        big = units(force(state, SH)) >= 2 * units(force(state, FP))
        _hits(tx, {FP: 1 if big else 0}, "end")
    elif active(b, "we_come_to_kill"):
        dice = min(MAX_DICE, elites(force(state, SH)))
        _hits(tx, {FP: _extra(tx, SH, dice, 5, "we_come_to_kill")}, "end")
    else:
        _stage(tx, "end")


def _end_round(tx: Tx) -> None:
    state = tx.state
    b = state["battle"]
    att_side, def_side = b["attacker"], b["defender"]
    att_left, def_left = units(b["att"]), units(location(state, b["def_loc"]))
    tx.emit(BATTLE_ROUND_ENDED, round=b["round"] + 1)
    region = b["region"]
    if b["kind"] == "siege":
        if def_left == 0 and units(state["armies"].get(region)) > 0:
            # wotr.md §7 Capture [DZ-capture]: the garrison is gone and the besieger still has a
            # unit in the region, counting the rearguard that stayed out of the battle.
            _clear(tx, b["def_loc"])
            finish(tx)
            capture(tx, att_side, region)
            end_action(tx, att_side)
        elif att_left == 0 or def_left == 0 or not extend_options(state):
            finish(tx)
            end_action(tx, att_side)
        else:
            _stage(tx, "extend")
        return
    if att_left == 0 or def_left == 0:
        if def_left == 0:
            _clear(tx, b["def_loc"])
        if att_left > 0 and b["kind"] == "field":
            _stage(tx, "advance")
            return
        sortie_lost = b["kind"] == "sortie" and att_left == 0 and def_left > 0
        finish(tx)
        if sortie_lost and units(state["boxes"].get(region)) == 0:
            _clear(tx, "box:" + region)
            capture(tx, def_side, region)  # JC-spec §7 p.32: a wiped sortie loses the Stronghold
        end_action(tx, att_side)
        return
    _stage(tx, "cease")


def _clear(tx: Tx, loc: str) -> None:
    """Leaders whose army's units are all gone are eliminated with it (§5.4)."""
    army = location(tx.state, loc)
    for nation, f in sorted((army or {}).items()):
        if f[2]:
            tx.emit(LEADERS_REMOVED, src=loc, dst=remove_to_pool(nation),
                    figures={nation: [0, 0, f[2]]})


def finish(tx: Tx) -> None:
    """The battle ends: the attacking force is simply its region's army again (it never left,
    §4), or its leaders die with it; the round's cards are discarded."""
    b = tx.state["battle"]
    if units(b["att"]) == 0:
        _clear(tx, "att")
    tx.emit(BATTLE_ENDED, attacker=b["attacker"], region=b["region"])


# --- prompts, legal and default commands ------------------------------------------------------


def pending(state: State) -> dict[str, Prompt]:
    b = state["battle"]
    stage = b["stage"]
    if stage == "cards":
        # The seed: "공격자가 먼저, 방어자가 나중에 선언" - the attacker declares first, then the
        # defender, who knows whether a card was laid face down (issue 24 point 5).
        for s in (b["attacker"], b["defender"]):
            if b["cards"][s] is None:
                return {s: PROMPTS["cards"]}
        return {}
    if stage == "casualties":
        side = casualty_side(b)
        return {side: PROMPTS["casualties"]} if side else {}
    if stage in ("siege_choice", "scouts", "retreat"):
        return {b["defender"]: PROMPTS[stage]}
    if stage in PROMPTS:
        return {b["attacker"]: PROMPTS[stage]}
    return {}


def card_playable(state: State, side: str, card: str) -> bool:
    """A card's bold requirement (wotr.md §12)."""
    b = state["battle"]
    need = CARDS[card].requires
    mine = force(state, side)
    if need is None:
        return True
    if need == "own_elite":
        return elites(mine) > 0
    if need == "own_leader":
        return leaders(mine) > 0
    if need == "fp_defending_field":
        return b["defender"] == FP and b["kind"] != "siege"
    if need == "fp_defending_at_home":
        nation = REGIONS[b["region"]].nation
        return b["defender"] == FP and nation is not None and NATION_SIDE[nation] == FP
    if need == "isengard_vs_stronghold":
        return ("isengard" in mine and b["attacker"] == SH
                and REGIONS[b["region"]].settlement == STRONGHOLD)
    if need == "southron_elite":
        return mine.get("southrons", [0, 0, 0])[1] > 0
    return False


def retreat_targets(state: State, side: str) -> list[str]:
    b = state["battle"]
    if b["def_loc"].startswith("box:"):
        return []  # §7: a besieged army never retreats
    army = state["armies"].get(b["region"]) or {}
    return [r for r in neighbours(state, b["region"])
            if may_retreat_into(state, army, r, side)]


def legal(state: State, side: str) -> list[Command]:
    b = state["battle"]
    stage = b["stage"]
    if side not in pending(state):
        return []
    if stage == "cards":
        out = [{"type": COMBAT_CARD, "card": "", "x": 0}]
        for card in sorted(set(seats.hand_of(state, battle_seat(state, side)))):
            if card_playable(state, side, card):
                xs = range(X_MAX.get(CARDS[card].combat, 0) + 1)
                out.extend({"type": COMBAT_CARD, "card": card, "x": x} for x in xs)
        return out
    if stage == "casualties":
        return hit_options(state, side)
    if stage in ("besiege", "advance"):
        kind = BESIEGE if stage == "besiege" else ADVANCE
        return [{"type": kind, "figures": c} for c in advance_choices(state)]
    if stage in ("siege_choice", "cease"):
        kind = WITHDRAW if stage == "siege_choice" else CONTINUE_BATTLE
        return [{"type": kind, "yes": False}, {"type": kind, "yes": True}]
    if stage == "extend":
        return [{"type": EXTEND_SIEGE, "nation": n} for n in ["", *extend_options(state)]]
    out = [{"type": RETREAT, "to": ""}]
    out.extend({"type": RETREAT, "to": r} for r in retreat_targets(state, side))
    if stage == "scouts" and _may_withdraw(state):
        out.append({"type": RETREAT, "to": "siege"})
    return out


def _may_withdraw(state: State) -> bool:
    b = state["battle"]
    region = b["region"]
    return (b["kind"] == "field" and REGIONS[region].settlement == STRONGHOLD
            and state["control"].get(region) == b["defender"] and box_side(state, region) is None)


def default(state: State, side: str) -> Command:
    """What a clock plays: no card, the cheapest casualty (a Regular of the largest Nation),
    stand, cease, no extra siege round, advance and besiege with every attacker that may
    (keeping what was won)."""
    b = state["battle"]
    stage = b["stage"]
    if stage == "cards":
        return {"type": COMBAT_CARD, "card": "", "x": 0}
    if stage == "casualties":
        army = force(state, side)
        regulars = [n for n in sorted(army) if army[n][0]]
        if regulars:
            nation = max(regulars, key=lambda n: army[n][0])
            return {"type": TAKE_HIT, "nation": nation, "kind": "regular"}
        return hit_options(state, side)[0]
    if stage in ("besiege", "advance"):
        return legal(state, side)[0]
    if stage == "siege_choice":
        return {"type": WITHDRAW, "yes": False}
    if stage == "cease":
        return {"type": CONTINUE_BATTLE, "yes": False}
    if stage == "extend":
        return {"type": EXTEND_SIEGE, "nation": ""}
    return {"type": RETREAT, "to": ""}


# --- deciding ---------------------------------------------------------------------------------


def decide(tx: Tx, command: Command, side: str) -> None:
    state = tx.state
    b = state["battle"]
    kind = command["type"]
    stage = b["stage"]
    if kind == COMBAT_CARD:
        _choose_card(tx, side, command["card"], command["x"])
    elif kind == TAKE_HIT:
        option = {"type": TAKE_HIT, "nation": command["nation"], "kind": command["kind"]}
        ensure(option in hit_options(state, side), "no_such_unit",
               "Your army in the battle has no such unit.")
        take_hit(tx, side, command["nation"], command["kind"])
    elif kind == WITHDRAW:
        if command["yes"]:
            _withdraw(tx)
        else:
            _stage(tx, "cards")
    elif kind == BESIEGE:
        _besiege(tx, as_counts(command))
        return
    elif kind == CONTINUE_BATTLE:
        if not command["yes"]:
            finish(tx)  # §5.5: the attacker ceases; everyone stays
            end_action(tx, b["attacker"])
            return
        _stage(tx, "retreat")
    elif kind == RETREAT:
        _retreat(tx, side, command["to"], stage)
    elif kind == ADVANCE:
        _advance(tx, as_counts(command))
        return
    elif kind == EXTEND_SIEGE:
        nation = command["nation"]
        if not nation:
            finish(tx)
            end_action(tx, b["attacker"])
            return
        ensure(nation in extend_options(state), "no_elite_to_reduce",
               "No Elite of that Nation can be reduced in the siege force.")
        tx.emit(ELITE_REDUCED, loc="att", nation=nation, to=remove_to_pool(nation),
                replacement=replacement(state, nation))
        _stage(tx, "cards")
    run(tx)


def _choose_card(tx: Tx, side: str, card: str, x: int) -> None:
    state = tx.state
    b = state["battle"]
    if card:
        ensure(card in seats.hand_of(state, battle_seat(state, side)), "not_in_hand",
               "That card is not in your hand.")
        ensure(card_playable(state, side, card), "requirement_not_met",
               "Your army does not meet the card's requirement (wotr.md §12).", card=card)
        ensure(x <= X_MAX.get(CARDS[card].combat, 0), "bad_x",
               "That card takes no such number.", x=x)
    else:
        ensure(x == 0, "bad_x", "No card, no number.", x=x)
    tx.emit(COMBAT_CARD_CHOSEN, **card_data(state, battle_seat(state, side)), card=card, x=x)
    if any(b["cards"][s] is None for s in SIDES):
        return
    # §5.1: chosen secretly, revealed together.
    tx.emit(COMBAT_CARDS_REVEALED, **{s: b["cards"][s] or None for s in SIDES})
    order = []
    for s in SIDES:
        card_id = b["cards"][s]
        if card_id and CARDS[card_id].combat in _PRE:
            # lower initiative first; on a tie the defender's card first (§5.1)
            order.append((CARDS[card_id].initiative, s != b["defender"], CARDS[card_id].combat))
    _stage(tx, "pre", pre=[c for _, _, c in sorted(order)])


def _withdraw(tx: Tx) -> None:
    """§7: the defenders go into the Stronghold (at most 5 units; the excess is removed)."""
    b = tx.state["battle"]
    region = b["region"]
    army = copy_army(tx.state["armies"].get(region))
    tx.emit(WITHDREW_INTO_SIEGE, src=region, dst="box:" + region, figures=army)
    box = tx.state["boxes"][region]
    if units(box) > 5:
        tx.emit(EXCESS_REMOVED, src="box:" + region, dst="reinf", figures=trim(box, 5))
    _stage(tx, "besiege", def_loc="box:" + region)


def _besiege(tx: Tx, want: Counts) -> None:
    """§7: the attacker may advance (some or all of its attacking figures): the Stronghold is
    then under siege."""
    b = tx.state["battle"]
    region, attacker = b["region"], b["attacker"]
    going = advancing(tx.state, want)
    if going:
        tx.emit(ARMY_ADVANCED, src="att", dst=region, figures=going)
        entered(tx, attacker, region)
    else:
        # JC-spec §7 reading: no siege, the garrison returns to the field.
        box = copy_army(tx.state["boxes"].get(region))
        tx.emit(SIEGE_LIFTED, src="box:" + region, dst=region, figures=box)
    finish(tx)
    end_action(tx, attacker)


def _retreat(tx: Tx, side: str, to: str, stage: str) -> None:
    state = tx.state
    b = state["battle"]
    if to == "":
        if stage == "retreat":
            begin_round(tx)
        else:
            _stage(tx, "pre")  # Scouts declined: the round goes on
        return
    if to == "siege":
        ensure(stage == "scouts" and _may_withdraw(state), "cannot_withdraw",
               "You cannot withdraw into a siege now.")
        _withdraw(tx)
        return
    ensure(to in retreat_targets(state, side), "not_free",
           "You can only retreat into an adjacent free region, and a Nation not At War only "
           "into its own, neutral or an allied Nation's land (wotr.md §5.5).", to=to)
    army = copy_army(state["armies"].get(b["region"]))
    tx.emit(ARMY_RETREATED, src=b["region"], dst=to, figures=army)
    entered(tx, side, to)
    if b["kind"] == "sortie":
        finish(tx)  # §7: a winning sortie cannot advance out of the region
        end_action(tx, b["attacker"])
        return
    _stage(tx, "advance")


def _advance(tx: Tx, want: Counts) -> None:
    """§5 end of battle: "some or all of the attackers may enter" ("공격군 중 일부나 전부가 그
    지역으로 들어갈 수 있습니다"); entering a Settlement captures it (§8)."""
    b = tx.state["battle"]
    region, attacker = b["region"], b["attacker"]
    going = advancing(tx.state, want)
    if going:
        tx.emit(ARMY_ADVANCED, src="att", dst=region, figures=going)
        entered(tx, attacker, region)
    finish(tx)
    end_action(tx, attacker)




def advancing(state: State, want: Counts) -> Army:
    """The attacking figures that advance for ``want`` (none when all counts are zero): at
    least one unit, and no Leader left in the attacker's region without one (figures.py)."""
    b = state["battle"]
    if not any(want.values()):
        return {}
    going = pick(b["att"], want, lambda n: may_enter(state, n, b["region"]))
    check_split(less(location(state, b["origin"]), going), going, needs_unit=True)
    return going


def advance_choices(state: State) -> list[Counts]:
    """Every count of attacking figures that may advance, the most first, none last."""
    def valid(want: Counts) -> bool:
        try:
            advancing(state, want)
        except Rejected:
            return False
        return True

    return options(state["battle"]["att"], valid)
