"""The shapes of Mag Blast's view, result and events (issue 26 item 4), for typed clients."""

from __future__ import annotations

from marshmallow import Schema, fields

from games.shapes import CARD, COUNT, SEAT, Result, by_seat, count_or_cards, pair, pending, viewer


class MagBlastProposal(Schema):
    by = fields.Integer(required=True)
    refused = fields.Boolean(required=True)


class MagBlastViewAllPlacedValue(Schema):
    e = fields.String(required=True)
    n = fields.String(required=True)
    s = fields.String(required=True)
    w = fields.String(required=True)


class MagBlastViewChainLinksItem(Schema):
    action = fields.String(required=True)
    blast = fields.String(allow_none=True)
    card = fields.String(required=True)
    cards = fields.List(fields.String())
    carrier = fields.String()
    damage = fields.Integer()
    effect = fields.String()
    gone = fields.Boolean(required=True)
    moves = fields.Dict(keys=fields.String(), values=fields.String())
    seat = fields.Integer(required=True)
    seat_target = fields.Integer(allow_none=True)
    ship = fields.String(allow_none=True)
    silent = fields.Boolean()
    sound = fields.String()
    squadron = fields.String()
    target = fields.String(allow_none=True)
    target_seat = fields.Integer(allow_none=True)
    turret = fields.String()
    zone = fields.String(allow_none=True)


class MagBlastViewChain(Schema):
    links = fields.List(fields.Nested(MagBlastViewChainLinksItem), required=True)
    passed = fields.List(fields.Integer(), required=True)
    silent = fields.Boolean(required=True)


class MagBlastViewDh(Schema):
    ship = fields.String(required=True)
    stage = fields.String(required=True)
    target = fields.String(required=True)


class MagBlastViewEffectsItem(Schema):
    by = fields.Integer(required=True)
    card = fields.String(required=True)
    fleet = fields.Integer(required=True)


class MagBlastViewMyPlacement(Schema):
    e = fields.String()
    n = fields.String()
    s = fields.String()
    w = fields.String()


class MagBlastViewOptions(Schema):
    attack_mode = fields.String(required=True)
    max_timeouts = fields.Integer(required=True)
    no_mercy = fields.Boolean(required=True)
    reaction_seconds = fields.Integer(required=True)
    sound_effects = fields.String(required=True)
    turn_seconds = fields.Integer(required=True)
    windows = fields.String(required=True)


class MagBlastViewPlacing(Schema):
    count = fields.Integer(required=True)
    seat = fields.Integer(required=True)
    ships = fields.List(fields.String(), required=True)


class MagBlastViewResult(Result):
    reason = fields.String(required=True)


class MagBlastViewZonesItem(Schema):
    e = fields.List(fields.String(), required=True)
    n = fields.List(fields.String(), required=True)
    s = fields.List(fields.String(), required=True)
    w = fields.List(fields.String(), required=True)


class MagBlastView(Schema):
    action_deck = fields.Integer(required=True)
    action_deck_cards = fields.List(fields.String())
    action_discard = fields.List(fields.String(), required=True)
    alive = fields.List(fields.Boolean(), required=True)
    all_dealt = fields.List(fields.List(fields.String()), allow_none=True)
    all_placed = fields.Dict(keys=fields.String(), values=fields.Nested(MagBlastViewAllPlacedValue))
    chain = fields.Nested(MagBlastViewChain, required=True, allow_none=True)
    dealt = fields.List(fields.String(), required=True)
    dh = fields.Nested(MagBlastViewDh, required=True, allow_none=True)
    effects = fields.List(fields.Nested(MagBlastViewEffectsItem), required=True)
    fired = fields.Dict(keys=fields.String(), values=fields.List(fields.String()), required=True)
    fleet_deck = fields.Integer(required=True)
    fleet_deck_cards = fields.List(fields.String())
    fleet_discard = fields.List(fields.String(), required=True)
    hand = fields.List(fields.String(), required=True)
    hand_counts = fields.List(fields.Integer(), required=True)
    hands = fields.List(fields.List(fields.String()))
    my_placement = fields.Nested(MagBlastViewMyPlacement, required=True)
    no_mercy = fields.Boolean(required=True)
    options = fields.Nested(MagBlastViewOptions, required=True)
    origins = fields.Dict(keys=fields.String(), values=fields.String(), required=True)
    out = fields.List(fields.Integer(), required=True)
    pending = pending(required=True)
    phase = fields.String(required=True)
    placed = fields.List(fields.Integer(), required=True)
    placing = fields.Nested(MagBlastViewPlacing, required=True, allow_none=True)
    placing_ships = fields.List(fields.String())
    proposal = fields.Nested(MagBlastProposal, required=True, allow_none=True)
    races = fields.List(fields.String(), required=True)
    result = fields.Nested(MagBlastViewResult, required=True, allow_none=True)
    returning = pair(
        CARD,
        SEAT,
        "Squadrons going back to hand at the end of the turn: [card, owner]",
        required=True,
    )
    seats = fields.Integer(required=True)
    started = fields.List(fields.Boolean(), required=True)
    temp = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True)
    turn = fields.Integer(required=True)
    turn_number = fields.Integer(required=True)
    under = fields.Dict(
        keys=fields.String(),
        values=pair(CARD, COUNT, "Damage cards: [card, damage]"),
        required=True,
        metadata={"description": "Damage cards under each ship or race"},
    )
    uses = fields.List(fields.Integer(allow_none=True), required=True)
    viewer = viewer(required=True)
    zones = fields.List(fields.Nested(MagBlastViewZonesItem), required=True)


class MagBlastResult(Result):
    reason = fields.String(required=True)


class MagBlastActionDeckReshuffled(Schema):
    deck = count_or_cards(required=True)


class MagBlastBlastsSalvaged(Schema):
    cards = fields.List(fields.String(), required=True)
    seat = fields.Integer(required=True)


class MagBlastCardCancelled(Schema):
    by = fields.String(required=True)
    by_seat = fields.Integer(required=True)
    card = fields.String(required=True)
    seat = fields.Integer(required=True)


class MagBlastCardPlayedLink(Schema):
    action = fields.String(required=True)
    blast = fields.String(allow_none=True)
    carrier = fields.String()
    damage = fields.Integer()
    effect = fields.String()
    moves = fields.Dict(keys=fields.String(), values=fields.String())
    seat_target = fields.Integer(allow_none=True)
    ship = fields.String(allow_none=True)
    silent = fields.Boolean()
    sound = fields.String()
    squadron = fields.String()
    target = fields.String(required=True, allow_none=True)
    target_seat = fields.Integer(required=True, allow_none=True)
    turret = fields.String()
    zone = fields.String(allow_none=True)


class MagBlastCardPlayed(Schema):
    card = fields.String(required=True)
    link = fields.Nested(MagBlastCardPlayedLink, required=True)
    seat = fields.Integer(required=True)


class MagBlastCardSettled(Schema):
    card = fields.String(required=True)
    owner = fields.Integer(required=True)
    to = fields.String(required=True)


class MagBlastCardsDiscarded(Schema):
    cards = fields.List(fields.String(), required=True)
    reason = fields.String(required=True)
    seat = fields.Integer(required=True)


class MagBlastCardsDrawn(Schema):
    cards = fields.List(fields.String(), required=True)
    count = fields.Integer()
    reason = fields.String(required=True)
    seat = fields.Integer(required=True)


class MagBlastChainClosed(Schema):
    pass


class MagBlastDamageDealt(Schema):
    card = fields.String(required=True)
    damage = fields.Integer(required=True)
    permanent = fields.Boolean(required=True)
    seat = fields.Integer(required=True)
    target = fields.String(required=True)


class MagBlastDamageMoved(Schema):
    blast = fields.String(required=True)
    seat = fields.Integer(required=True)
    ship = fields.String(required=True)
    target = fields.String(required=True)


class MagBlastDamageRepaired(Schema):
    blast = fields.String(required=True)
    seat = fields.Integer(required=True)
    ship = fields.String(required=True)


class MagBlastDirectHitReady(Schema):
    seat = fields.Integer(required=True)
    ship = fields.String(required=True)
    stage = fields.String(required=True)
    target = fields.String(required=True)


class MagBlastEffectExpired(Schema):
    card = fields.String(required=True)
    fleet = fields.Integer(required=True)


class MagBlastEffectSwept(Schema):
    card = fields.String(required=True)
    fleet = fields.Integer(required=True)
    seat = fields.Integer(required=True)
    ship = fields.String(required=True)


class MagBlastFleetDrawn(Schema):
    count = fields.Integer()
    seat = fields.Integer(required=True)
    ships = fields.List(fields.String(), required=True)
    source = fields.String(required=True)
    then = fields.String(required=True)


class MagBlastFleetPlaced(Schema):
    seat = fields.Integer(required=True)
    zones = fields.Nested(MagBlastViewAllPlacedValue, required=True, allow_none=True)


class MagBlastFleetsDealt(Schema):
    counts = fields.List(fields.Integer())
    ships = fields.List(fields.List(fields.String()), required=True)


class MagBlastFleetsRevealed(Schema):
    discarded = fields.List(fields.List(fields.String()), required=True)
    zones = fields.List(fields.Nested(MagBlastViewAllPlacedValue), required=True)


class MagBlastHandRaided(Schema):
    cards = fields.List(fields.String(), required=True)
    count = fields.Integer()
    reason = fields.String(required=True)
    seat = fields.Integer(required=True)
    target = fields.Integer(required=True)


class MagBlastHandsDealt(Schema):
    counts = fields.List(fields.Integer())
    hands = fields.List(fields.List(fields.String()), required=True)


class MagBlastMagblastStarted(Schema):
    action_deck = count_or_cards(required=True)
    fleet_deck = count_or_cards(required=True)
    options = fields.Nested(MagBlastViewOptions, required=True)
    races = fields.List(fields.String(), required=True)
    seats = fields.Integer(required=True)


class MagBlastPhaseStarted(Schema):
    phase = fields.String(required=True)
    seat = fields.Integer(required=True)


class MagBlastPlayerEliminated(Schema):
    cards = fields.List(fields.String(), required=True)
    effects = fields.List(fields.String(), required=True)
    hand = fields.List(fields.String(), required=True)
    returning = pair(CARD, SEAT, "Squadrons going back to hand: [card, owner]", required=True)
    seat = fields.Integer(required=True)
    ships = fields.List(fields.String(), required=True)


class MagBlastPowerUsed(Schema):
    power = fields.String(required=True)
    seat = fields.Integer(required=True)


class MagBlastResponseMade(Schema):
    action = fields.String(required=True)
    card = fields.String(required=True, allow_none=True)
    cards = fields.List(fields.String(), required=True)
    seat = fields.Integer(required=True)


class MagBlastSeatActed(Schema):
    seat = fields.Integer(required=True)


class MagBlastShipCaptured(Schema):
    from_seat = fields.Integer(required=True)
    seat = fields.Integer(required=True)
    ship = fields.String(required=True)
    zone = fields.String(required=True)


class MagBlastShipDestroyed(Schema):
    cards = fields.List(fields.String(), required=True)
    reason = fields.String(required=True)
    seat = fields.Integer(required=True)
    ship = fields.String(required=True)


class MagBlastShipMoved(Schema):
    origin = fields.String(required=True)
    seat = fields.Integer(required=True)
    ship = fields.String(required=True)
    zone = fields.String(required=True)


class MagBlastShipPlaced(Schema):
    discarded = fields.List(fields.String(), required=True)
    seat = fields.Integer(required=True)
    ship = fields.String(required=True)
    zone = fields.String(required=True)


class MagBlastShipsScattered(Schema):
    fleet = fields.Integer(required=True)
    moves = fields.Dict(keys=fields.String(), values=fields.String(), required=True)
    seat = fields.Integer(required=True)


class MagBlastTurnEnded(Schema):
    returning = pair(
        CARD,
        SEAT,
        "Squadrons going back to hand at the end of the turn: [card, owner]",
        required=True,
    )
    seat = fields.Integer(required=True)


class MagBlastTurnStarted(Schema):
    hulls = fields.List(fields.Integer())
    phase = fields.String(required=True)
    seat = fields.Integer(required=True)
    tied = fields.List(fields.Integer())
    turn = fields.Integer(required=True)


# Events random play with the default options does not reach (sound effects, No Mercy).
class MagBlastSoundMade(Schema):
    seat = fields.Integer(required=True)
    sound = fields.String(required=True)


class MagBlastBlastMissed(Schema):
    seat = fields.Integer(required=True)
    card = fields.String(required=True)
    reason = fields.String(required=True)


class MagBlastNoMercyAgreed(Schema):
    seat = fields.Integer(required=True)
    first = fields.Integer(required=True)
    hulls = by_seat(fields.Integer(), required=True)


VIEW = MagBlastView
RESULT = MagBlastResult


EVENTS = {
    "action_deck_reshuffled": MagBlastActionDeckReshuffled,
    "blast_missed": MagBlastBlastMissed,
    "blasts_salvaged": MagBlastBlastsSalvaged,
    "card_cancelled": MagBlastCardCancelled,
    "card_played": MagBlastCardPlayed,
    "card_settled": MagBlastCardSettled,
    "cards_discarded": MagBlastCardsDiscarded,
    "cards_drawn": MagBlastCardsDrawn,
    "chain_closed": MagBlastChainClosed,
    "damage_dealt": MagBlastDamageDealt,
    "damage_moved": MagBlastDamageMoved,
    "damage_repaired": MagBlastDamageRepaired,
    "direct_hit_ready": MagBlastDirectHitReady,
    "effect_expired": MagBlastEffectExpired,
    "effect_placed": MagBlastViewEffectsItem,
    "effect_swept": MagBlastEffectSwept,
    "fleet_deck_reshuffled": MagBlastActionDeckReshuffled,
    "fleet_drawn": MagBlastFleetDrawn,
    "fleet_placed": MagBlastFleetPlaced,
    "fleets_dealt": MagBlastFleetsDealt,
    "fleets_revealed": MagBlastFleetsRevealed,
    "game_ended": MagBlastViewResult,
    "hand_raided": MagBlastHandRaided,
    "hands_dealt": MagBlastHandsDealt,
    "magblast_started": MagBlastMagblastStarted,
    "no_mercy_agreed": MagBlastNoMercyAgreed,
    "no_mercy_proposed": MagBlastSeatActed,
    "no_mercy_refused": MagBlastSeatActed,
    "phase_started": MagBlastPhaseStarted,
    "player_eliminated": MagBlastPlayerEliminated,
    "power_used": MagBlastPowerUsed,
    "reinforcement_paid": MagBlastBlastsSalvaged,
    "response_made": MagBlastResponseMade,
    "response_passed": MagBlastSeatActed,
    "ship_captured": MagBlastShipCaptured,
    "ship_destroyed": MagBlastShipDestroyed,
    "ship_moved": MagBlastShipMoved,
    "ship_placed": MagBlastShipPlaced,
    "ships_scattered": MagBlastShipsScattered,
    "sound_made": MagBlastSoundMade,
    "turn_ended": MagBlastTurnEnded,
    "turn_started": MagBlastTurnStarted,
}
