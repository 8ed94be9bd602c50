"""The shapes of Faker Blue's view, result and events (issue 26 item 4), for typed clients."""

from __future__ import annotations

from marshmallow import Schema, fields

from games.shapes import Result, count_or_cards, pending, viewer


class FakerBlueViewOptionsAmounts(Schema):
    alchemist = fields.Integer(required=True)
    assassin = fields.Integer(required=True)
    bomber = fields.Integer(required=True)
    fire_dragon = fields.Integer(required=True)
    high_priest = fields.Integer(required=True)
    priest = fields.Integer(required=True)
    vampire = fields.Integer(required=True)
    vampire_king = fields.Integer(required=True)


class FakerBlueViewOptionsCounts(Schema):
    alchemist = fields.Integer(required=True)
    assassin = fields.Integer(required=True)
    bomber = fields.Integer(required=True)
    clown = fields.Integer(required=True)
    fire_dragon = fields.Integer(required=True)
    high_priest = fields.Integer(required=True)
    priest = fields.Integer(required=True)
    shield_bearer = fields.Integer(required=True)
    vampire = fields.Integer(required=True)
    vampire_king = fields.Integer(required=True)
    wizard = fields.Integer(required=True)


class FakerBlueViewOptions(Schema):
    amounts = fields.Nested(FakerBlueViewOptionsAmounts, required=True)
    beginner = fields.Boolean(required=True)
    challenger_penalty = fields.Integer(required=True)
    counts = fields.Nested(FakerBlueViewOptionsCounts, required=True)
    health = fields.Integer(required=True)
    liar_penalty = fields.Integer(required=True)
    max_timeouts = fields.Integer(required=True)
    reaction_seconds = fields.Integer(required=True)
    supply = fields.Integer(required=True)
    turn_seconds = fields.Integer(required=True)
    values = fields.Nested(FakerBlueViewOptionsCounts, required=True)


class FakerBlueViewPeekedItem(Schema):
    card = fields.String(required=True)
    seat = fields.Integer(required=True)


class FakerBlueViewPlayCardsItem(Schema):
    card = fields.String(required=True, allow_none=True)
    challenger = fields.Integer(required=True, allow_none=True)
    declared = fields.String(required=True)
    declined = fields.List(fields.Integer(), required=True)
    hit = fields.Integer(required=True, allow_none=True)
    owner = fields.Integer(required=True)
    redirect = fields.Integer(required=True, allow_none=True)
    slot = fields.Integer(required=True)
    truthful = fields.Boolean(required=True, allow_none=True)


class FakerBlueViewPlayHitsItem(Schema):
    declined = fields.Boolean(required=True)
    defence = fields.Integer(required=True, allow_none=True)
    id = fields.Integer(required=True)
    parent = fields.Integer(required=True, allow_none=True)
    source = fields.Integer(required=True)
    target = fields.Integer(required=True)


class FakerBlueViewPlay(Schema):
    attacker = fields.Integer(required=True)
    cards = fields.List(fields.Nested(FakerBlueViewPlayCardsItem), required=True)
    declared = fields.String(required=True)
    defence_open = fields.Boolean(required=True)
    hits = fields.List(fields.Nested(FakerBlueViewPlayHitsItem), required=True)
    passed = fields.List(fields.Integer(), required=True)  # rules version 1 only
    target = fields.Integer(required=True, allow_none=True)


class FakerBlueViewResultTiebreakItem(Schema):
    hand = fields.List(fields.String(), required=True)
    health = fields.Integer(required=True)
    seat = fields.Integer(required=True)
    value = fields.Integer(required=True)


class FakerBlueViewResult(Result):
    reason = fields.String(required=True)
    tiebreak = fields.List(fields.Nested(FakerBlueViewResultTiebreakItem), required=True)


class FakerBlueView(Schema):
    alive = fields.List(fields.Boolean(), required=True)
    box = fields.Integer(required=True)
    deck = fields.Integer(required=True)
    deck_cards = fields.List(fields.String())
    first = fields.Integer(required=True)
    hand = fields.List(fields.String(), required=True)
    hand_counts = fields.List(fields.Integer(), required=True)
    hands = fields.List(fields.List(fields.String()))
    health = fields.List(fields.Integer(), required=True)
    hidden = fields.Integer(required=True)
    hidden_cards = fields.List(fields.String())
    options = fields.Nested(FakerBlueViewOptions, required=True)
    out = fields.List(fields.List(fields.Integer()), required=True)
    peeked = fields.List(fields.Nested(FakerBlueViewPeekedItem), required=True)
    pending = pending(required=True)
    play = fields.Nested(FakerBlueViewPlay, required=True, allow_none=True)
    public = fields.List(fields.String(), required=True)
    result = fields.Nested(FakerBlueViewResult, required=True, allow_none=True)
    seats = fields.Integer(required=True)
    step = fields.String(required=True)
    supply = fields.Integer(required=True)
    turn = fields.Integer(required=True)
    turn_number = fields.Integer(required=True)
    viewer = viewer(required=True)


class FakerBlueResult(Result):
    reason = fields.String(required=True)
    tiebreak = fields.List(fields.Nested(FakerBlueViewResultTiebreakItem), required=True)


class FakerBlueCardDrawn(Schema):
    card = fields.String(required=True, allow_none=True)
    reason = fields.String(required=True)
    seat = fields.Integer(required=True)


class FakerBlueCardInspected(Schema):
    card = fields.String(required=True, allow_none=True)
    seat = fields.Integer(required=True)
    target = fields.Integer(required=True)


class FakerBlueCardRevealed(Schema):
    card = fields.String(required=True)
    challenger = fields.Integer(required=True)
    declared = fields.String(required=True)
    owner = fields.Integer(required=True)
    slot = fields.Integer(required=True)
    truthful = fields.Boolean(required=True)


class FakerBlueCardUsed(Schema):
    card = fields.String(required=True, allow_none=True)
    declared = fields.String(required=True)
    seat = fields.Integer(required=True)
    target = fields.Integer(required=True, allow_none=True)
    targets = fields.List(fields.Integer(), required=True)


class FakerBlueCardsDealt(Schema):
    counts = fields.List(fields.Integer())
    hand = fields.List(fields.String())
    hands = fields.List(fields.List(fields.String()))


class FakerBlueCardsDiscarded(Schema):
    hidden = count_or_cards(required=True)
    public = fields.List(fields.String(), required=True)


class FakerBlueChallengeMade(Schema):
    seat = fields.Integer(required=True)
    slot = fields.Integer(required=True)


class FakerBlueDefenceDeclared(Schema):
    card = fields.String(required=True, allow_none=True)
    declared = fields.String(required=True)
    hit = fields.Integer(required=True)
    redirect = fields.Integer(required=True, allow_none=True)
    seat = fields.Integer(required=True)
    slot = fields.Integer(required=True)


class FakerBlueDefenceDeclined(Schema):
    hit = fields.Integer(required=True)
    seat = fields.Integer(required=True)


class FakerBlueFakerBlueStarted(Schema):
    deck = count_or_cards(required=True)
    first = fields.Integer(required=True)
    options = fields.Nested(FakerBlueViewOptions, required=True)
    seats = fields.Integer(required=True)


class FakerBlueHealthGained(Schema):
    amount = fields.Integer(required=True)
    reason = fields.String(required=True)
    seat = fields.Integer(required=True)


class FakerBlueHealthStolen(Schema):
    amount = fields.Integer(required=True)
    by = fields.Integer(required=True)
    seat = fields.Integer(required=True)


class FakerBluePlayersEliminated(Schema):
    cards = fields.List(count_or_cards(), required=True)
    seats = fields.List(fields.Integer(), required=True)


class FakerBlueTurnStarted(Schema):
    seat = fields.Integer(required=True)
    turn = fields.Integer(required=True)


VIEW = FakerBlueView
RESULT = FakerBlueResult


EVENTS = {
    "card_drawn": FakerBlueCardDrawn,
    "card_inspected": FakerBlueCardInspected,
    "card_revealed": FakerBlueCardRevealed,
    "card_used": FakerBlueCardUsed,
    "cards_dealt": FakerBlueCardsDealt,
    "cards_discarded": FakerBlueCardsDiscarded,
    "challenge_made": FakerBlueChallengeMade,
    "challenge_passed": FakerBlueChallengeMade,
    "defence_declared": FakerBlueDefenceDeclared,
    "defence_declined": FakerBlueDefenceDeclined,
    "faker_blue_started": FakerBlueFakerBlueStarted,
    "game_ended": FakerBlueViewResult,
    "health_gained": FakerBlueHealthGained,
    "health_lost": FakerBlueHealthGained,
    "health_stolen": FakerBlueHealthStolen,
    "players_eliminated": FakerBluePlayersEliminated,
    "turn_started": FakerBlueTurnStarted,
}
