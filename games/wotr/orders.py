"""Moving and attacking with armies (wotr.md §3, §4), composed from rules.py: the checks, the
legal commands and carrying them out. A ``move``, ``second_move`` or ``attack`` names its die,
the army's region and where it goes; its ``figures`` (figures.py) may come with it, or, when the
army offers more than one choice, the same seat is asked next (``order_declared``, then
``choose_figures``): the legal commands stay one per destination, then one per choice of figures.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from games.core import Command, Prompt, Rejected, State, ensure
from games.wotr import battle, seats
from games.wotr.data import REGIONS
from games.wotr.engine import (
    Tx,
    acted,
    at_war,
    end_action,
    entered,
    field_side,
    may_move,
    neighbours,
)
from games.wotr.figures import (
    Counts,
    as_counts,
    check_split,
    counts,
    less,
    options,
    pick,
)
from games.wotr.model import (
    ACTION_CLOSED,
    ACTION_OPENED,
    ARMY_MOVED,
    ATTACK,
    CHOOSE_FIGURES,
    DIE_USED,
    FIGURES_CHOSEN,
    ORDER_DECLARED,
    SECOND_MOVE,
    Army,
    army_side,
    leaders,
    other,
    units,
)

# wotr.md §2 [DZ-chart]: the faces that move or attack with an army.
ARMY_FACES = ("army", "muster_army", "will")
MOVE_FACES = (*ARMY_FACES, "character")
PROMPT = Prompt((CHOOSE_FIGURES,), "turn", "which figures go?")


def _ok(check: Callable[[], Any]) -> bool:
    try:
        check()
    except Rejected:
        return False
    return True


def _most(army: Army, unit_may_go: Callable[[str], bool]) -> Counts:
    """Every unit that may go and every Leader: valid whenever any choice is (figures.py)."""
    return counts({n: [f[0], f[1], f[2]] if unit_may_go(n) else [0, 0, f[2]]
                   for n, f in army.items()})


def _exclude(state: State, src: str) -> Army | None:
    """The figures that arrived in ``src`` in this Army action: they may not move again (§3)."""
    action = state["action"]
    return action["arrived"] if action and src in action["to"] else None


# --- checks -----------------------------------------------------------------------------------


def check_move(state: State, side: str, command: Command, die: str | None) -> Army:
    """The figures a move or second move takes (``figures``, or the most that may go)."""
    if die is not None:
        ensure(die in MOVE_FACES, "wrong_die",
               "Moving armies needs an Army, Muster/Army or Character die (§2).")
    src, dst = command["from_"], command["to"]
    region = state["armies"].get(src)
    exclude = None
    if command["type"] == SECOND_MOVE:
        # wotr.md §3: two *different* armies, and no figure moves twice in one action (the
        # seed: the army that was joined may still move without the figures that joined it).
        ensure(src not in state["action"]["from"], "already_moved",
               "That army already moved in this action.", region=src)
        exclude = _exclude(state, src)
    army = less(region, exclude)
    ensure(bool(army) and army_side(army) == side and units(region) > 0, "no_army",
           "You have no army there (that has not moved in this action).", region=src)
    ensure(src in REGIONS and dst in neighbours(state, src), "not_adjacent",
           "Armies move one region, to an adjacent one (§3).", to=dst)
    ensure(field_side(state, dst) != other(side), "not_free",
           "An army cannot move into a region holding an enemy army (§3).", to=dst)
    if die == "character":
        ensure(leaders(army) > 0, "needs_leader",
               "A Character die moves only an army with a Leader or Nazgûl (§3).")

    def unit_may_go(nation: str) -> bool:
        return may_move(state, nation, src, dst)  # §3: borders, then exiles must leave

    there = state["armies"].get(dst)
    joins = army_side(there) == side and units(there) > 0
    most = _most(army, unit_may_go)
    ensure(most["regular"] + most["elite"] > 0 or joins, "not_at_war",
           "Units of a Nation not At War may not cross into another Nation (§3).", to=dst)
    want = as_counts(command) if command.get("figures") is not None else most
    going = pick(army, want, unit_may_go)
    check_split(less(region, going), going, needs_unit=False, needs_leader=die == "character",
                joins_units=joins)
    seats.check_alternation(state, side, army=going, region=src,
                            second=command["type"] == SECOND_MOVE)
    return going


def check_attack(state: State, side: str, command: Command, die: str,
                 ) -> tuple[str, str, str, Army]:
    """(origin, region, battle kind, attacking figures) of an attack (§4)."""
    ensure(die in MOVE_FACES, "wrong_die",
           "Attacking needs an Army, Muster/Army or Character die (§4).")
    src, dst = command["from_"], command["to"]
    enemy = other(side)
    if src == dst:
        box = state["boxes"].get(src)
        if box and army_side(box) == side:
            origin, kind = "box:" + src, "sortie"
            ensure(field_side(state, src) == enemy, "no_target", "No besiegers to attack.")
        else:
            origin, kind = src, "siege"
            ensure(bool(box) and army_side(box) == enemy, "no_target",
                   "No besieged enemy army there.", region=src)
    else:
        origin, kind = src, "field"
        ensure(src in REGIONS and dst in neighbours(state, src), "not_adjacent",
               "An army attacks an adjacent region (§4).", to=dst)
        ensure(field_side(state, dst) == enemy, "no_target",
               "There is no enemy army there to attack.", to=dst)
    army = state["armies"].get(origin) if kind != "sortie" else state["boxes"].get(src)
    ensure(army is not None and army_side(army) == side and units(army) > 0, "no_army",
           "You have no army there.", region=src)
    if die == "character":
        ensure(leaders(army) > 0, "needs_leader",
               "A Character die attacks only with an army with a Leader or Nazgûl (§4).")

    def unit_may_go(nation: str) -> bool:
        return at_war(state, nation)  # §4: units not At War stay out as rearguard

    most = _most(army, unit_may_go)
    ensure(most["regular"] + most["elite"] > 0, "not_at_war",
           "Only units of Nations At War attack (§4).")
    want = as_counts(command) if command.get("figures") is not None else most
    force = pick(army, want, unit_may_go)
    check_split(less(army, force), force, needs_unit=True, needs_leader=die == "character")
    seats.check_alternation(state, side, army=force, region=src)
    return origin, dst, kind, force


def _check(state: State, side: str, command: Command) -> Any:
    if command["type"] == ATTACK:
        return check_attack(state, side, command, command["die"])
    return check_move(state, side, command, command.get("die"))


def choices(state: State, side: str, command: Command) -> list[Counts]:
    """Every ``figures`` the declared ``command`` may take, the most first; [] when it may not
    be made at all (the most that may go is valid whenever any choice is)."""
    if not _ok(lambda: _check(state, side, {**command, "figures": None})):
        return []
    src = command["from_"]
    if command["type"] == ATTACK:
        sortie = src == command["to"] and army_side(state["boxes"].get(src)) == side
        army = (state["boxes"] if sortie else state["armies"]).get(src)
    else:
        exclude = _exclude(state, src) if command["type"] == SECOND_MOVE else None
        army = less(state["armies"].get(src), exclude)
    return options(army or {}, lambda c: _ok(
        lambda: _check(state, side, {**command, "figures": c})))


# --- deciding ---------------------------------------------------------------------------------


def order(tx: Tx, side: str, command: Command) -> None:
    """A move, second move or attack: carried out when its figures are given or only one
    choice exists, else declared and the same seat asked which figures go."""
    if command.get("figures") is None:
        options_ = choices(tx.state, side, command)
        if not options_:
            _check(tx.state, side, command)  # raises the reason
        if len(options_) > 1:
            tx.emit(ORDER_DECLARED, side=side, order=command["type"], die=command.get("die"),
                    to=command["to"], **{"from": command["from_"]})
            return
        command = {**command, "figures": options_[0]}
    _carry_out(tx, side, command)


def choose(tx: Tx, side: str, command: Command) -> None:
    """``choose_figures``: the declared order is carried out with these figures."""
    declared = tx.state["order"]
    figures = as_counts(command)
    tx.emit(FIGURES_CHOSEN, side=side, figures=figures)
    _carry_out(tx, side, {**declared_command(declared), "figures": figures})


def declared_command(declared: dict[str, Any]) -> Command:
    command = {"type": declared["order"], "from_": declared["from"], "to": declared["to"]}
    if declared.get("die"):
        command["die"] = declared["die"]
    return command


def _carry_out(tx: Tx, side: str, command: Command) -> None:
    state = tx.state
    kind = command["type"]
    if kind == ATTACK:
        origin, region, battle_kind, force = check_attack(state, side, command, command["die"])
        tx.emit(DIE_USED, side=side, die=command["die"], action="attack")
        record = seats.acted_with(force, [command["from_"], region])
        acted(tx, side, record["nations"], record["armies"])
        battle.start(tx, side, origin, region, battle_kind, force)
        return
    src, dst = command["from_"], command["to"]
    if kind == SECOND_MOVE:
        moving = check_move(state, side, command, None)
        record = seats.acted_with(moving, [src, dst])
        acted(tx, side, record["nations"], record["armies"], more=True)
        _do_move(tx, side, src, dst, moving)
        tx.emit(ACTION_CLOSED, side=side)
        end_action(tx, side)
        return
    die = command["die"]
    moving = check_move(state, side, command, die)
    tx.emit(DIE_USED, side=side, die=die, action="move")
    record = seats.acted_with(moving, [src, dst])
    acted(tx, side, record["nations"], record["armies"])
    _do_move(tx, side, src, dst, moving)
    action = {"from": [src], "to": [dst], "arrived": moving}
    if die in ARMY_FACES and second_moves(tx.state, side, action):
        tx.emit(ACTION_OPENED, side=side, **action)
    else:
        end_action(tx, side)


def _do_move(tx: Tx, side: str, src: str, dst: str, moving: Army) -> None:
    tx.emit(ARMY_MOVED, src=src, dst=dst, figures=moving)
    entered(tx, side, dst)


# --- legal commands ---------------------------------------------------------------------------


def second_moves(state: State, side: str, action: dict[str, Any]) -> list[Command]:
    """The second armies an Army die may still move (``action``: the one in progress)."""
    state = {**state, "action": {**action, "side": side}}
    out = []
    for src in sorted(state["armies"]):
        out.extend(moves_from(state, side, src, SECOND_MOVE, None))
    return out


def moves_from(state: State, side: str, src: str, kind: str, die: str | None) -> list[Command]:
    army = state["armies"][src]
    if army_side(army) != side or units(army) == 0:
        return []
    if die == "character" and leaders(army) == 0:
        return []
    out = []
    for dst in neighbours(state, src):
        command = {"type": kind, "from": src, "to": dst}
        if die is not None:
            command["die"] = die
        if field_side(state, dst) != other(side) and _ok(
                lambda c=command: check_move(state, side, {**c, "from_": c["from"]}, die)):
            out.append(command)
    return out


def attacks(state: State, side: str, die: str) -> list[Command]:
    out = []
    enemy = other(side)
    sources = [(r, a, False) for r, a in state["armies"].items()]
    sources += [(r, a, True) for r, a in state["boxes"].items()]
    for region, army, boxed in sorted(sources, key=lambda t: (t[0], t[2])):
        if army_side(army) != side or units(army) == 0:
            continue
        if die == "character" and leaders(army) == 0:
            continue
        if boxed:
            targets = [region] if field_side(state, region) == enemy else []
        else:
            targets = [d for d in neighbours(state, region) if field_side(state, d) == enemy]
            box = state["boxes"].get(region)
            if box and army_side(box) == enemy:
                targets.append(region)
        for target in targets:
            command = {"type": ATTACK, "die": die, "from": region, "to": target}
            if _ok(lambda c=command: check_attack(state, side, {**c, "from_": c["from"]}, die)):
                out.append(command)
    return out


def legal_choices(state: State) -> list[Command]:
    """The ``choose_figures`` commands of the declared order."""
    declared = state["order"]
    return [{"type": CHOOSE_FIGURES, "figures": c}
            for c in choices(state, declared["side"], declared_command(declared))]
