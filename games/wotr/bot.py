"""War of the Ring bot levels: ``random`` (uniform over the legal commands) and ``basic`` (a
one-move heuristic for either side). Bots see only the seat's view and its legal commands (and
the public map data), never the state.

``basic``: attacks when the odds favour it, captures unguarded enemy Settlements, marches towards
the enemy's Settlements, garrisons its own threatened Strongholds, musters at the front, brings
its Nations to war, plays the combat card that helps most, takes Regulars as casualties first,
retreats or withdraws into a siege when outnumbered, and presses a siege only with the odds.
Choosing figures (wotr.md §3-§5): everything goes, except a Regular kept as garrison in a
threatened own Settlement, and its Leaders/Nazgûl kept home (with a Regular) when the attack is
against the odds, so they do not die with the army.
"""

from __future__ import annotations

import copy
from collections import deque
from collections.abc import Callable
from typing import Any

from games.core import Command, Rng, Seen
from games.wotr import seats
from games.wotr.battle import legal as battle_legal
from games.wotr.data import CARDS, DECKS, FP, NATION_SIDE, REGIONS, SH, SIDES, STRONGHOLD
from games.wotr.engine import battle_seat, initial, vp
from games.wotr.model import (
    ADVANCE,
    BESIEGE,
    CHOOSE_FIGURES,
    COMBAT_CARD,
    DICE_ROLLED,
    ROUND_STARTED,
)

Bot = Callable[[Seen, Rng], Command]
Army = dict[str, list[int]]

# A rough worth of each combat effect for the side that plays it.
_CARD_VALUE = {"shield_wall": 2.0, "valour": 2.5, "advantageous_position": 2.5, "daylight": 1.5,
               "confusion": 1.5, "no_quarter": 2.0, "charge": 2.5, "sudden_strike": 2.0,
               "scouts": 0.0, "swarm_of_bats": 1.0, "deadly_strife": 1.0,
               "desperate_battle": 1.0, "relentless_assault": 1.0, "devilry_of_orthanc": 2.5,
               "mumakil": 3.0, "onslaught": 0.5, "great_host": 2.0, "we_come_to_kill": 2.5}


def _units(army: Army | None) -> int:
    return sum(f[0] + f[1] for f in (army or {}).values())


def _strength(army: Army | None) -> float:
    """Hits it can take and dice it rolls, with a little for Leaders' re-rolls."""
    army = army or {}
    return sum(f[0] + 2 * f[1] + 0.5 * f[2] for f in army.values())


def _side_of(army: Army | None) -> str | None:
    for nation in army or {}:
        return NATION_SIDE[nation]
    return None


class _Board:
    """What the bot reads off the view: armies, control, distances to the enemy."""

    def __init__(self, view: dict[str, Any]):
        self.view = view
        self.side = view["side"]
        self.enemy = "sh" if self.side == "fp" else "fp"
        self.inside = set(view["regions"])
        self.armies: dict[str, Army] = view["armies"]
        self.boxes: dict[str, Army] = view["boxes"]
        self.control: dict[str, str] = view["control"]
        targets = [r for r, owner in self.control.items()
                   if owner != self.side and NATION_SIDE[REGIONS[r].nation] != self.side]
        targets += [r for r, owner in self.control.items()
                    if owner == self.enemy and NATION_SIDE[REGIONS[r].nation] == self.side]
        self.to_target = self._bfs(targets)
        self.to_enemy = self._bfs([r for r, a in self.armies.items()
                                   if _side_of(a) == self.enemy and _units(a)])

    def _bfs(self, sources: list[str]) -> dict[str, int]:
        dist = {r: 0 for r in sources}
        queue = deque(sources)
        while queue:
            region = queue.popleft()
            for nxt in REGIONS[region].adjacent:
                if nxt in self.inside and nxt not in dist:
                    dist[nxt] = dist[region] + 1
                    queue.append(nxt)
        return dist

    def threat(self, region: str) -> float:
        """Enemy strength next to ``region``."""
        return sum(_strength(self.armies.get(r)) for r in REGIONS[region].adjacent
                   if r in self.inside and _side_of(self.armies.get(r)) == self.enemy)

    def mine(self, region: str) -> bool:
        return self.control.get(region) == self.side

    def worth(self, region: str) -> float:
        return REGIONS[region].vp


def _attack_score(b: _Board, c: Command) -> float:
    src, dst, leave = c["from"], c["to"], _kept(b, c["from"])
    if src == dst and dst in b.boxes and _side_of(b.boxes[dst]) == b.side:
        mine, theirs, penalty = b.boxes[dst], b.armies.get(dst), 1.0  # sortie
    elif src == dst:
        mine, theirs, penalty = b.armies.get(src), b.boxes.get(dst), 0.55  # siege: hits on 6
    else:
        mine, theirs = b.armies.get(src), b.armies.get(dst)
        penalty = 0.75 if REGIONS[dst].settlement in ("city", "fortification") else 1.0
    ratio = (_strength(mine) - leave) * penalty / max(_strength(theirs), 0.5)
    gain = 3.0 * b.worth(dst) + (2.0 if dst in b.control else 0.0)
    return 6.0 * (ratio - 1.4) + gain - 0.5 * leave


def _move_score(b: _Board, c: Command) -> float:
    src, dst, leave = c["from"], c["to"], _kept(b, c["from"])
    army = b.armies.get(src) or {}
    moving = _units(army) - leave
    score = 0.0
    here, there = b.to_target.get(src, 99), b.to_target.get(dst, 99)
    score += 1.5 * (here - there)
    settlement = REGIONS[dst].settlement
    if dst in b.control and not b.mine(dst) and dst not in b.boxes:
        score += 8.0 + 6.0 * b.worth(dst)  # an unguarded enemy Settlement: take it
    if b.mine(src) and REGIONS[src].settlement and leave == 0 and b.threat(src) > 0:
        score -= 3.0 + 3.0 * b.worth(src)  # do not leave a threatened Settlement empty
    if b.mine(dst) and REGIONS[dst].settlement == STRONGHOLD and b.threat(dst) > _strength(
            b.armies.get(dst)):
        score += 3.0  # garrison a threatened Stronghold
    danger = b.threat(dst) - _strength(b.armies.get(dst)) - moving
    if danger > 0 and not (b.mine(dst) and settlement == STRONGHOLD):
        score -= 1.0 * danger
    if b.side == "fp":
        score -= 1.0  # the Free Peoples gain by waiting for the Ring's clock
    return score - 0.2 * leave


def _kept(b: _Board, src: str) -> int:
    """Units ``basic`` keeps back in ``src``: one to hold a threatened own Settlement."""
    army = b.armies.get(src)
    guard = (b.mine(src) and REGIONS[src].settlement is not None and b.threat(src) > 0
             and _side_of(army) == b.side)
    return 1 if guard and _units(army) > 1 else 0


def _wanted(b: _Board, src: str, kind: str, odds: float, army: Army | None) -> dict[str, int]:
    """The figures ``basic`` sends from ``army`` in ``src`` (a move, attack or advance; an
    attack's rearguard already holds ``src`` when the advancing force is not all of it)."""
    army = army or {}
    total = {k: sum(f[i] for f in army.values()) for i, k in enumerate(("regular", "elite",
                                                                          "leader"))}
    alone = kind != "advance" or _units(b.armies.get(src)) == _units(army)
    keep = _kept(b, src) if alone else 0
    if kind == "attack" and odds < 1.0 and total["leader"] and total["regular"] + total[
            "elite"] > 1:
        keep = max(keep, 1)  # §4: keep the Leaders/Nazgûl out of a risky attack
        total["leader"] = 0
    take_regulars = min(keep, total["regular"])
    total["regular"] -= take_regulars
    total["elite"] -= keep - take_regulars
    return total


def _closest(legal: list[Command], want: dict[str, int]) -> Command:
    """The legal figure choice nearest ``want`` (the first of equals)."""
    return min(legal, key=lambda c: sum(abs(c["figures"][k] - want[k]) for k in want))


def _figures_choice(b: _Board, legal: list[Command]) -> Command | None:
    """A choose_figures, advance or besiege choice (see the module docstring)."""
    view = b.view
    if legal[0]["type"] == "choose_figures":
        order = view["order"]
        src, dst = order["from"], order["to"]
        boxed = src == dst and _side_of(b.boxes.get(src)) == b.side
        army = (b.boxes if boxed else b.armies).get(src)
        theirs = b.armies.get(dst) if boxed or src != dst else b.boxes.get(dst)
        odds = _strength(army) / max(_strength(theirs), 0.5)
        return _closest(legal, _wanted(b, src, order["order"], odds, army))
    if legal[0]["type"] in ("advance", "besiege"):
        battle = view["battle"]
        origin = battle["origin"]
        src = origin[4:] if origin.startswith("box:") else origin
        return _closest(legal, _wanted(b, src, "advance", 1.0, battle["att"]))
    return None


def _muster_score(b: _Board, c: Command) -> float:
    score = 3.0
    for r in c["recruits"]:
        region = r["region"]
        score += {"elite": 2.0, "regular": 1.0, "leader": 0.6}[r["kind"]]
        score += 1.5 if b.threat(region) else 0.0
        score -= 0.2 * b.to_enemy.get(region, 10)
    return score


def _battle_choice(b: _Board, legal: list[Command]) -> Command | None:
    view = b.view
    battle = view["battle"]
    kind = legal[0]["type"]
    if battle is None:
        return None
    att = battle["att"]
    def_loc = battle["def_loc"]
    defenders = b.boxes.get(def_loc[4:]) if def_loc.startswith("box:") else b.armies.get(def_loc)
    attacking = battle["attacker"] == b.side
    mine, theirs = (att, defenders) if attacking else (defenders, att)
    odds = _strength(mine) / max(_strength(theirs), 0.5)
    if kind == "combat_card":
        best, value = legal[0], 0.5
        for c in legal[1:]:
            combat = CARDS[c["card"]].combat
            v = _CARD_VALUE.get(combat, 0.0)
            if combat in ("relentless_assault", "onslaught"):
                v = v if c["x"] == (1 if _units(mine) > 3 else 0) else -1.0
            if combat == "scouts":
                v = 3.0 if odds < 0.5 else 0.0
            if v > value:
                best, value = c, v
        return best
    if kind == "take_hit":
        regulars = [c for c in legal if c["kind"] == "regular"]
        if regulars:
            return max(regulars, key=lambda c: (mine or {})[c["nation"]][0])
        return legal[0]
    if kind == "continue_battle":
        return {"type": kind, "yes": odds >= 1.2}
    if kind == "withdraw":
        return {"type": kind, "yes": odds < 0.8}
    if kind == "extend_siege":
        return legal[-1] if odds >= 2.0 else legal[0]
    if kind == "retreat":
        options = [c for c in legal if c["to"] not in ("",)]
        if odds < 0.6 and options:
            siege = [c for c in options if c["to"] == "siege"]
            if siege:
                return siege[0]
            return max(options, key=lambda c: (_units(b.armies.get(c["to"])),
                                               -b.threat(c["to"])))
        return {"type": kind, "to": ""}
    return None


def basic(seen: Seen, rng: Rng) -> Command:
    """Greedy one-move heuristic (see the module docstring)."""
    view, legal = seen.view, seen.legal
    b = _Board(view)
    choice = _figures_choice(b, legal) or _battle_choice(b, legal)
    if choice is not None and choice in legal:
        return choice
    best: list[Command] = []
    best_score = float("-inf")
    for c in legal:
        score = _score(b, c)
        if score > best_score:
            best, best_score = [c], score
        elif score == best_score:
            best.append(c)
    return best[rng.below(len(best))]


def _score(b: _Board, c: Command) -> float:
    """How much ``basic`` likes an action-phase command."""
    view = b.view
    kind = c["type"]
    if kind == "attack":
        score = _attack_score(b, c)
    elif kind in ("move", "second_move"):
        score = _move_score(b, c)
    elif kind == "muster":
        score = _muster_score(b, c)
    elif kind == "diplomacy":
        score = 6.0 - view["politics"][c["nation"]]["step"]
    elif kind == "draw_card":
        score = 1.5 if len(view.get("hand") or []) < 4 else 0.2
    elif kind == "pass":
        score = 0.5
    elif kind == "discard":
        score = -_CARD_VALUE.get(CARDS[c["card"]].combat, 0.0)
    else:
        score = 0.0  # skip_die, end_action
    if c.get("die") == "will":
        score -= 0.3  # keep the Will of the West for when it is needed
    return score


# --- the expert level's hooks (games/expert.py) ----------------------------------------------

EXPERT_CANDIDATES = 4  # commands searched per decision: the favourite and basic's next best
# The follow-ups that only choose which figures go (a declared move or attack, an advance, a
# besieging force): the expert takes basic's choice there without searching. Searching them
# spent the think time on a choice the heuristic already makes well (its Nazgûl kept home from
# a hopeless attack) and, at a small budget, let the noise of two worlds talk it out of it:
# expert vs basic (south, think 50 ms) fell from 72 % to 57 % when figures became a choice;
# with basic's figures it wins 65.0 % [95 % CI 55.3-73.6] of 100 games (selfplay seed).
FIGURE_CHOICES = (CHOOSE_FIGURES, ADVANCE, BESIEGE)


def shortlist(seen: Seen, favourite: Command, size: int = EXPERT_CANDIDATES) -> list[Command]:
    """The commands the expert searches: the ``basic`` choice, then the others ``basic``
    scores highest (in a battle, the first listed); at most ``size``, in legal order; for a
    figure choice (``FIGURE_CHOICES``) the ``basic`` choice alone, so it is not searched. A round
    offers dozens of moves and musters and a playout costs milliseconds, so searching all of
    them would leave two worlds each; this reads only the seat's view and legal commands."""
    legal = seen.legal
    if legal and legal[0]["type"] in FIGURE_CHOICES and favourite in legal:
        return [favourite]  # basic's figures, unsearched (see FIGURE_CHOICES)
    rest = [c for c in legal if c != favourite]
    if seen.view["battle"] is None:
        board = _Board(seen.view)
        rest.sort(key=lambda c: -_score(board, c))
    chosen = ([favourite] if favourite in legal else []) + rest[:size - 1]
    # In legal order: basic reads a battle's list by position (no card first).
    return [c for c in legal if c in chosen]


def sample_state(seen: Seen, rng: Rng) -> dict[str, Any]:
    """A whole state the seat cannot tell from the real one (the expert's world), from its view
    and redacted log alone: the other hands (the other side's, and a teammate's with two seats
    a side), a combat card chosen and not yet revealed (with its X) and both decks' order are
    drawn from the cards the seat cannot place; everything on the map, the dice and the tracks
    are public."""
    view = seen.view
    own = seats.hand_key({"seats": view.get("seats", 2)}, view["viewer"])
    state = initial({"scenario": view["scenario"], "vp": dict(view["vp_to_win"]),
                     "max_rounds": view["max_rounds"], "decks": {FP: [], SH: []},
                     "seats": view.get("seats", 2)})
    state.update(copy.deepcopy({
        "round": view["round"], "turn": view["turn"], "dice": view["dice"],
        "action": view["action"], "order": view.get("order"), "armies": view["armies"],
        "boxes": view["boxes"],
        "reinf": view["reinforcements"], "dead": view["eliminated"],
        "control": view["control"], "politics": view["politics"], "discards": view["discards"],
        "exiles": view.get("exiles", {}), "fp_acted": view.get("fp_acted"),
        "battle": view["battle"], "over": view["over"],
        "winner": view["winner"], "reason": view["reason"]}))
    if state["seats"] > 2:
        state["next"] = dict(view["acting"])
    state["rolled"] = _rolled(seen)
    battle = state["battle"]
    if battle is not None:
        battle.pop("chosen", None)  # the view's own fields: whether each side has chosen
        battle.pop("played", None)  # and whether it laid a card face down
    state["hands"][own] = list(view["hand"])
    for s in SIDES:
        _sample_side(state, view, s, own, rng)
    return state


def _sample_side(state: dict[str, Any], view: dict[str, Any], side: str, own: str,
                 rng: Rng) -> None:
    """Deal ``side``'s unseen cards: every card of a side is in its deck, a hand, its discards
    or the battle, so the counts show whether it chose a card face down; which one and its X
    are drawn from what its legal commands allowed."""
    battle = state["battle"]
    placed = set(state["discards"][side]) | set(state["hands"].get(own, ()))
    if battle is not None:
        placed |= {c for c in battle["cards"].values() if c}
    pool = rng.shuffled(c for c in DECKS[side] if c not in placed)
    keys = [k for k in state["hands"]
            if k != own and seats.side_of(state, seats.seat_of_hand(state, k)) == side]
    held = sum(view["hand_counts"][k] for k in keys)
    chose = len(pool) - view["deck_counts"][side] - held == 1
    for key in keys:
        count = view["hand_counts"][key]
        state["hands"][key], pool = pool[:count], pool[count:]
    if chose:
        extra, pool = pool[0], pool[1:]
        chooser = seats.hand_key(state, battle_seat(state, side))
        state["hands"][chooser].append(extra)
        battle["cards"][side], battle["x"][side] = None, 0
        options = [c for c in combat_legal(state, side) if c["card"]]
        hand = state["hands"][chooser]
        pick = options[rng.below(len(options))] if options else {"card": extra, "x": 0}
        hand.remove(pick["card"])
        battle["cards"][side], battle["x"][side] = pick["card"], pick["x"]
    elif (battle is not None and battle["revealed"] is None and battle["cards"][side] is None
          and view["battle"]["chosen"][side]):
        battle["cards"][side] = ""  # it chose to play no card
    if battle is not None and battle["x"][side] is None:
        battle["x"][side] = 0  # hidden until the reveal; 0 until a card is chosen
    state["decks"][side] = pool


def combat_legal(state: dict[str, Any], side: str) -> list[Command]:
    """The combat cards ``side`` could have chosen in ``state`` (its legal commands then)."""
    return [c for c in battle_legal(state, side) if c["type"] == COMBAT_CARD]


def _rolled(seen: Seen) -> bool:
    """Whether this round's action dice are rolled (the last of a round start and a roll)."""
    for event in reversed(seen.events):
        if event.type in (DICE_ROLLED, ROUND_STARTED):
            return event.type == DICE_ROLLED
    dice = seen.view["dice"]
    return bool(dice[FP] or dice[SH]) or seen.view["action"] is not None


def evaluate(state: dict[str, Any], seat: int) -> float:
    """The seat's chance as a share: its progress towards its VP target against the enemy's,
    and its share of the army strength on the map; its share of the win once the game ends."""
    side = seats.side_of(state, seat)
    enemy = SH if side == FP else FP
    if state["over"]:
        return 1.0 if state["winner"] == side else 0.0
    progress = {s: vp(state, s) / max(state["vp"][s], 1) for s in SIDES}
    strength = {FP: 0.0, SH: 0.0}
    for armies in (state["armies"], state["boxes"]):
        for army in armies.values():
            owner = _side_of(army)
            if owner is not None:
                strength[owner] += _strength(army)
    total = strength[FP] + strength[SH]
    share = strength[side] / total if total else 0.5
    score = 0.5 + 0.35 * (progress[side] - progress[enemy]) + 0.3 * (share - 0.5)
    return min(1.0, max(0.0, score))


def level(name: str) -> Bot:
    """The game's own bot of level ``name`` (KeyError for one the kernel provides)."""
    return {"basic": basic}[name]
