"""The shapes of Loot's view, result and events (issue 26 item 4), for typed clients."""

from __future__ import annotations

from marshmallow import Schema, fields

from games.shapes import CARD, SEAT, Result, by_seat, pair, viewer


class LootViewOptions(Schema):
    empty_deck_mode = fields.String(required=True)
    end_requires_play = fields.Boolean(required=True)
    team_capture = fields.String(required=True)


class LootViewShipsItem(Schema):
    capturer = fields.Integer(required=True, allow_none=True)
    colours = fields.List(fields.String(allow_none=True), required=True)
    gold = fields.Integer(required=True)
    leader = fields.Integer(required=True, allow_none=True)
    merchant = fields.String(required=True)
    owner = fields.Integer(required=True)
    plays = pair(SEAT, CARD, "The cards played on it, oldest first: [seat, card]", required=True)
    strengths = fields.List(fields.Integer(), required=True)
    trump = fields.Integer(required=True, allow_none=True)


class LootTeam(Schema):
    seats = fields.List(fields.Integer(), required=True)
    score = fields.Integer(required=True)


class LootResult(Result):
    # loot.md §9: with teams, each team's seats and gold, keyed by the team number.
    teams = by_seat(fields.Nested(LootTeam))


class LootView(Schema):
    deck = fields.List(fields.String())
    deck_count = fields.Integer(required=True)
    discard = fields.List(fields.String(), required=True)
    hand = fields.List(fields.String(), required=True, allow_none=True)
    hand_counts = fields.List(fields.Integer(), required=True)
    hands = fields.List(fields.List(fields.String()))
    options = fields.Nested(LootViewOptions, required=True)
    over = fields.Boolean(required=True)
    result = fields.Nested(LootResult)
    seats = fields.Integer(required=True)
    ships = fields.List(fields.Nested(LootViewShipsItem), required=True)
    side_of = fields.List(fields.Integer(), required=True)
    sides = fields.Integer(required=True)
    teams = fields.Boolean(required=True)
    turn = fields.Integer(required=True, allow_none=True)
    viewer = viewer(required=True)
    won = fields.List(fields.String())
    won_all = fields.List(fields.List(fields.String()))
    won_counts = fields.List(fields.Integer(), required=True)


class LootAttackPlayed(Schema):
    card = fields.String(required=True)
    merchant = fields.String(required=True)
    seat = fields.Integer(required=True)


class LootCardPlayed(Schema):
    card = fields.String(required=True)
    seat = fields.Integer(required=True)


class LootCardDrawn(Schema):
    card = fields.String()
    seat = fields.Integer(required=True)


class LootGameEnded(Schema):
    unclaimed = fields.List(fields.String(), required=True)


class LootLootStartedOptions(Schema):
    empty_deck_mode = fields.String(required=True)
    end_requires_play = fields.Boolean(required=True)
    team_capture = fields.String(required=True)
    teams = fields.Boolean(required=True)


class LootLootStarted(Schema):
    deck = fields.List(fields.String())
    deck_count = fields.Integer()
    first = fields.Integer(required=True)
    hand = fields.List(fields.String())
    hand_counts = fields.List(fields.Integer())
    hands = fields.List(fields.List(fields.String()))
    options = fields.Nested(LootLootStartedOptions, required=True)
    seats = fields.Integer(required=True)


class LootMerchantCaptured(Schema):
    cards = fields.List(fields.String(), required=True)
    merchant = fields.String(required=True)
    seat = fields.Integer(required=True)


class LootSeatEvent(Schema):
    seat = fields.Integer(required=True)


VIEW = LootView
RESULT = LootResult


EVENTS = {
    "admiral_played": LootAttackPlayed,
    "captain_played": LootAttackPlayed,
    "card_discarded": LootCardPlayed,
    "card_drawn": LootCardDrawn,
    "discard_taken": LootCardPlayed,
    "game_ended": LootGameEnded,
    "loot_started": LootLootStarted,
    "merchant_captured": LootMerchantCaptured,
    "merchant_played": LootCardPlayed,
    "pirate_played": LootAttackPlayed,
    "turn_passed": LootSeatEvent,
    "turn_skipped": LootSeatEvent,
}
