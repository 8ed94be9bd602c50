"""Faker Blue rules (shared/rules/fakerblue.md; SEED = shared/seeds/004_c4fbdc3041988119.txt).

Seats are A=0, B=1, C=2, D=3; seat 0 is the first player. Decks are stacked: the dealt cards,
the active player's draw, then ``top``, then the rest of the 29 cards.
"""

from __future__ import annotations

import copy
import json

import pytest

from games.core import AUDITOR, SPECTATOR, Prompt, Rng, Seen, random_bot
from games.faker_blue import GAME
from games.faker_blue.bot import basic_bot
from games.faker_blue.data import COUNTS, KINDS, card_ids
from games.faker_blue.reactions import challenge_turn
from games.faker_blue.rules import resolve_options
from tests.games.dsl import ev, given, given_state

A, B, C, D = 0, 1, 2, 3
NO_DEFENCE = {"type": "no_defence"}
NO_CHALLENGE = {"type": "no_challenge"}


# --- helpers ------------------------------------------------------------------------------------

def opening(*hands, drawn, top=(), turn=A, options=None):
    """The opening events of a stacked game: one dealt card per seat, then ``turn`` draws."""
    opts = resolve_options(GAME.load_options(options or {}), len(hands))
    stacked = [*hands, drawn, *top]
    deck = stacked + [c for c in card_ids(opts["counts"]) if c not in stacked]
    return [ev("faker_blue_started", seats=len(hands), options=opts, first=0, deck=deck),
            ev("cards_dealt", hands=[[h] for h in hands]),
            ev("turn_started", seat=turn, turn=1),
            ev("card_drawn", seat=turn, card=drawn, reason="turn")]


def start(*hands, drawn, top=(), turn=A, options=None, health=None, supply=None):
    """The state of a stacked game, with health and supply set by hand where a test needs it."""
    state = GAME.fold(opening(*hands, drawn=drawn, top=top, turn=turn, options=options))
    if health is not None:
        state["health"] = list(health)
    if supply is not None:
        state["supply"] = supply
    return state


def use(card, declare=None, target=None):
    return {"type": "use", "card": card, "declare": declare or card.rsplit("-", 1)[0],
            "target": target}


def defend(card, declare=None, redirect=None):
    return {"type": "defend", "card": card, "declare": declare or card.rsplit("-", 1)[0],
            "redirect": redirect}


def challenge(slot):
    return {"type": "challenge", "slot": slot}


def play(state, *moves):
    """Apply (seat, command) moves; return the state and every event they caused.

    A challenge by a seat that is not asked yet first lets the seats asked before it decline
    (Q&A 7 asks one seat at a time), as the table would; tests of that order use GAME.step.
    """
    events = []
    for seat, command in moves:
        if command["type"] == "challenge":
            state, declined = decline_until(state, seat, command["slot"])
            events += declined
        state, new = GAME.step(state, command, seat, Rng("test"))
        events += new
    return state, events


def decline_until(state, seat, slot):
    """Every seat asked before ``seat`` is asked about ``slot`` declines its card."""
    events = []
    while (turn := challenge_turn(state)) is not None and turn != (seat, slot):
        state, new = GAME.step(state, NO_CHALLENGE, turn[0], Rng("test"))
        events += new
    return state, events


def settle(state):
    """Everyone still deciding answers with the default (no defence / no challenge)."""
    events = []
    while state["play"] is not None:
        seat = min(GAME.pending(state))
        state, new = play(state, (seat, GAME.default_command(state, seat)))
        events += new
    return state, events


def types(events):
    return [e.type for e in events]


def of_type(events, type_):
    return [e.data for e in events if e.type == type_]


def kinds(state, seat):
    prompt = GAME.pending(state).get(seat)
    return set(prompt.kinds) if prompt else set()


# --- setup --------------------------------------------------------------------------------------

def test_the_deck_is_29_cards_of_11_kinds_with_the_decided_counts_and_values():
    assert len(card_ids(COUNTS)) == 29 and len(set(card_ids(COUNTS))) == 29
    assert dict(COUNTS) == {"clown": 4, "shield_bearer": 5, "wizard": 2, "priest": 3,
                            "high_priest": 1, "alchemist": 2, "vampire": 4, "vampire_king": 1,
                            "fire_dragon": 1, "assassin": 4, "bomber": 2}
    order = sorted(KINDS, key=lambda k: KINDS[k].value)
    assert order == ["clown", "shield_bearer", "priest", "vampire", "assassin", "wizard",
                     "bomber", "alchemist", "high_priest", "vampire_king", "fire_dragon"]


def test_setup_deals_one_card_each_seven_health_a_supply_of_two_and_the_first_player_draws():
    events = GAME.setup(4, GAME.load_options({}), Rng("seed"))
    state = GAME.fold(events)
    assert types(events) == ["faker_blue_started", "cards_dealt", "turn_started", "card_drawn"]
    assert [len(h) for h in state["hands"]] == [2, 1, 1, 1]
    assert state["health"] == [7, 7, 7, 7] and state["supply"] == 2
    assert state["box"] == 5  # fakerblue.md §3: 35 - 4x7 - 2
    assert len(state["deck"]) == 29 - 5
    assert GAME.pending(state) == {A: Prompt(("use",), "turn", "use a card")}


def test_beginner_mode_gives_eight_health_and_a_supply_of_three_using_all_35_tokens():
    state = GAME.fold(GAME.setup(4, GAME.load_options({"beginner": True}), Rng("seed")))
    assert state["health"] == [8] * 4 and state["supply"] == 3 and state["box"] == 0


def test_every_proposed_number_is_an_option():
    options = GAME.load_options({"health": 5, "supply": 4, "liar_penalty": 0,
                                 "counts": {"clown": 0}, "values": {"clown": 50},
                                 "amounts": {"assassin": 3}})
    state = GAME.fold(GAME.setup(2, options, Rng("seed")))
    assert state["health"] == [5, 5] and state["supply"] == 4
    assert state["options"]["liar_penalty"] == 0 and state["options"]["amounts"]["assassin"] == 3
    assert len(state["deck"]) + 3 == 25  # no Clowns


def test_the_shuffled_deck_is_in_the_opening_event_and_hidden_from_seats():
    started = GAME.setup(2, GAME.load_options({}), Rng("seed"))[0]
    assert len(started.data["deck"]) == 29
    assert GAME.redact(started, A).data["deck"] == 29
    assert GAME.redact(started, AUDITOR).data["deck"] == started.data["deck"]


# --- use ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("declare", ["shield_bearer", "wizard", "clown"])
def test_shield_bearer_wizard_and_clown_cannot_be_declared_when_using(declare):
    state = start("assassin-1", "clown-1", drawn="priest-1")
    given_state(GAME, state).when(use("assassin-1", declare, B), A).rejected("not_declarable")


def test_a_used_card_may_be_declared_as_any_attack_kind_a_lie_included():
    state = start("clown-1", "clown-2", drawn="priest-1")
    state = given_state(GAME, state).when(use("clown-1", "fire_dragon", B), A).then(
        ev("card_used", seat=A, card="clown-1", declared="fire_dragon", target=B, targets=[B]))
    assert state["step"] == "react" and state["hands"][A] == ["priest-1"]


@pytest.mark.parametrize(("declare", "target", "code"), [
    ("assassin", None, "target_required"),
    ("assassin", A, "invalid_target"),
    ("alchemist", A, "invalid_target"),
    ("vampire", 5, "invalid_target"),
    ("bomber", B, "target_not_allowed"),
    ("vampire_king", B, "target_not_allowed"),
])
def test_targets_follow_the_declared_kind(declare, target, code):
    state = start("assassin-1", "clown-1", drawn="priest-1")
    given_state(GAME, state).when(use("assassin-1", declare, target), A).rejected(code)


def test_a_priest_may_target_oneself():
    state = start("priest-1", "clown-1", drawn="assassin-1")
    given_state(GAME, state).when(use("priest-1", target=A), A).then_state()


def test_only_the_active_player_uses_a_card_and_only_from_their_hand():
    state = start("assassin-1", "clown-1", drawn="priest-1")
    given_state(GAME, state).when(use("clown-1", "assassin", A), B).rejected("not_your_turn")
    given_state(GAME, state).when(use("bomber-1"), A).rejected("card_not_in_hand")


def test_each_player_holds_at_most_two_cards_and_two_only_in_their_own_use_step():
    state = start("assassin-1", "clown-1", "clown-2", drawn="priest-1")
    assert [len(h) for h in state["hands"]] == [2, 1, 1]
    state, _ = play(state, (A, use("assassin-1", target=B)))
    assert max(len(h) for h in state["hands"]) == 1


# --- defence ------------------------------------------------------------------------------------

@pytest.mark.parametrize(("card", "target"), [
    ("alchemist-1", B), ("priest-1", B), ("high_priest-1", B)])
def test_qa1_alchemist_priest_and_high_priest_cannot_be_defended(card, target):
    state = start("clown-1", "shield_bearer-1", drawn=card)
    state, _ = play(state, (A, use(card, target=target)))
    assert "defend" not in kinds(state, B)
    given_state(GAME, state).when(defend("shield_bearer-1"), B).rejected("command_not_allowed")


def test_the_target_of_damage_may_defend_and_only_as_shield_bearer_or_wizard():
    state = start("clown-1", "clown-2", drawn="assassin-1")
    state, _ = play(state, (A, use("assassin-1", target=B)))
    assert kinds(state, B) == {"defend", "no_defence", "challenge", "no_challenge"}
    assert GAME.pending(state)[B].clock == "reaction"
    given_state(GAME, state).when(defend("clown-2", "assassin"), B).rejected("not_declarable")
    given_state(GAME, state).when(defend("clown-2", "wizard"), B).rejected("redirect_required")
    given_state(GAME, state).when(defend("clown-2", "wizard", B), B).rejected("invalid_redirect")
    given_state(GAME, state).when(defend("clown-2", "shield_bearer", A), B).rejected(
        "redirect_not_allowed")
    given_state(GAME, state).when(defend("clown-2", "shield_bearer"), B).then_state()


def test_only_the_player_under_attack_may_defend():
    state = start("clown-1", "shield_bearer-1", "shield_bearer-2", drawn="assassin-1")
    state, _ = play(state, (A, use("assassin-1", target=B)))
    state, _ = decline_until(state, C, 0)
    assert kinds(state, C) == {"challenge", "no_challenge"}
    given_state(GAME, state).when(defend("shield_bearer-2"), C).rejected("command_not_allowed")


def test_several_seats_defend_at_once_against_an_area_attack():
    state = start("clown-1", "shield_bearer-1", "wizard-1", "clown-2", drawn="bomber-1")
    state, _ = play(state, (A, use("bomber-1")))
    assert {s for s in range(4) if "defend" in kinds(state, s)} == {B, C, D}
    state, _ = play(state, (C, defend("wizard-1", redirect=A)), (B, defend("shield_bearer-1")),
                    (D, defend("clown-2", "shield_bearer")))
    assert [c["owner"] for c in state["play"]["cards"]] == [A, C, B, D]


def test_one_seat_answering_leaves_the_other_seats_prompts_alone():
    state = start("clown-1", "shield_bearer-1", "shield_bearer-2", "clown-2", drawn="bomber-1")
    state, _ = play(state, (A, use("bomber-1")))
    before = GAME.pending(state)
    state, _ = play(state, (C, NO_DEFENCE))
    after = GAME.pending(state)
    assert after[B] == before[B] and after[D] == before[D]
    assert C not in after  # Q&A 7: B, left of A, is the one asked about a challenge


def test_qa2_a_wizard_turns_a_vampire_on_the_attacker_and_its_user_takes_the_token():
    state = start("clown-1", "wizard-1", drawn="vampire-1")
    state, _ = play(state, (A, use("vampire-1", target=B)), (B, defend("wizard-1", redirect=A)))
    state, events = settle(state)
    assert of_type(events, "health_stolen") == [{"seat": A, "by": B, "amount": 1}]
    assert state["health"] == [6, 8]


def test_qa2_a_wizard_may_redirect_to_a_third_player_who_then_loses_the_token_to_its_user():
    state = start("clown-1", "wizard-1", "clown-2", drawn="vampire-1")
    state, _ = play(state, (A, use("vampire-1", target=B)), (B, defend("wizard-1", redirect=C)))
    state, _ = settle(state)
    assert state["health"] == [7, 8, 6]


def test_qa6_the_new_target_of_a_wizard_may_defend_again():
    state = start("clown-1", "wizard-1", "shield_bearer-1", drawn="assassin-1")
    state, _ = play(state, (A, use("assassin-1", target=B)), (B, defend("wizard-1", redirect=C)))
    assert "defend" in kinds(state, C)
    state, _ = play(state, (C, defend("shield_bearer-1")))
    state, _ = settle(state)
    assert state["health"] == [7, 7, 7]


def test_the_attacker_may_defend_a_redirected_attack_with_the_remaining_card():
    state = start("shield_bearer-1", "wizard-1", drawn="assassin-1")
    state, _ = play(state, (A, use("assassin-1", target=B)), (B, defend("wizard-1", redirect=A)))
    assert "defend" in kinds(state, A)
    state, _ = play(state, (A, defend("shield_bearer-1")))
    state, _ = settle(state)
    assert state["health"] == [7, 7]


def test_wizards_may_bounce_an_attack_back_and_forth_until_someone_has_no_card():
    state = start("wizard-1", "wizard-2", drawn="fire_dragon-1")
    state, _ = play(state, (A, use("fire_dragon-1", target=B)),
                    (B, defend("wizard-2", redirect=A)), (A, defend("wizard-1", redirect=B)))
    assert "defend" not in kinds(state, B)  # B has no card left
    state, _ = settle(state)
    assert state["health"] == [7, 4]


def test_qa3_a_vampire_king_with_one_other_survivor_takes_just_one_token():
    state = start("clown-1", "clown-2", "clown-3", drawn="vampire_king-1")
    state["alive"][C], state["health"][C] = False, 0
    state["hidden"] += state["hands"][C]
    state["hands"][C] = []
    state, _ = play(state, (A, use("vampire_king-1")))
    state, events = settle(state)
    assert of_type(events, "health_stolen") == [{"seat": B, "by": A, "amount": 1}]
    assert state["health"][:2] == [8, 6]


def test_a_vampire_king_takes_one_token_from_every_other_living_player():
    state = start("clown-1", "clown-2", "clown-3", "clown-4", drawn="vampire_king-1")
    state, _ = play(state, (A, use("vampire_king-1")))
    state, _ = settle(state)
    assert state["health"] == [10, 6, 6, 6]


def test_a_bomber_deals_one_damage_to_every_other_player():
    state = start("clown-1", "clown-2", "clown-3", drawn="bomber-1")
    state, _ = play(state, (A, use("bomber-1")))
    state, _ = settle(state)
    assert state["health"] == [7, 6, 6] and state["supply"] == 4


def test_qa4_a_shield_is_spent_to_the_hidden_pile_even_when_the_fire_dragon_was_a_bluff():
    state = start("clown-1", "shield_bearer-1", "clown-2", drawn="priest-1")
    state, events = play(state, (A, use("clown-1", "fire_dragon", B)),
                         (B, defend("shield_bearer-1")), (C, challenge(0)))
    assert of_type(events, "card_revealed")[0]["truthful"] is False
    state, _ = settle(state)
    assert "shield_bearer-1" in state["hidden"] and "clown-1" in state["public"]
    assert state["health"] == [6, 7, 7]


# --- challenges ---------------------------------------------------------------------------------

def test_anyone_may_challenge_not_only_the_target():
    state = start("clown-1", "clown-2", "clown-3", drawn="assassin-1")
    state, _ = play(state, (A, use("assassin-1", target=B)), (B, NO_CHALLENGE))
    assert "challenge" in kinds(state, C)


def test_a_wrong_challenger_loses_one_and_the_true_card_takes_effect_to_the_public_pile():
    state = start("clown-1", "clown-2", drawn="assassin-1")
    state, events = play(state, (A, use("assassin-1", target=B)), (B, NO_DEFENCE),
                         (B, challenge(0)))
    assert of_type(events, "health_lost") == [
        {"seat": B, "amount": 1, "reason": "wrong_challenge"},
        {"seat": B, "amount": 2, "reason": "damage"}]
    assert state["health"] == [7, 4] and state["public"] == ["assassin-1"]


def test_a_caught_liar_loses_one_and_the_card_has_no_effect():
    state = start("clown-1", "clown-2", drawn="priest-1")
    state, events = play(state, (A, use("clown-1", "assassin", B)), (B, NO_DEFENCE),
                         (B, challenge(0)))
    assert of_type(events, "health_lost") == [{"seat": A, "amount": 1, "reason": "caught_lying"}]
    assert state["health"] == [6, 7] and state["public"] == ["clown-1"]


def test_with_liar_penalty_zero_a_caught_lie_is_only_nullified():
    state = start("clown-1", "clown-2", drawn="priest-1", options={"liar_penalty": 0})
    state, events = play(state, (A, use("clown-1", "assassin", B)), (B, NO_DEFENCE),
                         (B, challenge(0)))
    assert of_type(events, "health_lost") == [] and state["health"] == [7, 7]


def test_an_unchallenged_lie_takes_effect_as_declared_and_goes_to_the_hidden_pile():
    state = start("clown-1", "clown-2", drawn="priest-1")
    state, _ = play(state, (A, use("clown-1", "assassin", B)))
    state, _ = settle(state)
    assert state["health"] == [7, 5] and state["hidden"] == ["clown-1"] and state["public"] == []


def test_challenging_the_attack_first_lets_open_defences_answer_then_reveals_it():
    state = start("clown-1", "shield_bearer-1", "clown-2", drawn="assassin-1")
    state, _ = play(state, (A, use("assassin-1", target=B)))
    state, events = play(state, (C, challenge(0)))
    assert types(events) == ["challenge_passed", "challenge_made"]  # B declined first
    assert GAME.pending(state) == {B: Prompt(("defend", "no_defence"), "reaction",
                                             "defend against Assassin?")}
    state, events = play(state, (B, defend("shield_bearer-1")))
    assert types(events) == ["defence_declared", "card_revealed", "health_lost"]
    assert state["play"]["defence_open"] is False
    state, _ = settle(state)
    assert state["health"] == [7, 7, 6]


def test_once_the_attack_is_revealed_no_more_defences_may_be_declared():
    state = start("clown-1", "shield_bearer-1", "shield_bearer-2", drawn="bomber-1")
    state, _ = play(state, (A, use("bomber-1")), (B, defend("shield_bearer-1")), (B, challenge(0)))
    assert set(GAME.pending(state)) == {C}  # the last call for C's defence
    assert kinds(state, C) == {"defend", "no_defence"}  # challenges wait for the reveal
    state, events = play(state, (C, NO_DEFENCE))
    assert "card_revealed" in types(events)
    assert kinds(state, C) == {"challenge", "no_challenge"}  # B's shield may still be challenged
    given_state(GAME, state).when(defend("shield_bearer-2"), C).rejected("command_not_allowed")


def test_each_card_can_be_challenged_at_most_once():
    state = start("clown-1", "shield_bearer-1", "clown-2", drawn="assassin-1")
    state, _ = play(state, (A, use("assassin-1", target=B)), (B, defend("shield_bearer-1")),
                    (C, challenge(0)))
    assert challenge_turn(state) == (C, 1)  # B's shield is still face down
    given_state(GAME, state).when(challenge(0), C).rejected("already_challenged")
    assert A not in GAME.pending(state)  # C, left of B, is asked about the shield first


def test_nobody_challenges_their_own_card_or_an_empty_slot():
    state = start("clown-1", "clown-2", drawn="assassin-1")
    state, _ = play(state, (A, use("assassin-1", target=B)))
    assert "challenge" not in kinds(state, A)  # the only face-down card is A's own
    given_state(GAME, state).when(challenge(0), A).rejected("not_your_turn")
    state, _ = play(state, (B, defend("clown-2", "shield_bearer")))
    given_state(GAME, state).when(challenge(1), B).rejected("own_card")
    given_state(GAME, state).when(challenge(7), B).rejected("no_such_card")


def test_a_seat_that_declined_one_card_is_asked_about_a_new_one():
    state = start("clown-1", "shield_bearer-1", "clown-2", drawn="assassin-1")
    state, _ = play(state, (A, use("assassin-1", target=B)), (B, NO_CHALLENGE), (C, NO_CHALLENGE))
    assert challenge_turn(state) is None and "challenge" not in kinds(state, C)
    state, _ = play(state, (B, defend("shield_bearer-1")))
    assert challenge_turn(state) == (C, 1)


def test_a_lying_shield_is_void_so_the_hit_lands_on_its_user():
    state = start("clown-1", "clown-2", drawn="assassin-1")
    state, _ = play(state, (A, use("assassin-1", target=B)),
                    (B, defend("clown-2", "shield_bearer")), (A, challenge(1)))
    state, _ = settle(state)
    assert state["health"] == [7, 4]  # 1 for the lie, 2 from the Assassin


def test_a_lying_wizard_is_void_and_its_new_target_need_not_defend():
    state = start("clown-1", "clown-2", "shield_bearer-1", drawn="assassin-1")
    state, _ = play(state, (A, use("assassin-1", target=B)),
                    (B, defend("clown-2", "wizard", C)))
    assert "defend" in kinds(state, C)
    state, _ = play(state, (A, challenge(1)))
    assert "defend" not in kinds(state, C)
    state, _ = settle(state)
    assert state["health"] == [7, 4, 7]


def test_qa7_after_a_bomber_one_player_may_challenge_every_defence_one_at_a_time():
    state = start("clown-1", "shield_bearer-1", "clown-2", "clown-3", drawn="bomber-1")
    state, _ = play(state, (A, use("bomber-1")), (B, defend("shield_bearer-1")),
                    (C, defend("clown-2", "shield_bearer")), (D, defend("clown-3", "wizard", B)))
    state, events = play(state, (A, challenge(1)), (A, challenge(2)), (A, challenge(3)))
    assert [r["truthful"] for r in of_type(events, "card_revealed")] == [True, False, False]
    assert state["play"] is None  # everyone else declined every card: the window closed
    assert state["health"] == [6, 7, 5, 5]  # A paid 1; C and D 1 for the lie, 1 from the Bomber


def test_qa7_a_challenger_who_loses_all_health_is_out_at_once_and_challenges_no_more():
    state = start("clown-1", "shield_bearer-1", "shield_bearer-2", drawn="bomber-1",
                  health=[1, 7, 7])
    state, _ = play(state, (A, use("bomber-1")), (B, defend("shield_bearer-1")),
                    (C, defend("shield_bearer-2")))
    state, events = play(state, (A, challenge(1)))
    assert of_type(events, "players_eliminated") == [{"seats": [A], "cards": [["clown-1"]]}]
    assert A not in GAME.pending(state) and "clown-1" in state["hidden"]
    state, _ = settle(state)
    assert state["turn"] == B and GAME.result(state) is None


# --- apply, eliminations, refills ---------------------------------------------------------------

def test_qa5_a_healing_card_works_at_full_health_with_no_cap():
    state = start("clown-1", "clown-2", drawn="priest-1")
    state, _ = play(state, (A, use("priest-1", target=A)))
    state, _ = settle(state)
    assert state["health"] == [8, 7] and state["supply"] == 1


def test_qa5_healing_takes_only_what_the_supply_holds():
    state = start("clown-1", "clown-2", drawn="high_priest-1", supply=1)
    state, _ = play(state, (A, use("high_priest-1", target=A)))
    state, events = settle(state)
    assert of_type(events, "health_gained") == [{"seat": A, "amount": 1, "reason": "heal"}]
    state = start("clown-1", "clown-2", drawn="high_priest-1", supply=0)
    state, _ = play(state, (A, use("high_priest-1", target=A)))
    state, events = settle(state)
    assert of_type(events, "health_gained") == [] and state["health"] == [7, 7]


def test_an_alchemist_shows_its_user_the_target_card_then_heals_its_user():
    state = start("clown-1", "bomber-1", "clown-2", drawn="alchemist-1")
    state, _ = play(state, (A, use("alchemist-1", target=B)))
    state, events = settle(state)
    inspected = next(e for e in events if e.type == "card_inspected")
    assert inspected.data == {"seat": A, "target": B, "card": "bomber-1"}
    assert state["health"][A] == 8
    assert GAME.view(state, A)["peeked"] == [{"seat": B, "card": "bomber-1"}]
    assert "bomber-1" not in json.dumps(GAME.view(state, C))
    assert GAME.redact(inspected, C).data["card"] is None
    assert GAME.redact(inspected, A).data["card"] == "bomber-1"


def test_a_player_at_zero_is_eliminated_and_their_card_goes_unrevealed_to_the_hidden_pile():
    state = start("clown-1", "priest-1", "clown-2", drawn="assassin-1", health=[7, 2, 7])
    state, _ = play(state, (A, use("assassin-1", target=B)))
    state, events = settle(state)
    assert of_type(events, "players_eliminated") == [{"seats": [B], "cards": [["priest-1"]]}]
    assert state["alive"] == [True, False, True] and "priest-1" in state["hidden"]
    assert state["turn"] == C  # play skips the eliminated seat


def test_refills_go_clockwise_from_the_first_player():
    hands = ("shield_bearer-1", "shield_bearer-2", "clown-1", "shield_bearer-3")
    state = start(*hands, drawn="bomber-1", top=("priest-1", "priest-2", "priest-3", "vampire-1"),
                  turn=C)
    state, _ = play(state, (C, use("bomber-1")), (D, defend("shield_bearer-3")),
                    (A, defend("shield_bearer-1")), (B, defend("shield_bearer-2")))
    state, events = settle(state)
    assert of_type(events, "card_drawn") == [
        {"seat": A, "card": "priest-1", "reason": "refill"},
        {"seat": B, "card": "priest-2", "reason": "refill"},
        {"seat": D, "card": "priest-3", "reason": "refill"},
        {"seat": D, "card": "vampire-1", "reason": "turn"}]


def test_the_attacker_refills_too_after_spending_the_second_card_on_defence():
    state = start("shield_bearer-1", "wizard-1", drawn="assassin-1", top=("priest-1", "priest-2"))
    state, _ = play(state, (A, use("assassin-1", target=B)), (B, defend("wizard-1", redirect=A)),
                    (A, defend("shield_bearer-1")))
    state, events = settle(state)
    assert [(d["seat"], d["reason"]) for d in of_type(events, "card_drawn")] == [
        (A, "refill"), (B, "refill"), (B, "turn")]


# --- the end ------------------------------------------------------------------------------------

def test_the_last_survivor_wins_at_once():
    state = start("clown-1", "priest-1", drawn="fire_dragon-1", health=[7, 3])
    state, _ = play(state, (A, use("fire_dragon-1", target=B)))
    state, _ = settle(state)
    assert GAME.result(state) == {"reason": "last_survivor", "winners": [A],
                                  "scores": {"0": 7, "1": 0}, "ranking": [[A], [B]],
                                  "tiebreak": []}
    assert GAME.pending(state) == {}
    given_state(GAME, state).when(NO_CHALLENGE, A).rejected("game_over")


def _emptied(state):
    state["hidden"] += state["deck"]
    state["deck"] = []
    return state


def test_when_the_draw_pile_runs_out_the_most_health_wins():
    state = _emptied(start("fire_dragon-1", "clown-2", drawn="priest-1", health=[5, 7]))
    state, _ = play(state, (A, use("priest-1", target=A)))
    state, _ = settle(state)
    assert state["health"] == [6, 7]
    assert GAME.result(state) == {"reason": "deck_exhausted", "winners": [B],
                                  "scores": {"0": 6, "1": 7}, "ranking": [[B], [A]],
                                  "tiebreak": []}


def test_on_equal_health_the_higher_card_value_wins():
    state = _emptied(start("fire_dragon-1", "bomber-1", drawn="clown-1", health=[7, 7],
                           supply=0))
    state, _ = play(state, (A, use("clown-1", "priest", A)))
    state, _ = settle(state)
    assert GAME.result(state)["winners"] == [A]
    assert GAME.result(state)["ranking"] == [[A], [B]]


def test_a_player_with_no_card_counts_as_the_lowest_value():
    state = _emptied(start("clown-1", "shield_bearer-1", drawn="assassin-1"))
    state, _ = play(state, (A, use("assassin-1", target=B)), (B, defend("shield_bearer-1")))
    state, _ = settle(state)
    assert state["health"] == [7, 7] and state["hands"] == [["clown-1"], []]
    assert GAME.result(state)["winners"] == [A]  # a Clown (1) beats no card (0)


def test_equal_health_and_equal_value_is_a_shared_win():
    state = _emptied(start("clown-1", "clown-2", drawn="clown-3", supply=0))
    state, _ = play(state, (A, use("clown-3", "priest", A)))
    state, _ = settle(state)
    assert GAME.result(state)["winners"] == [A, B]
    assert GAME.result(state)["ranking"] == [[A, B]]


def test_the_player_who_draws_the_last_card_still_plays_their_turn():
    state = start("clown-1", "clown-2", drawn="priest-1", top=("assassin-1",))
    state["hidden"] += state["deck"][1:]
    state["deck"] = state["deck"][:1]
    state, _ = play(state, (A, use("priest-1", target=A)))
    state, _ = settle(state)
    assert state["deck"] == [] and state["turn"] == B and GAME.result(state) is None
    state, _ = play(state, (B, use("assassin-1", target=A)))
    state, _ = settle(state)
    assert GAME.result(state)["reason"] == "deck_exhausted"


# --- hidden information -------------------------------------------------------------------------

def test_a_seat_sees_its_own_hand_and_face_down_card_and_only_counts_of_the_others():
    state = start("clown-1", "wizard-1", drawn="assassin-1")
    state, _ = play(state, (A, use("assassin-1", target=B)))
    seen_by_b = json.dumps(GAME.view(state, B))
    assert '"wizard-1"' in seen_by_b
    assert '"assassin-1"' not in seen_by_b and '"clown-1"' not in seen_by_b
    assert GAME.view(state, B)["hand_counts"] == [1, 1]
    assert GAME.view(state, A)["play"]["cards"][0]["card"] == "assassin-1"
    assert GAME.secrets(state, B) >= {"assassin-1", "clown-1"}


def test_a_revealed_card_is_public():
    state = start("clown-1", "clown-2", drawn="assassin-1")
    state, _ = play(state, (A, use("assassin-1", target=B)), (B, NO_DEFENCE), (B, challenge(0)))
    assert GAME.view(state, SPECTATOR)["public"] == ["assassin-1"]


def test_an_unchallenged_card_is_visible_only_to_the_auditor_even_after_the_game():
    state = start("clown-1", "priest-1", drawn="fire_dragon-1", health=[7, 3])
    state, _ = play(state, (A, use("fire_dragon-1", target=B)))
    state, events = settle(state)
    assert GAME.result(state) is not None and "fire_dragon-1" in state["hidden"]
    for viewer in (A, B, SPECTATOR):
        assert '"fire_dragon-1"' not in json.dumps(GAME.view(state, viewer))
        assert "fire_dragon-1" in GAME.secrets(state, viewer)
        redacted = [GAME.redact(e, viewer).to_dict() for e in events]
        assert '"fire_dragon-1"' not in json.dumps(redacted)
    assert "fire_dragon-1" in GAME.view(state, AUDITOR)["hidden_cards"]


def test_drawn_and_face_down_cards_are_redacted_for_everyone_but_their_owner():
    drawn = ev("card_drawn", seat=A, card="assassin-1", reason="turn")
    assert GAME.redact(drawn, B).data == {"seat": A, "card": None, "reason": "turn"}
    assert GAME.redact(drawn, A) == drawn
    used = ev("card_used", seat=A, card="clown-1", declared="assassin", target=B, targets=[B])
    assert GAME.redact(used, SPECTATOR).data["card"] is None
    dealt = ev("cards_dealt", hands=[["clown-1"], ["priest-1"]])
    assert GAME.redact(dealt, B).data == {"counts": [1, 1], "hand": ["priest-1"]}


def test_undo_never_crosses_deals_draws_reveals_or_peeks():
    assert GAME.undo_barriers == {"faker_blue_started", "cards_dealt", "card_drawn",
                                  "card_revealed",
                                  "card_inspected"}


# --- defaults -----------------------------------------------------------------------------------

def test_the_default_in_a_reaction_window_is_no_defence_then_no_challenge():
    state = start("clown-1", "shield_bearer-1", drawn="assassin-1")
    state, _ = play(state, (A, use("assassin-1", target=B)))
    assert GAME.default_command(state, B) == NO_DEFENCE
    state, _ = play(state, (B, NO_DEFENCE))
    assert GAME.default_command(state, B) == NO_CHALLENGE


@pytest.mark.parametrize(("hand", "expected"), [
    (("clown-1", "assassin-1"), use("assassin-1", target=C)),
    (("bomber-1", "vampire-1"), use("vampire-1", target=C)),
    (("priest-1", "fire_dragon-1"), use("priest-1", target=A)),
    (("clown-1", "shield_bearer-1"), use("clown-1", "priest", A)),
])
def test_the_default_use_is_the_lowest_value_card_told_truthfully_at_a_sensible_target(
        hand, expected):
    state = start(hand[0], "clown-2", "clown-3", drawn=hand[1], health=[7, 5, 6])
    assert GAME.default_command(state, A) == expected
    assert expected in GAME.legal_commands(state, A)


# --- invariants, playouts, bots -----------------------------------------------------------------

def _cards_everywhere(state):
    cards = list(state["deck"]) + state["public"] + state["hidden"]
    cards += [c for hand in state["hands"] for c in hand]
    if state["play"] is not None:
        cards += [c["card"] for c in state["play"]["cards"]]
    return cards


def test_random_play_of_1000_games_never_raises_and_conserves_cards_and_health_tokens():
    everything = set(card_ids(COUNTS))
    for game in range(1000):
        seats = 2 + game % 3
        state = GAME.fold(GAME.setup(seats, GAME.load_options({}), Rng(f"r{game}")))
        tokens = sum(state["health"]) + state["supply"]
        step = 0
        while GAME.result(state) is None:
            pending = sorted(GAME.pending(state))
            seat = pending[Rng(f"p{game}", step).below(len(pending))]
            command = random_bot(Seen(seat, {}, GAME.legal_commands(state, seat)),
                                 Rng(f"b{game}", step))
            for event in GAME.decide(state, command, seat, Rng(f"g{game}", step)):
                state = GAME.evolve(state, event)
                cards = _cards_everywhere(state)
                assert len(cards) == 29 and set(cards) == everything
                assert sum(state["health"]) + state["supply"] == tokens
                assert min(state["health"]) >= 0 and state["supply"] >= 0
                # fakerblue.md §6: two cards only in one's own use step, otherwise at most one
                assert all(len(hand) <= 1 or (s == state["turn"] and state["step"] == "use")
                           for s, hand in enumerate(state["hands"]))
            step += 1
            assert step < 2000


def _duel(bots, seed):
    """One 2-player game; each bot gets what the worker hands it (view, legal, redacted log)."""
    log = GAME.setup(2, GAME.load_options({}), Rng(f"duel{seed}"))
    state = GAME.fold(log)
    step = 0
    while GAME.result(state) is None:
        seat = min(GAME.pending(state))
        command = bots[seat](GAME.seen(state, seat, log), Rng(f"bot{seed}", step))
        state, events = GAME.step(state, command, seat, Rng(f"game{seed}", step))
        log += events
        step += 1
    return GAME.result(state)


def test_the_basic_bot_beats_the_random_bot_in_at_least_60_percent_of_two_player_games():
    # Issue 12 made basic challenge only on a positive expected gain with a risk charge, tuned
    # on basic-vs-basic play (right >= wrong challenges); a random player's constant lies are
    # learned only from the few reveals, so the margin over random fell from ~75 % to ~65 %.
    basic = GAME.bot("basic")
    wins = 0
    for seed in range(200):
        bots = [basic, random_bot] if seed % 2 == 0 else [random_bot, basic]
        wins += _duel(bots, seed)["winners"] == [seed % 2]
    assert wins >= 120


def test_bots_answer_only_with_legal_commands():
    state = start("clown-1", "wizard-1", "shield_bearer-1", drawn="assassin-1")
    basic = GAME.bot("basic")
    for _ in range(40):
        if GAME.result(state) is not None:
            break
        seat = min(GAME.pending(state))
        seen = GAME.seen(state, seat)
        command = basic(seen, Rng("bot", len(seen.legal)))
        assert command in seen.legal
        state, _ = GAME.step(state, command, seat, Rng("game"))


def test_folding_the_events_of_a_stacked_game_gives_the_stepped_state():
    events = opening("clown-1", "wizard-1", drawn="vampire-1")
    state = GAME.fold(copy.deepcopy(events))
    state, new = play(state, (A, use("vampire-1", target=B)), (B, defend("wizard-1", redirect=A)))
    state, more = settle(state)
    assert given(GAME, *events, *new, *more).state == state


def test_explain_says_whether_a_use_was_the_truth_or_a_bluff():
    state = GAME.fold(GAME.setup(2, GAME.load_options({}), Rng("explain")))
    seat = min(GAME.pending(state))
    card = state["hands"][seat][0]
    kind = card.rsplit("-", 1)[0]
    bluff = next(k for k in ("priest", "assassin") if k != kind)
    honest = GAME.explain(state, {"type": "use", "card": card, "declare": kind, "target": 0}, seat)
    lying = GAME.explain(state, {"type": "use", "card": card, "declare": bluff, "target": 0}, seat)
    assert any("the truth" in line for line in honest)
    assert any("a bluff" in line for line in lying)


# --- issue 12: the rulebook's corrections -------------------------------------------------------

def test_qa7_challenges_are_asked_one_seat_at_a_time_clockwise_from_the_cards_player():
    # Q&A 7: "1명씩 차례대로 의심을 진행하여야 합니다" (challenges go one at a time, in turn).
    state = start("clown-1", "clown-2", "shield_bearer-1", "clown-3", drawn="assassin-1")
    state, _ = play(state, (A, use("assassin-1", target=C)))
    asked = [s for s in range(4) if "challenge" in kinds(state, s)]
    assert asked == [B] and GAME.pending(state)[B].clock == "reaction"
    # C holds a defence prompt, but is not asked about a challenge before B answers.
    given_state(GAME, state).when(challenge(0), C).rejected("command_not_allowed")
    state, _ = play(state, (B, NO_CHALLENGE))
    assert challenge_turn(state) == (C, 0)
    state, _ = play(state, (C, defend("shield_bearer-1")))
    assert challenge_turn(state) == (C, 0)  # a new card does not reset the round
    state, _ = play(state, (C, NO_CHALLENGE))
    assert challenge_turn(state) == (D, 0)
    state, _ = play(state, (D, NO_CHALLENGE))
    # Nobody is asked about the attack again; C's shield is asked from C's left: D, A, B.
    assert challenge_turn(state) == (D, 1)
    state, events = play(state, (D, NO_CHALLENGE), (A, NO_CHALLENGE), (B, NO_CHALLENGE))
    assert "cards_discarded" in types(events) and state["turn"] == B


def test_a_health_tie_shows_the_tied_hands_and_the_values_compared_to_every_seat():
    # SEED, 게임의 종료 2: "남아있는 체력 토큰이 같을 경우 가지고 있는 카드 가치가 더 높은
    # 플레이어가 승리해요" - the tie is settled by the cards in hand, so the table sees them.
    state = _emptied(start("fire_dragon-1", "bomber-1", drawn="clown-1", health=[7, 7],
                           supply=0))
    state, _ = play(state, (A, use("clown-1", "priest", A)))
    state, events = settle(state)
    tiebreak = [{"seat": A, "health": 7, "hand": ["fire_dragon-1"], "value": 11},
                {"seat": B, "health": 7, "hand": ["bomber-1"], "value": 7}]
    assert GAME.result(state)["tiebreak"] == tiebreak
    assert of_type(events, "game_ended")[0]["tiebreak"] == tiebreak
    for viewer in (A, B, SPECTATOR):
        assert GAME.view(state, viewer)["result"]["tiebreak"] == tiebreak
        assert not {"fire_dragon-1", "bomber-1"} & GAME.secrets(state, viewer)
        ended = GAME.redact(next(e for e in events if e.type == "game_ended"), viewer)
        assert ended.data["tiebreak"] == tiebreak


def test_no_tie_shows_no_hand_at_the_end():
    state = _emptied(start("fire_dragon-1", "clown-2", drawn="priest-1", health=[5, 7]))
    state, _ = play(state, (A, use("priest-1", target=A)))
    state, _ = settle(state)
    assert GAME.result(state)["tiebreak"] == []
    assert "fire_dragon-1" in GAME.secrets(state, B)


def test_an_eliminated_players_face_down_card_cannot_be_challenged_and_goes_hidden():
    # SEED, 카드 적용 단계 4: "탈락한 플레이어의 카드는 공개되지 않고, (3) 비공개 카드 더미에
    # 버려져요" - B's shield stays face down once B is out.
    state = start("clown-1", "shield_bearer-1", "shield_bearer-2", drawn="bomber-1",
                  health=[7, 1, 7])
    state, _ = play(state, (A, use("bomber-1")), (B, defend("shield_bearer-1")),
                    (C, defend("shield_bearer-2")), (B, challenge(0)))
    assert state["alive"] == [True, False, True]
    assert challenge_turn(state) == (A, 2)  # B's card (slot 1) is skipped
    given_state(GAME, state).when(challenge(1), A).rejected("owner_eliminated")
    assert {"type": "challenge", "slot": 1} not in GAME.legal_commands(state, A)
    state, events = play(state, (A, NO_CHALLENGE))
    assert of_type(events, "cards_discarded") == [
        {"public": ["bomber-1"], "hidden": ["shield_bearer-1", "shield_bearer-2"]}]
    assert "card_revealed" not in types(events)
    for viewer in (A, C, SPECTATOR):
        assert '"shield_bearer-1"' not in json.dumps(GAME.view(state, viewer))


def test_the_basic_bot_learns_from_reveals_that_a_player_bluffs():
    # The same Assassin claim, challenged or not by what the table's reveals taught (issue 12).
    state = start("clown-1", "clown-2", drawn="assassin-1", health=[7, 7])
    state, _ = play(state, (A, use("clown-1", "assassin", B)), (B, NO_DEFENCE))
    seen = GAME.seen(state, B)
    assert basic_bot(seen, Rng("b")) == NO_CHALLENGE  # an honest table: not worth the risk
    lies = [ev("card_revealed", slot=0, owner=A, card=f"clown-{i}", declared="assassin",
               truthful=False, challenger=B) for i in (3, 4, 5)]
    assert basic_bot(Seen(B, seen.view, seen.legal, tuple(lies)), Rng("b")) == challenge(0)
