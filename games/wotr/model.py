"""War of the Ring commands (marshmallow schemas), event wire names, and the shape of the state.

State (plain JSON data; ``evolve`` mutates it in place)::

    scenario, regions   the scenario name and its region names (wotr.md §13/§14)
    vp                  {side: VP needed to win}; max_rounds (data.WotrOptions)
    round               the round number (1-based); turn: the side to act in the action phase
    dice                {side: [unused action-die faces]} (an Eye is lost when rolled, §2)
    action              None, or the Army-die action in progress: {side, from: [...], to: [...]}
    order               None, or a move or attack declared without its figures, waiting for the
                        same seat's choose_figures: {side, order, die, from, to} (wotr.md §3, §4)
    armies              {region: {nation: [regulars, elites, leaders]}}: figures on the map
    boxes               {region: {nation: [...]}}: a besieged army inside its Stronghold (§7)
    reinf, dead         {nation: [...]}: reinforcements; eliminated Free Peoples figures
    control             {region: side}: who controls each Settlement of the scenario (§8)
    politics            {nation: {"step": steps to At War, "active": bool}} (§9)
    exiles              {region: [nation]}: units of a Nation not At War that retreated into
                        another Nation's land and must leave it with their next move (§3)
    fp_acted            None, or in a 3-seat game what the Free Peoples' last action acted
                        with: {nations, armies, before} (wotr.md §16, seats.py)
    hands, decks, discards   {side: [card id]} (§12)
    battle              None, or the battle in progress (see battle.py)
    totals              {nation: [...]}: figures of each Nation in this scenario (conservation)
    over, winner, reason
"""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields, validate

from games.core import State
from games.wotr.data import NATION_SIDE, SIDES

_NAME = validate.Length(max=40)
_FACE = fields.String(required=True, validate=validate.OneOf(
    ("character", "army", "muster", "event", "muster_army", "will")))


class DieOnly(Schema):
    die = _FACE


_COUNT = validate.Range(min=0, max=20)


class Figures(Schema):
    """How many figures of each kind go (wotr.md §3-§5: the player's choice, kind by kind)."""

    regular = fields.Integer(load_default=0, validate=_COUNT)
    elite = fields.Integer(load_default=0, validate=_COUNT)
    leader = fields.Integer(load_default=0, validate=_COUNT)


class Move(Schema):
    """Move (or attack with) figures of the army in ``from`` into (or against) ``to``. Without
    ``figures`` the same seat is asked which figures go when there is more than one choice."""

    die = _FACE
    from_ = fields.String(required=True, data_key="from", validate=_NAME)
    to = fields.String(required=True, validate=_NAME)
    figures = fields.Nested(Figures, load_default=None)


class SecondMove(Schema):
    from_ = fields.String(required=True, data_key="from", validate=_NAME)
    to = fields.String(required=True, validate=_NAME)
    figures = fields.Nested(Figures, load_default=None)


class FiguresOnly(Schema):
    """The figures that go: a declared move or attack's, or those that advance after a battle
    (all zero: none advance)."""

    figures = fields.Nested(Figures, required=True)


class Recruit(Schema):
    nation = fields.String(required=True, validate=validate.OneOf(tuple(NATION_SIDE)))
    kind = fields.String(required=True, validate=validate.OneOf(("regular", "elite", "leader")))
    region = fields.String(required=True, validate=_NAME)


class Muster(Schema):
    die = _FACE
    recruits = fields.List(fields.Nested(Recruit), required=True,
                           validate=validate.Length(min=1, max=2))


class Diplomacy(Schema):
    die = _FACE
    nation = fields.String(required=True, validate=validate.OneOf(tuple(NATION_SIDE)))


class Empty(Schema):
    """No arguments."""


class CardOnly(Schema):
    card = fields.String(required=True, validate=validate.Length(min=1, max=60))


class CombatCardChoice(Schema):
    """A combat card from hand ("" = none) and, for Relentless Assault / Onslaught, ``x``."""

    card = fields.String(required=True, validate=validate.Length(max=60))
    x = fields.Integer(load_default=0, validate=validate.Range(min=0, max=4))


class Flag(Schema):
    yes = fields.Boolean(required=True)


class TakeHit(Schema):
    nation = fields.String(required=True, validate=validate.OneOf(tuple(NATION_SIDE)))
    kind = fields.String(required=True, validate=validate.OneOf(("regular", "elite")))


class Retreat(Schema):
    """A region to retreat into, "siege" to withdraw into the Stronghold, "" to stand."""

    to = fields.String(required=True, validate=_NAME)


class NationOrNone(Schema):
    nation = fields.String(required=True, validate=validate.OneOf(("", *NATION_SIDE)))


# Command names.
MOVE, SECOND_MOVE, END_ACTION = "move", "second_move", "end_action"
ATTACK, MUSTER, DIPLOMACY, DRAW_CARD, SKIP_DIE, PASS = (
    "attack", "muster", "diplomacy", "draw_card", "skip_die", "pass")
DISCARD = "discard"
WITHDRAW, BESIEGE, COMBAT_CARD, TAKE_HIT = "withdraw", "besiege", "combat_card", "take_hit"
CONTINUE_BATTLE, RETREAT, ADVANCE, EXTEND_SIEGE = (
    "continue_battle", "retreat", "advance", "extend_siege")
CHOOSE_FIGURES = "choose_figures"

COMMANDS: dict[str, type[Schema]] = {
    MOVE: Move, SECOND_MOVE: SecondMove, END_ACTION: Empty, ATTACK: Move, MUSTER: Muster,
    DIPLOMACY: Diplomacy, DRAW_CARD: DieOnly, SKIP_DIE: DieOnly, PASS: Empty, DISCARD: CardOnly,
    WITHDRAW: Flag, BESIEGE: FiguresOnly, COMBAT_CARD: CombatCardChoice, TAKE_HIT: TakeHit,
    CONTINUE_BATTLE: Flag, RETREAT: Retreat, ADVANCE: FiguresOnly, EXTEND_SIEGE: NationOrNone,
    CHOOSE_FIGURES: FiguresOnly,
}
ACTION_KINDS = (MOVE, ATTACK, MUSTER, DIPLOMACY, DRAW_CARD, SKIP_DIE, PASS)

# Event wire names (stable; past tense).
GAME_STARTED = "war_begun"  # "game_started" is a platform event name
ROUND_STARTED = "round_started"
CARD_DRAWN = "card_drawn"
CARD_DISCARDED = "card_discarded"
DICE_ROLLED = "dice_rolled"
DIE_USED = "die_used"
PASSED = "passed"
TURN_PASSED = "turn_passed"
ACTION_OPENED = "action_opened"  # an Army die may move a second army
ACTION_CLOSED = "action_closed"
ORDER_DECLARED = "order_declared"  # a move or attack waiting for its figures: {side, order, ...}
FIGURES_CHOSEN = "figures_chosen"  # the declared order's figures: {side, figures}
# The lone Free Peoples player of a 3-seat game (wotr.md §16): what its action acted with,
# {side, nations, armies, more?} (more: a second move, part of the same action); see seats.py.
ACTED_WITH = "acted_with"
# Figure transfers: {src, dst, figures}; locations are a region (its field army), "box:<region>"
# (a besieged army), "reinf", "dead" or "att": the attacking force of the battle in progress,
# which never leaves its region (wotr.md §4, the seed: "공격군이 전투 지역으로 들어가지
# 않습니다"). "att" is a part of the figures at the battle's ``origin``: a transfer from the
# origin into "att" marks figures as attacking, one out of "att" takes them from the origin too.
ARMY_MOVED = "army_moved"
FIGURES_MUSTERED = "figures_mustered"
CASUALTIES_REMOVED = "casualties_removed"
EXCESS_REMOVED = "excess_removed"
ARMY_RETREATED = "army_retreated"
ARMY_ADVANCED = "army_advanced"
ATTACKERS_RETURNED = "attackers_returned"  # logs before issue 24: "att" back to its origin
WITHDREW_INTO_SIEGE = "withdrew_into_siege"
SIEGE_LIFTED = "siege_lifted"
LEADERS_REMOVED = "leaders_removed"
ELITE_REDUCED = "elite_reduced"  # {loc, nation, to, replacement}
TRANSFERS = frozenset({ARMY_MOVED, FIGURES_MUSTERED, CASUALTIES_REMOVED, EXCESS_REMOVED,
                       ARMY_RETREATED, ARMY_ADVANCED, ATTACKERS_RETURNED, WITHDREW_INTO_SIEGE,
                       SIEGE_LIFTED, LEADERS_REMOVED})
SETTLEMENT_CAPTURED = "settlement_captured"
POLITICAL_ADVANCED = "political_advanced"
NATION_ACTIVATED = "nation_activated"
BATTLE_STARTED = "battle_started"
BATTLE_STEP = "battle_step"  # the battle moved to another stage: {stage, ...fields}
COMBAT_CARD_CHOSEN = "combat_card_chosen"
COMBAT_CARDS_REVEALED = "combat_cards_revealed"
COMBAT_ROLLED = "combat_rolled"
HITS_SCORED = "hits_scored"  # {side: hits its army must take}
BATTLE_ROUND_ENDED = "battle_round_ended"
BATTLE_ENDED = "battle_ended"
GAME_ENDED = "game_ended"


# --- figure arithmetic ------------------------------------------------------------------------

Army = dict[str, list[int]]


def units(army: Army | None) -> int:
    """Army units (Regulars and Elites): the Combat Strength (wotr.md §1)."""
    return sum(f[0] + f[1] for f in (army or {}).values())


def leaders(army: Army | None) -> int:
    """Leaders and Nazgûl: the army's Leadership (wotr.md §11, 1 each)."""
    return sum(f[2] for f in (army or {}).values())


def elites(army: Army | None) -> int:
    return sum(f[1] for f in (army or {}).values())


def capacity(army: Army | None) -> int:
    """Hits the army can absorb: 1 per Regular, 2 per Elite (wotr.md §1)."""
    return sum(f[0] + 2 * f[1] for f in (army or {}).values())


def army_side(army: Army | None) -> str | None:
    for nation in army or {}:
        return NATION_SIDE[nation]
    return None


def other(side: str) -> str:
    return SIDES[1 - SIDES.index(side)]


def location(state: State, loc: str) -> Army | None:
    """The figures at ``loc`` (see the transfer events above), None when empty."""
    if loc == "reinf":
        return state["reinf"]
    if loc == "dead":
        return state["dead"]
    if loc == "att":
        return state["battle"]["att"] if state["battle"] else None
    if loc.startswith("box:"):
        return state["boxes"].get(loc[4:])
    return state["armies"].get(loc)


def transfer(state: State, src: str, dst: str, figures: Army) -> None:
    """Move ``figures`` from ``src`` to ``dst`` (evolve's one figure primitive)."""
    _add(state, src, figures, -1)
    _add(state, dst, figures, 1)


def _add(state: State, loc: str, figures: Army, sign: int) -> None:
    if loc == "att":
        # The attacking figures stand in their own region all through the battle (§4).
        _add(state, state["battle"]["origin"], figures, sign)
    if loc in ("reinf", "dead"):
        pool = state[loc]
        for nation, f in figures.items():
            pool[nation] = [a + sign * b for a, b in zip(pool[nation], f, strict=True)]
        return
    if loc == "att":
        holder, key = state["battle"], "att"
    elif loc.startswith("box:"):
        holder, key = state["boxes"], loc[4:]
    else:
        holder, key = state["armies"], loc
    army = holder.get(key) or {}
    for nation, f in figures.items():
        now = army.get(nation, [0, 0, 0])
        army[nation] = [a + sign * b for a, b in zip(now, f, strict=True)]
        if not any(army[nation]):
            del army[nation]
    if army or key == "att":
        holder[key] = army
    else:
        holder.pop(key, None)


def copy_army(army: Army | None) -> Army:
    return {n: list(f) for n, f in (army or {}).items()}


def figures_total(state: State) -> dict[str, list[int]]:
    """Every figure of each Nation wherever it is (the conservation check of issue 11)."""
    out = {n: list(f) for n, f in state["reinf"].items()}
    places: list[Any] = [*state["armies"].values(), *state["boxes"].values(),
                         state["dead"]]
    for army in places:
        for n, f in army.items():
            out[n] = [a + b for a, b in zip(out[n], f, strict=True)]
    return out
