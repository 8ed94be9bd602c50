"""What a card does once its chain resolves and nothing cancelled it (magblast.md §4b, §5)."""

from __future__ import annotations

from typing import Any

from games.magblast.data import SHIPS, ZONES
from games.magblast.model import (
    CARD_SETTLED,
    DAMAGE_DEALT,
    DAMAGE_REPAIRED,
    DIRECT_HIT_READY,
    EFFECT_PLACED,
    HAND_RAIDED,
    SHIP_CAPTURED,
    SHIPS_SCATTERED,
)
from games.magblast.table import (
    Draft,
    destroy,
    destroy_if_dead,
    draw_actions,
    draw_fleet,
    eliminate,
    locate,
    open_zones,
    over,
    race,
)

SQUADRON_DAMAGE = {"fighter": 2, "bomber": 4}


def _settle(draft: Draft, link: dict[str, Any], to: str) -> None:
    draft.emit(CARD_SETTLED, card=link["card"], to=to, owner=link["seat"])


def resolve_base(draft: Draft, link: dict[str, Any]) -> None:
    """The card at the bottom of the chain takes effect."""
    action = link["action"]
    target = link.get("target")
    where = locate(draft.state, target) if target else None
    if action in ("blast", "ramming"):
        if where is None:
            _settle(draft, link, "discard")
            return
        # KR 피해 처리: the card goes under the target with its damage showing.
        draft.emit(DAMAGE_DEALT, seat=link["seat"], card=link["card"], target=target,
                   damage=link["damage"], permanent=True)
        destroy_if_dead(draft, target)
        if (action == "blast" and not over(draft.state)
                and locate(draft.state, target) is not None
                and locate(draft.state, link["ship"]) is not None):
            draft.emit(DIRECT_HIT_READY, seat=link["seat"], ship=link["ship"], target=target,
                       stage="hit")
    elif action == "launch":
        amount = SQUADRON_DAMAGE[link["squadron"]]
        if where is not None:
            if target in SHIPS and race(draft.state, where[0]) == "glorp":
                amount //= 2  # The Glorp: half squadron damage on its fleet ships (§2 #2)
            draft.emit(DAMAGE_DEALT, seat=link["seat"], card=link["card"], target=target,
                       damage=amount, permanent=False)
        _settle(draft, link, "returning")  # KR: launched squadrons return at the end of turn
        if where is not None:
            destroy_if_dead(draft, target)
    elif action == "direct_hit":
        _settle(draft, link, "discard")
        if where is not None and locate(draft.state, link["ship"]) is not None:
            draft.emit(DIRECT_HIT_READY, seat=link["seat"], ship=link["ship"], target=target,
                       stage="effect")
    elif action == "dh_effect":
        _settle(draft, link, "discard")
        if where is not None:
            _dh_effect(draft, link, where[0], where[1])
    else:
        _misc(draft, link)


def _dh_effect(draft: Draft, link: dict[str, Any], owner: int, zone: str | None) -> None:
    effect, target, seat = link["effect"], link["target"], link["seat"]
    if effect == "catastrophic_damage":
        if zone is None:
            eliminate(draft, owner)
        else:
            destroy(draft, owner, target, "catastrophic_damage")
    elif effect == "boarding_party":
        free = open_zones(draft.state, seat)
        to = link["zone"] if link["zone"] in free else (free[0] if free else None)
        if zone is not None and to is not None:
            draft.emit(SHIP_CAPTURED, seat=seat, ship=target, from_seat=owner, zone=to)
    elif effect == "concussive_blast":
        if zone is not None:
            ships = draft.state["zones"][owner][zone]
            moves = {ship: link["moves"].get(ship, zone) for ship in ships}
            draft.emit(SHIPS_SCATTERED, seat=seat, fleet=owner, moves=moves)
    elif effect == "bridge_hit":
        hand = draft.state["hands"][owner]
        taken = draft.rng.shuffled(hand)[:3]
        if taken:
            draft.emit(HAND_RAIDED, seat=seat, target=owner, cards=taken, reason="bridge_hit")


def _misc(draft: Draft, link: dict[str, Any]) -> None:
    effect, seat = link["effect"], link["seat"]
    if effect in ("asteroids", "minefield"):
        if draft.state["alive"][link["seat_target"]]:
            draft.emit(EFFECT_PLACED, card=link["card"], by=seat, fleet=link["seat_target"])
        else:
            _settle(draft, link, "discard")
        return
    _settle(draft, link, "discard")
    if effect == "reinforcements":
        if open_zones(draft.state, seat):
            draw_fleet(draft, seat, then="attack")
    elif effect == "strategic_allocation":
        draw_actions(draft, seat, 3, "strategic_allocation")
    elif effect == "spacedock":
        ship, blast = link["ship"], link["blast"]
        if blast in [c for c, _ in draft.state["under"].get(ship, ())]:
            draft.emit(DAMAGE_REPAIRED, seat=seat, ship=ship, blast=blast)


def scatter_ok(counts: dict[str, int], zone: str, moves: dict[str, str],
               ships: list[str]) -> bool:
    """Concussive Blast: every ship of the zone moved somewhere in the same fleet, 3 at most."""
    if set(moves) != set(ships) or any(z not in ZONES for z in moves.values()):
        return False
    after_move = dict(counts)
    after_move[zone] -= len(ships)
    for z in moves.values():
        after_move[z] += 1
    return all(n <= 3 for n in after_move.values())
