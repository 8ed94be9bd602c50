"""Mag Blast commands (marshmallow schemas), options, event wire names and the state's shape.

State (plain JSON data, folded by rules.evolve)::

    seats, options, races: [race per seat], alive: [bool], out: [seats, first out first],
    fleet_deck, fleet_discard, action_deck, action_discard: [ids, top first],
    hands: [[card ids]], dealt: [[6 ship ids]] | None (setup), placed: {seat: {zone: ship}},
    zones: [{zone: [ship ids]}], under: {ship or race: [[card, damage]]} (damage cards),
    temp: {ship or race: squadron damage this turn}, fired: {ship: [turrets fired this turn]},
    uses: [power uses left], effects: [{card, by, fleet}] (Asteroids / Minefield in play),
    returning: [[card, owner]] (squadrons back to hand at end of turn),
    turn, turn_number, phase: setup|discard|draw|reinforce|maneuver|attack|over,
    started: [bool] (seat has begun a turn), placing: None | {seat, ships, then},
    origins: {ship: zone at the start of the maneuver}, chain: None | chain (see chain.py),
    dh: None | {ship, target, stage: hit|effect}, no_mercy: bool, proposal: None | {by, refused},
    result: None | dict
"""

from __future__ import annotations

import copy
from typing import Any

from marshmallow import Schema, fields, validate

from games.core import ClockOptions, State
from games.magblast.data import RACES, ZONES

# Commands: imperative wire names (STYLE.md rule 5).
PLACE_FLEET = "place_fleet"
DISCARD = "discard"
TRANSFER_BLAST = "transfer_blast"  # Brotherhood of Peace
DRAW = "draw"
SALVAGE_BLASTS = "salvage_blasts"  # Overseers of Kalgon
REINFORCE = "reinforce"  # Tri-Bot: with ``ship`` from the fleet discard
PLACE_SHIP = "place_ship"
END_PHASE = "end_phase"
MOVE = "move"
RAID_HAND = "raid_hand"  # Freep
BLAST = "blast"
MAKE_SOUND = "make_sound"
STAY_SILENT = "stay_silent"
LAUNCH = "launch"
DIRECT_HIT = "direct_hit"
DH_EFFECT = "dh_effect"  # Alpha Mazons: with ``power`` and no Direct Hit before it
PLAY_CARD = "play_card"
SWEEP = "sweep"
END_TURN = "end_turn"
RESPOND = "respond"
CRANIUM = "cranium"  # Cranium Consortium
NO_RESPONSE = "no_response"
PROPOSE_NO_MERCY = "propose_no_mercy"
ACCEPT_NO_MERCY = "accept_no_mercy"
REFUSE_NO_MERCY = "refuse_no_mercy"

# Events: past tense, stable wire names.
GAME_STARTED = "magblast_started"
FLEETS_DEALT = "fleets_dealt"
HANDS_DEALT = "hands_dealt"
FLEET_PLACED = "fleet_placed"
FLEETS_REVEALED = "fleets_revealed"
TURN_STARTED = "turn_started"
EFFECT_EXPIRED = "effect_expired"
PHASE_STARTED = "phase_started"
CARDS_DISCARDED = "cards_discarded"
CARDS_DRAWN = "cards_drawn"
ACTION_DECK_RESHUFFLED = "action_deck_reshuffled"
FLEET_DECK_RESHUFFLED = "fleet_deck_reshuffled"
BLASTS_SALVAGED = "blasts_salvaged"
REINFORCEMENT_PAID = "reinforcement_paid"
FLEET_DRAWN = "fleet_drawn"
SHIP_PLACED = "ship_placed"
SHIP_MOVED = "ship_moved"
HAND_RAIDED = "hand_raided"
CARD_PLAYED = "card_played"
SOUND_MADE = "sound_made"
RESPONSE_MADE = "response_made"
RESPONSE_PASSED = "response_passed"
CARD_CANCELLED = "card_cancelled"
CARD_SETTLED = "card_settled"
BLAST_MISSED = "blast_missed"
DAMAGE_DEALT = "damage_dealt"
DAMAGE_MOVED = "damage_moved"
DAMAGE_REPAIRED = "damage_repaired"
SHIP_DESTROYED = "ship_destroyed"
PLAYER_ELIMINATED = "player_eliminated"
CHAIN_CLOSED = "chain_closed"
DIRECT_HIT_READY = "direct_hit_ready"
SHIP_CAPTURED = "ship_captured"
SHIPS_SCATTERED = "ships_scattered"
EFFECT_PLACED = "effect_placed"
EFFECT_SWEPT = "effect_swept"
POWER_USED = "power_used"
TURN_ENDED = "turn_ended"
NO_MERCY_PROPOSED = "no_mercy_proposed"
NO_MERCY_REFUSED = "no_mercy_refused"
NO_MERCY_AGREED = "no_mercy_agreed"
GAME_ENDED = "game_ended"

ATTACK_MODES = ("free_for_all", "neighbours")
SOUND_MODES = ("off", "on", "strict")
WINDOW_MODES = ("every_eligible",)


class Deal(Schema):
    """A scenario's stacked deal: named components go where said, the rest is shuffled."""

    races = fields.List(fields.String(validate=validate.OneOf(RACES)), load_default=list)
    hands = fields.List(fields.List(fields.String()), load_default=list)
    fleets = fields.List(fields.List(fields.String()), load_default=list)
    action_top = fields.List(fields.String(), load_default=list)
    fleet_top = fields.List(fields.String(), load_default=list)


class MagBlastOptions(ClockOptions):
    """The variants of magblast.md §6 (the decisions block makes each an option)."""

    attack_mode = fields.String(load_default="free_for_all", validate=validate.OneOf(ATTACK_MODES))
    no_mercy = fields.Boolean(load_default=False)
    sound_effects = fields.String(load_default="on", validate=validate.OneOf(SOUND_MODES))
    deal = fields.Nested(Deal, load_default=None, allow_none=True)
    # Which seats a response window asks (chain.py, issue 12): every seat the rules let answer,
    # whatever its hand holds. The only value; a game created before it has no such key and
    # keeps its old windows (only holders asked), so its log still re-runs exactly.
    windows = fields.String(load_default="every_eligible",
                            validate=validate.OneOf(WINDOW_MODES))


_card = fields.String(required=True)
_opt = {"load_default": None, "allow_none": True}


class PlaceFleet(Schema):
    """Setup: one of the six dealt ships face down in each zone."""

    zones = fields.Dict(keys=fields.String(validate=validate.OneOf(ZONES)),
                        values=fields.String(), required=True)


class Cards(Schema):
    """A list of hand cards (discard, salvage, Cranium Consortium)."""

    cards = fields.List(fields.String(), load_default=list)


class TransferBlast(Schema):
    ship = _card
    blast = _card
    target = _card


class Reinforce(Schema):
    cards = fields.List(fields.String(), required=True)
    ship = fields.String(**_opt)


class PlaceShip(Schema):
    ship = _card
    zone = fields.String(required=True, validate=validate.OneOf(ZONES))


class Move(Schema):
    ship = _card
    zone = fields.String(required=True, validate=validate.OneOf(ZONES))


class Raid(Schema):
    seat = fields.Integer(required=True)


class Blast(Schema):
    card = _card
    ship = _card
    target = _card
    sound = fields.String(load_default="", validate=validate.Length(max=200))


class Sound(Schema):
    sound = fields.String(required=True, validate=validate.Length(max=200))


class Launch(Schema):
    card = _card
    carrier = _card
    target = _card


class OneCard(Schema):
    card = _card


class DhEffect(Schema):
    card = _card
    zone = fields.String(validate=validate.OneOf(ZONES), **_opt)
    moves = fields.Dict(keys=fields.String(), values=fields.String(validate=validate.OneOf(ZONES)),
                        **_opt)
    power = fields.Boolean(load_default=False)


class PlayCard(Schema):
    card = _card
    ship = fields.String(**_opt)
    blast = fields.String(**_opt)
    target = fields.String(**_opt)
    seat = fields.Integer(**_opt)


class Sweep(Schema):
    ship = _card
    card = _card


class Nothing(Schema):
    """A command with no arguments."""


COMMANDS: dict[str, type[Schema]] = {
    PLACE_FLEET: PlaceFleet, DISCARD: Cards, TRANSFER_BLAST: TransferBlast, DRAW: Nothing,
    SALVAGE_BLASTS: Cards, REINFORCE: Reinforce, PLACE_SHIP: PlaceShip, END_PHASE: Nothing,
    MOVE: Move, RAID_HAND: Raid, BLAST: Blast, MAKE_SOUND: Sound, STAY_SILENT: Nothing,
    LAUNCH: Launch, DIRECT_HIT: OneCard, DH_EFFECT: DhEffect, PLAY_CARD: PlayCard, SWEEP: Sweep,
    END_TURN: Nothing, RESPOND: OneCard, CRANIUM: Cards, NO_RESPONSE: Nothing,
    PROPOSE_NO_MERCY: Nothing, ACCEPT_NO_MERCY: Nothing, REFUSE_NO_MERCY: Nothing,
}


def clone(state: State) -> dict[str, Any]:
    """A copy of ``state`` deep enough for evolve to mutate (much faster than deepcopy)."""
    out: dict[str, Any] = dict(state)
    for key in ("races", "alive", "out", "fleet_deck", "fleet_discard", "action_deck",
                "action_discard", "started", "uses"):
        out[key] = list(state[key])
    out["hands"] = [list(h) for h in state["hands"]]
    out["dealt"] = None if state["dealt"] is None else [list(d) for d in state["dealt"]]
    out["placed"] = {s: dict(z) for s, z in state["placed"].items()}
    out["zones"] = [{z: list(ships) for z, ships in zones.items()} for zones in state["zones"]]
    out["under"] = {ship: [list(e) for e in cards] for ship, cards in state["under"].items()}
    out["temp"] = dict(state["temp"])
    out["fired"] = {ship: list(t) for ship, t in state["fired"].items()}
    out["effects"] = [dict(e) for e in state["effects"]]
    out["returning"] = [list(r) for r in state["returning"]]
    out["origins"] = dict(state["origins"])
    for key in ("placing", "dh", "proposal"):
        out[key] = copy.deepcopy(state[key])
    if state["chain"] is not None:
        out["chain"] = copy.deepcopy(state["chain"])
    return out
