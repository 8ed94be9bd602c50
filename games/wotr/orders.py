"""Moving and attacking with armies (wotr.md §3, §4), composed from rules.py: the checks, the
legal commands and carrying them out. A ``move``, ``second_move`` or ``attack`` names its die,
the army's region and where it goes; its ``figures`` (figures.py) may come with it, or, when the
army offers more than one choice, the same seat is asked next (``order_declared``, then
``choose_figures``): the legal commands stay one per destination, then one per choice of figures.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
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
    Split,
    as_counts,
    less,
)
from games.wotr.model import (
    ACTION_CLOSED,
    ACTION_OPENED,
    ARMY_MOVED,
    ATTACK,
    CHOOSE_FIGURES,
    DIE_USED,
    FIGURES_CHOSEN,
    MOVE,
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


def _may(split: Callable[[], Split]) -> bool:
    """Whether an order passes the checks ``split`` makes and may take the most figures (as
    ``check_move`` or ``check_attack`` with no ``figures`` would accept it)."""
    try:
        made = split()
    except Rejected:
        return False
    return made.allows(made.most)


def _exclude(state: State, src: str) -> Army | None:
    """The figures that arrived in ``src`` in this Army action: they may not move again (§3)."""
    action = state["action"]
    return action["arrived"] if action and src in action["to"] else None


def _alternation(state: State, side: str, region: str,
                 second: bool = False) -> Callable[[Army], None] | None:
    """The §16 check of the figures that go, for the lone Free Peoples player of 3 seats."""
    if not seats.alternates(state, side):
        return None
    return lambda going: seats.check_alternation(state, side, army=going, region=region,
                                                 second=second)


# --- checks -----------------------------------------------------------------------------------


def move_split(state: State, side: str, command: Command, die: str | None) -> Split:
    """The checks of a move or second move that do not depend on its figures, and how they are
    chosen."""
    if die is not None:
        ensure(die in MOVE_FACES, "wrong_die",
               "Moving armies needs an Army, Muster/Army or Character die (§2).")
    src, dst = command["from_"], command["to"]
    region = state["armies"].get(src)
    exclude = None
    second = command["type"] == SECOND_MOVE
    if second:
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
    return _moving(state, side, src, dst, army, region, die, second)


def _moving(state: State, side: str, src: str, dst: str, army: Army, region: Army,
            die: str | None, second: bool) -> Split:
    """How ``army`` (of ``region``, the whole army at ``src``) chooses what goes to ``dst``,
    once the checks of the army and the place passed."""
    def unit_may_go(nation: str) -> bool:
        return may_move(state, nation, src, dst)  # §3: borders, then exiles must leave

    there = state["armies"].get(dst)
    joins = army_side(there) == side and units(there) > 0
    split = Split(army, region, unit_may_go, needs_unit=False,
                  needs_leader=die == "character", joins_units=joins,
                  also=_alternation(state, side, src, second))
    most = split.most
    ensure(most["regular"] + most["elite"] > 0 or joins, "not_at_war",
           "Units of a Nation not At War may not cross into another Nation (§3).", to=dst)
    return split


def check_move(state: State, side: str, command: Command, die: str | None) -> Army:
    """The figures a move or second move takes (``figures``, or the most that may go)."""
    split = move_split(state, side, command, die)
    return split.take(as_counts(command) if command.get("figures") is not None else split.most)


def attack_split(state: State, side: str, command: Command, die: str,
                 ) -> tuple[str, str, str, Split]:
    """(origin, region, battle kind, how the attacking figures are chosen) of an attack (§4):
    the checks that do not depend on its figures."""
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

    split = Split(army, army, unit_may_go, needs_unit=True, needs_leader=die == "character",
                  also=_alternation(state, side, src))
    most = split.most
    ensure(most["regular"] + most["elite"] > 0, "not_at_war",
           "Only units of Nations At War attack (§4).")
    return origin, dst, kind, split


def check_attack(state: State, side: str, command: Command, die: str,
                 ) -> tuple[str, str, str, Army]:
    """(origin, region, battle kind, attacking figures) of an attack (§4)."""
    origin, dst, kind, split = attack_split(state, side, command, die)
    want = as_counts(command) if command.get("figures") is not None else split.most
    return origin, dst, kind, split.take(want)


def _split(state: State, side: str, command: Command) -> Split:
    if command["type"] == ATTACK:
        return attack_split(state, side, command, command["die"])[3]
    return move_split(state, side, command, command.get("die"))


def _check(state: State, side: str, command: Command) -> Any:
    if command["type"] == ATTACK:
        return check_attack(state, side, command, command["die"])
    return check_move(state, side, command, command.get("die"))


def choices(state: State, side: str, command: Command) -> list[Counts]:
    """Every ``figures`` the declared ``command`` may take, the most first; [] when it may not
    be made at all (the most that may go is valid whenever any choice is)."""
    try:
        split = _split(state, side, command)
    except Rejected:
        return []
    return split.options() if split.allows(split.most) else []


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
    if die in ARMY_FACES and has_second_move(tx.state, side, action):
        tx.emit(ACTION_OPENED, side=side, **action)
    else:
        end_action(tx, side)


def _do_move(tx: Tx, side: str, src: str, dst: str, moving: Army) -> None:
    tx.emit(ARMY_MOVED, src=src, dst=dst, figures=moving)
    entered(tx, side, dst)


# --- legal commands ---------------------------------------------------------------------------


def army_orders(state: State, side: str, dice: Iterable[str]) -> dict[str, list[Command]]:
    """The moves (army by army) then the attacks each of ``dice`` may order. They are worked
    out once and given each die: only a Character die asks more, a Leader or Nazgûl in the
    army (§3, §4)."""
    dice = list(dice)
    if not dice:
        return {}
    base = [*(c for src in sorted(state["armies"])
              for c in moves_from(state, side, src, MOVE, "army")),
            *attacks(state, side, "army")]
    return {die: [{**c, "die": die} for c in base
                  if die != "character" or leaders(_ordering(state, side, c)) > 0]
            for die in dice}


def _ordering(state: State, side: str, command: Command) -> Army:
    """The army a legal move or attack orders: the besieged one for a sortie."""
    src = command["from"]
    box = state["boxes"].get(src)
    if command["type"] == ATTACK and src == command["to"] and army_side(box) == side:
        return box
    return state["armies"][src]


def second_moves(state: State, side: str, action: dict[str, Any]) -> list[Command]:
    """The second armies an Army die may still move (``action``: the one in progress)."""
    return list(_second_moves(state, side, action))


def has_second_move(state: State, side: str, action: dict[str, Any]) -> bool:
    return next(_second_moves(state, side, action), None) is not None


def _second_moves(state: State, side: str, action: dict[str, Any]) -> Iterator[Command]:
    state = {**state, "action": {**action, "side": side}}
    for src in sorted(state["armies"]):
        yield from moves_from(state, side, src, SECOND_MOVE, None)


def moves_from(state: State, side: str, src: str, kind: str, die: str | None) -> list[Command]:
    """The moves (or second moves) the army at ``src`` may make with the most figures that
    may go: ``move_split``'s checks of the army made once, then those of each place."""
    region = state["armies"][src]
    if army_side(region) != side or units(region) == 0:
        return []
    second = kind == SECOND_MOVE
    if second and src in state["action"]["from"]:
        return []
    exclude = _exclude(state, src) if second else None
    army = less(region, exclude)
    if not army or army_side(army) != side or (die == "character" and leaders(army) == 0):
        return []
    # The whole army with nothing to alternate (§16): where the units of all its Nations may
    # go (§3: borders, exiles), its most figures may, every Leader going with units
    # (figures.Split); elsewhere the full checks decide.
    whole = not exclude and not seats.alternates(state, side)
    nations = [n for n, f in army.items() if f[0] + f[1]]
    out = []
    enemy = other(side)
    for dst in neighbours(state, src):
        if field_side(state, dst) == enemy:
            continue
        if not (whole and all(may_move(state, n, src, dst) for n in nations)) and not _may(
                lambda dst=dst: _moving(state, side, src, dst, army, region, die, second)):
            continue
        command = {"type": kind, "from": src, "to": dst}
        if die is not None:
            command["die"] = die
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
            if _may(lambda c=command: attack_split(state, side, {**c, "from_": c["from"]},
                                                   die)[3]):
                out.append(command)
    return out


def legal_choices(state: State) -> list[Command]:
    """The ``choose_figures`` commands of the declared order."""
    declared = state["order"]
    return [{"type": CHOOSE_FIGURES, "figures": c}
            for c in choices(state, declared["side"], declared_command(declared))]
