"""The shapes of War of the Ring's view, result and events (issue 26 item 4), for typed clients."""

from __future__ import annotations

from marshmallow import Schema, fields

from games.shapes import Result, pending, viewer


class WotrAction(Schema):
    arrived = fields.Dict(keys=fields.String(), values=fields.List(fields.Integer()), required=True)
    from_ = fields.List(fields.String(), required=True, data_key="from")
    side = fields.String(required=True)
    to = fields.List(fields.String(), required=True)


class WotrCombatRoll(Schema):
    dice = fields.List(fields.Integer(), required=True)
    hits = fields.Integer(required=True)
    mod = fields.Integer(required=True)
    rerolls = fields.List(fields.Integer(), required=True)
    side = fields.String(required=True)
    target = fields.Integer(required=True)
    why = fields.String(required=True)


class WotrViewBattle(Schema):
    att = fields.Dict(keys=fields.String(), values=fields.List(fields.Integer()), required=True)
    attacker = fields.String(required=True)
    cancelled = fields.Boolean()
    cards = fields.Dict(keys=fields.String(), values=fields.String(allow_none=True), required=True)
    chosen = fields.Dict(keys=fields.String(), values=fields.Boolean())
    city = fields.Boolean(required=True)
    def_loc = fields.String(required=True)
    defender = fields.String(required=True)
    hits = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True)
    kind = fields.String(required=True)
    next = fields.String(required=True, allow_none=True)
    origin = fields.String(required=True)
    played = fields.Dict(keys=fields.String(), values=fields.Boolean())
    pre = fields.List(fields.String(), required=True)
    region = fields.String(required=True)
    relentless = fields.Integer()
    revealed = fields.Dict(
        keys=fields.String(), values=fields.String(allow_none=True), required=True, allow_none=True
    )
    rolls = fields.List(fields.Nested(WotrCombatRoll), required=True)
    round = fields.Integer(required=True)
    seats = fields.Dict(keys=fields.String(), values=fields.Integer())
    stage = fields.String(required=True)
    x = fields.Dict(keys=fields.String(), values=fields.Integer(allow_none=True), required=True)


class WotrOrder(Schema):
    die = fields.String(required=True, allow_none=True)
    from_ = fields.String(required=True, data_key="from")
    order = fields.String(required=True)
    side = fields.String(required=True)
    to = fields.String(required=True)


class WotrViewPoliticsValue(Schema):
    active = fields.Boolean(required=True)
    step = fields.Integer(required=True)


class WotrViewSeatingItem(Schema):
    hand = fields.String(required=True)
    name = fields.String(required=True)
    nations = fields.List(fields.String(), required=True)
    seat = fields.Integer(required=True)
    side = fields.String(required=True)


class WotrActedRecord(Schema):
    """What an action of the lone Free Peoples player acted with (wotr.md §16)."""

    nations = fields.List(fields.String(), required=True)
    armies = fields.List(fields.String(), required=True)


class WotrFpActed(WotrActedRecord):
    before = fields.Nested(WotrActedRecord, required=True, allow_none=True)


class WotrActedWith(WotrActedRecord):
    side = fields.String(required=True)
    more = fields.Boolean()


class WotrView(Schema):
    acting = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True)
    action = fields.Nested(WotrAction, required=True, allow_none=True)
    armies = fields.Dict(
        keys=fields.String(),
        values=fields.Dict(keys=fields.String(), values=fields.List(fields.Integer())),
        required=True,
    )
    battle = fields.Nested(WotrViewBattle, required=True, allow_none=True)
    # Three seats: what the lone Free Peoples player's last action acted with (wotr.md §16).
    fp_acted = fields.Nested(WotrFpActed, allow_none=True)
    boxes = fields.Dict(
        keys=fields.String(),
        values=fields.Dict(keys=fields.String(), values=fields.List(fields.Integer())),
        required=True,
    )
    control = fields.Dict(keys=fields.String(), values=fields.String(), required=True)
    deck_counts = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True)
    decks = fields.Dict(keys=fields.String(), values=fields.List(fields.String()))
    dice = fields.Dict(keys=fields.String(), values=fields.List(fields.String()), required=True)
    discards = fields.Dict(keys=fields.String(), values=fields.List(fields.String()), required=True)
    eliminated = fields.Dict(
        keys=fields.String(), values=fields.List(fields.Integer()), required=True
    )
    exiles = fields.Dict(keys=fields.String(), values=fields.List(fields.String()), required=True)
    hand = fields.List(fields.String(), required=True, allow_none=True)
    hand_counts = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True)
    hands = fields.Dict(keys=fields.String(), values=fields.List(fields.String()))
    max_rounds = fields.Integer(required=True)
    nations = fields.List(fields.String(), required=True, allow_none=True)
    order = fields.Nested(WotrOrder, required=True, allow_none=True)
    outcome = fields.String(required=True, allow_none=True)
    over = fields.Boolean(required=True)
    pending = pending(required=True)
    politics = fields.Dict(
        keys=fields.String(), values=fields.Nested(WotrViewPoliticsValue), required=True
    )
    reason = fields.String(required=True, allow_none=True)
    regions = fields.List(fields.String(), required=True)
    reinforcements = fields.Dict(
        keys=fields.String(), values=fields.List(fields.Integer()), required=True
    )
    round = fields.Integer(required=True)
    scenario = fields.String(required=True)
    seating = fields.List(fields.Nested(WotrViewSeatingItem), required=True)
    seats = fields.Integer(required=True)
    side = fields.String(required=True, allow_none=True)
    summary = fields.List(fields.String(), required=True)
    turn = fields.String(required=True)
    viewer = viewer(required=True)
    vp = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True)
    vp_to_win = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True)
    winner = fields.String(required=True, allow_none=True)


class WotrResult(Result):
    reason = fields.String(required=True)
    summary = fields.String(required=True)
    winner_side = fields.String(required=True)


class WotrSideActed(Schema):
    side = fields.String(required=True)


class WotrFiguresMoved(Schema):
    dst = fields.String(required=True)
    figures = fields.Dict(keys=fields.String(), values=fields.List(fields.Integer()), required=True)
    src = fields.String(required=True)


class WotrBattleEnded(Schema):
    attacker = fields.String(required=True)
    region = fields.String(required=True)


class WotrBattleRound(Schema):
    round = fields.Integer(required=True)


class WotrBattleStarted(Schema):
    attacker = fields.String(required=True)
    city = fields.Boolean(required=True)
    def_loc = fields.String(required=True)
    defender = fields.String(required=True)
    kind = fields.String(required=True)
    origin = fields.String(required=True)
    region = fields.String(required=True)
    seats = fields.Dict(keys=fields.String(), values=fields.Integer())


class WotrBattleStep(Schema):
    cancelled = fields.Boolean()
    def_loc = fields.String()
    next = fields.String()
    pre = fields.List(fields.String())
    relentless = fields.Integer()
    stage = fields.String()
    x = fields.Dict(keys=fields.String(), values=fields.Integer())


class WotrCardDiscarded(Schema):
    card = fields.String(required=True)
    seat = fields.Integer()
    side = fields.String(required=True)


class WotrCardDrawn(Schema):
    card = fields.String()
    seat = fields.Integer()
    side = fields.String(required=True)


class WotrCombatCardChosen(Schema):
    card = fields.String()
    played = fields.Boolean()
    seat = fields.Integer()
    side = fields.String(required=True)
    x = fields.Integer()


class WotrCombatCardsRevealed(Schema):
    fp = fields.String(required=True, allow_none=True)
    sh = fields.String(required=True, allow_none=True)


class WotrDiceRolled(Schema):
    fp = fields.List(fields.String(), required=True)
    sh = fields.List(fields.String(), required=True)


class WotrDieUsed(Schema):
    action = fields.String(required=True)
    die = fields.String(required=True)
    side = fields.String(required=True)


class WotrEliteReduced(Schema):
    loc = fields.String(required=True)
    nation = fields.String(required=True)
    replacement = fields.String(required=True)
    to = fields.String(required=True)


class WotrFiguresChosenFigures(Schema):
    elite = fields.Integer(required=True)
    leader = fields.Integer(required=True)
    regular = fields.Integer(required=True)


class WotrFiguresChosen(Schema):
    figures = fields.Nested(WotrFiguresChosenFigures, required=True)
    side = fields.String(required=True)


class WotrGameEnded(Schema):
    reason = fields.String(required=True)
    vp = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True)
    winner = fields.String(required=True)


class WotrHitsScored(Schema):
    fp = fields.Integer()
    sh = fields.Integer()


class WotrNationActivated(Schema):
    nation = fields.String(required=True)


class WotrPoliticalAdvanced(Schema):
    nation = fields.String(required=True)
    step = fields.Integer(required=True)


class WotrSettlementCaptured(Schema):
    region = fields.String(required=True)
    side = fields.String(required=True)


class WotrWarBegun(Schema):
    deck_counts = fields.Dict(keys=fields.String(), values=fields.Integer())
    decks = fields.Dict(keys=fields.String(), values=fields.List(fields.String()))
    max_rounds = fields.Integer(required=True)
    scenario = fields.String(required=True)
    seats = fields.Integer()
    vp = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True)


VIEW = WotrView
RESULT = WotrResult


EVENTS = {
    "acted_with": WotrActedWith,
    "action_closed": WotrSideActed,
    "action_opened": WotrAction,
    "army_advanced": WotrFiguresMoved,
    "army_moved": WotrFiguresMoved,
    "army_retreated": WotrFiguresMoved,
    "attackers_returned": WotrFiguresMoved,
    "battle_ended": WotrBattleEnded,
    "battle_round_ended": WotrBattleRound,
    "battle_started": WotrBattleStarted,
    "battle_step": WotrBattleStep,
    "card_discarded": WotrCardDiscarded,
    "card_drawn": WotrCardDrawn,
    "casualties_removed": WotrFiguresMoved,
    "combat_card_chosen": WotrCombatCardChosen,
    "combat_cards_revealed": WotrCombatCardsRevealed,
    "combat_rolled": WotrCombatRoll,
    "dice_rolled": WotrDiceRolled,
    "die_used": WotrDieUsed,
    "elite_reduced": WotrEliteReduced,
    "excess_removed": WotrFiguresMoved,
    "figures_chosen": WotrFiguresChosen,
    "figures_mustered": WotrFiguresMoved,
    "game_ended": WotrGameEnded,
    "hits_scored": WotrHitsScored,
    "leaders_removed": WotrFiguresMoved,
    "nation_activated": WotrNationActivated,
    "order_declared": WotrOrder,
    "passed": WotrSideActed,
    "political_advanced": WotrPoliticalAdvanced,
    "round_started": WotrBattleRound,
    "settlement_captured": WotrSettlementCaptured,
    "siege_lifted": WotrFiguresMoved,
    "turn_passed": WotrSideActed,
    "war_begun": WotrWarBegun,
    "withdrew_into_siege": WotrFiguresMoved,
}
