"""Phase 5, attack: Blasts, Squadrons, Direct Hits and their effects, the other action cards,
minesweeping (KR 5단계 : 공격; magblast.md §3a, §4b). Each check is one ``ensure`` with a stable
code, and each card played goes through the response chain (chain.py)."""

from __future__ import annotations

from typing import Any

from games.core import Rejected, Seat, State, Text, ensure
from games.magblast import chain
from games.magblast.data import (
    ACTIONS,
    ATTACK_MISC,
    BLAST_KINDS,
    DH_EFFECTS,
    SHIPS,
    SQUADRON_KINDS,
    kind,
)
from games.magblast.effects import SQUADRON_DAMAGE, scatter_ok
from games.magblast.model import CARD_PLAYED, EFFECT_SWEPT, POWER_USED
from games.magblast.table import (
    Draft,
    attackable,
    can_draw_fleet,
    destroy,
    has_power,
    is_carrier,
    is_minesweeper,
    locate,
    open_zones,
    speed,
    under_effect,
    zone_counts,
)


def _in_hand(state: State, seat: Seat, card: str, kinds: tuple[str, ...], what: str) -> None:
    ensure(card in state["hands"][seat], "card_not_in_hand", "That card is not in your hand.",
           card=card)
    ensure(kind(card) in kinds, "wrong_card", "That card is not {what}.", card=card,
           params={"what": what})


def _own_ship(state: State, seat: Seat, ship: str) -> str:
    where = locate(state, ship)
    ensure(where is not None and where[0] == seat and where[1] is not None, "not_your_ship",
           "That is not a ship of your fleet.", ship=ship)
    return where[1]


def _target(state: State, seat: Seat, target: str) -> tuple[Seat, str | None]:
    """An enemy ship this seat may attack with Blasts or Squadrons (§6.1, Asteroids)."""
    where = locate(state, target)
    ensure(where is not None, "no_such_target", "There is no such ship in play.", target=target)
    owner = where[0]
    ensure(owner != seat, "own_ship", "You cannot attack your own fleet.")
    ensure(attackable(state, seat, owner), "neighbours_only",
           "The anti-massacre rule: attack only your left or right neighbour.", seat=owner)
    ensure(not under_effect(state, owner, "asteroids"), "asteroids",
           "Asteroids shield that fleet from Blasts and Squadrons.", seat=owner)
    return where


def _reach(state: State, zone: str, target: str, owner: Seat, tzone: str | None) -> None:
    """KR 함포 발사: same-coloured zone; the command ship only through that zone left empty."""
    if tzone is None:
        ensure(not state["zones"][owner][zone], "command_ship_covered",
               "The command ship can only be hit through an empty zone.", zone=zone)
    else:
        ensure(tzone == zone, "wrong_zone",
               "A ship may only fire at the same-coloured zone of an enemy fleet.",
               zone=zone, target_zone=tzone)


def may_fire(state: State, seat: Seat, ship: str, turret: str) -> bool:
    """One Blast per ship per turn; under No Mercy one per turret (§6.2)."""
    fired = state["fired"].get(ship, [])
    return turret not in fired if state["no_mercy"] else not fired


def blast(draft: Draft, seat: Seat, card: str, ship: str, target: str, sound: str) -> None:
    state = draft.state
    _in_hand(state, seat, card, BLAST_KINDS, "a Blast")
    zone = _own_ship(state, seat, ship)
    turret = ACTIONS[card].turret
    ensure(turret in SHIPS[ship].turrets, "no_matching_turret",
           "That ship has no {turret} turret.", ship=ship, turret=turret)
    dh = state["dh"]
    extra = dh is not None and dh["stage"] == "effect" and dh["ship"] == ship
    if extra:
        # magblast.md §4b Direct Hit: one more Blast from the same ship at the same target.
        ensure(dh["target"] == target, "same_target_only",
               "The extra Blast of a Direct Hit goes at the same target.")
    else:
        ensure(may_fire(state, seat, ship, turret), "already_fired",
               "That ship has already fired this turn.", ship=ship)
    ensure(not under_effect(state, seat, "minefield"), "minefield",
           "Your fleet is in a Minefield: it cannot fire.")
    owner, tzone = _target(state, seat, target)
    _reach(state, zone, target, owner, tzone)
    mode = state["options"]["sound_effects"]
    silent = mode != "off" and not sound.strip()
    chain.play(draft, seat, card, action="blast", ship=ship, turret=turret, target=target,
               target_seat=owner, damage=ACTIONS[card].damage, silent=silent,
               sound=sound)
    if silent and mode == "strict":
        chain.miss(draft, seat, "no_sound")


def launch(draft: Draft, seat: Seat, card: str, carrier: str, target: str) -> None:
    """KR 비행대 발진: Fighters hit any zone, Bombers the carrier's zone; any number per turn."""
    state = draft.state
    _in_hand(state, seat, card, SQUADRON_KINDS, "a Squadron")
    zone = _own_ship(state, seat, carrier)
    ensure(is_carrier(state, seat, carrier), "not_a_carrier", "Squadrons launch from carriers.",
           ship=carrier)
    ensure(not under_effect(state, seat, "minefield"), "minefield",
           "Your fleet is in a Minefield: it cannot launch Squadrons.")
    owner, tzone = _target(state, seat, target)
    squadron = kind(card)
    if squadron == "bomber":
        _reach(state, zone, target, owner, tzone)
    elif tzone is None:
        ensure(any(not state["zones"][owner][z] for z in state["zones"][owner]),
               "command_ship_covered",
               "A Fighter reaches the command ship only when one of its zones is empty.")
    chain.play(draft, seat, card, action="launch", carrier=carrier, target=target,
               target_seat=owner, squadron=squadron, damage=SQUADRON_DAMAGE[squadron])


def direct_hit(draft: Draft, seat: Seat, card: str) -> None:
    state = draft.state
    _in_hand(state, seat, card, ("direct_hit",), "a Direct Hit")
    dh = state["dh"]
    ensure(dh is not None and dh["stage"] == "hit", "no_blast_hit",
           "A Direct Hit must follow at once a Blast of yours that hit.")
    owner = locate(state, dh["target"])[0]
    chain.play(draft, seat, card, action="direct_hit", ship=dh["ship"], target=dh["target"],
               target_seat=owner)


# The fields each card's play uses (magblast.md §4b); a field another card would use is refused
# (issue 23 item 12): a command carries only its own fields, so what was checked is what it says.
_DH_FIELDS = {"boarding_party": ("zone",), "concussive_blast": ("moves",)}
_MISC_FIELDS = {"spacedock": ("ship", "blast"), "ramming_speed": ("ship", "target"),
                "asteroids": ("seat",), "minefield": ("seat",)}


def _only_own_fields(card: str, args: dict[str, Any], optional: tuple[str, ...],
                     own: tuple[str, ...]) -> None:
    stray = [name for name in optional if name not in own and args.get(name) is not None]
    if stray:
        not_its = Text("Not a field of {card}.", card=card)
        raise Rejected("invalid_command", "{card} takes no {stray}.",
                       {"fields": {name: [not_its] for name in stray}},
                       {"card": card, "stray": ", ".join(stray)})


def dh_effect(draft: Draft, seat: Seat, card: str, zone: str | None,
              moves: dict[str, str] | None, power: bool) -> None:
    state = draft.state
    _in_hand(state, seat, card, DH_EFFECTS, "a Direct Hit Effect")
    _only_own_fields(card, {"zone": zone, "moves": moves}, ("zone", "moves"),
                     _DH_FIELDS.get(kind(card), ()))
    dh = state["dh"]
    if power:
        # Alpha Mazons (§2 #3): the effect right after a Blast hits, without a Direct Hit.
        ensure(has_power(state, seat, "mazons"), "no_power", "You have no such power left.")
        ensure(dh is not None and dh["stage"] == "hit", "no_blast_hit",
               "The Alpha Mazons' power follows at once a Blast of yours that hit.")
    else:
        ensure(dh is not None and dh["stage"] == "effect", "no_direct_hit",
               "A Direct Hit Effect follows a Direct Hit that stood.")
    target = dh["target"]
    owner, tzone = locate(state, target)
    effect = kind(card)
    if effect in ("boarding_party", "concussive_blast"):
        ensure(tzone is not None, "not_a_fleet_ship", "That works on fleet ships only.")
    if effect == "boarding_party":
        ensure(zone is not None, "zone_required", "Name the zone the captured ship goes to.")
        ensure(zone in open_zones(state, seat), "zone_full", "That zone of yours is full.",
               zone=zone)
    if effect == "concussive_blast":
        ensure(moves is not None and scatter_ok(zone_counts(state, owner), tzone, moves,
                                                state["zones"][owner][tzone]),
               "bad_moves", "Move every ship of that zone to a zone of the same fleet, 3 at most "
               "per zone.")
    if power:
        draft.emit(POWER_USED, seat=seat, power="mazons")
    chain.play(draft, seat, card, action="dh_effect", effect=effect, target=target,
               target_seat=owner, zone=zone, moves=moves or {})


def play_card(draft: Draft, seat: Seat, card: str, args: dict[str, Any]) -> None:
    """The other attack-phase action cards (magblast.md §4b, Misc)."""
    state = draft.state
    _in_hand(state, seat, card, ATTACK_MISC, "an attack-phase card")
    effect = kind(card)
    _only_own_fields(card, args, ("ship", "blast", "target", "seat"),
                     _MISC_FIELDS.get(effect, ()))
    link: dict[str, Any] = {"action": "misc", "effect": effect, "ship": None, "blast": None,
                            "target": None, "target_seat": None, "seat_target": None}
    if effect == "reinforcements":
        ensure(bool(open_zones(state, seat)), "fleet_full", "Every zone of yours holds 3 ships.")
        ensure(can_draw_fleet(state), "fleet_deck_empty", "There is no fleet ship to draw.")
    elif effect == "spacedock":
        ship = args.get("ship") or ""
        _own_ship(state, seat, ship)
        ensure(args.get("blast") in [c for c, _ in state["under"].get(ship, ())], "no_such_damage",
               "That damage card is not under that ship.")
        link.update(ship=ship, blast=args["blast"])
    elif effect == "ramming_speed":
        ship, target = args.get("ship") or "", args.get("target") or ""
        zone = _own_ship(state, seat, ship)
        ensure(not under_effect(state, seat, "minefield"), "minefield",
               "Your fleet is in a Minefield: it cannot fire.")
        owner, tzone = _target(state, seat, target)
        _reach(state, zone, target, owner, tzone)
        link.update(action="ramming", ship=ship, target=target, target_seat=owner,
                    damage=speed(ship))
    elif effect in ("asteroids", "minefield"):
        at = args.get("seat")
        ensure(at is not None and 0 <= at < state["seats"] and state["alive"][at],
               "no_such_seat", "Name a fleet still in play.", seat=at)
        link.update(seat_target=at)
    if effect == "ramming_speed":
        # The rammer is sacrificed as the card is played; its damage is its speed (§4b).
        draft.emit(CARD_PLAYED, seat=seat, card=card, link=link)
        destroy(draft, seat, link["ship"], "rammed")
        chain.advance(draft)
        return
    chain.play(draft, seat, card, **link)


def sweep(draft: Draft, seat: Seat, ship: str, card: str) -> None:
    """magblast.md §3a: a minesweeper that has not fired discards an Asteroids or Minefield on
    your fleet or one you may target; that is its fire for the turn."""
    state = draft.state
    _own_ship(state, seat, ship)
    ensure(is_minesweeper(state, seat, ship), "not_a_minesweeper", "That ship cannot sweep.")
    ensure(not state["fired"].get(ship), "already_fired", "That ship has already fired.")
    effect = next((e for e in state["effects"] if e["card"] == card), None)
    ensure(effect is not None, "no_such_effect", "That card is not in play.", card=card)
    ensure(effect["fleet"] == seat or attackable(state, seat, effect["fleet"]), "out_of_reach",
           "You may sweep your own fleet or one you may attack.")
    draft.emit(EFFECT_SWEPT, seat=seat, ship=ship, card=card, fleet=effect["fleet"])
