"""Mask Men rules (shared/rules/maskmen.md), one behaviour per test, given/when/then."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from marshmallow import ValidationError

from games.core import AUDITOR, SPECTATOR, Event, Rejected, Rng, Seen, random_bot
from games.maskmen import GAME, knowledge
from games.maskmen.bot import basic_bot
from games.maskmen.data import DATA
from games.maskmen.rules import deal
from tests.games.dsl import ev, given, given_state

# --- builders -------------------------------------------------------------------------------


def cards(wrestler: str, *copies: int) -> list[str]:
    return [f"{wrestler}-{n}" for n in copies]


def start(*hands: list[str], leader: int = 0, edition: str = "current",
          set_aside: list[str] | None = None, season: int = 1) -> list[Event]:
    """A game whose current season was dealt exactly these hands."""
    seats = len(hands)
    two = seats == 2
    return [
        ev("maskmen_started", seats=seats, edition=edition, seasons=None if two else 4,
           wins_needed=3 if two else None),
        ev("season_dealt", season=season, leader=leader, hands=[list(h) for h in hands],
           set_aside=list(set_aside or [])),
    ]


def played(seat: int, card_ids: list[str], debuted: bool = False,
           proved: list[str] | None = None) -> Event:
    return ev("cards_played", seat=seat, wrestler=card_ids[0].rpartition("-")[0],
              count=len(card_ids), cards=card_ids, debuted=debuted, proved=proved)


def play(*card_ids: str) -> dict:
    """A play naming its copies (as stored games did; still accepted)."""
    return {"type": "play", "cards": list(card_ids)}


def plays(wrestler: str, count: int) -> dict:
    """A play as clients send it now: a wrestler and a count (issue 12)."""
    return {"type": "play", "wrestler": wrestler, "count": count}


GIVE_UP = {"type": "give_up"}

# Three players with plenty of every wrestler, so nobody runs out by accident.
BIG = [
    cards("BLUE", 1, 2, 3) + cards("ORANGE", 1, 2, 3) + cards("RED", 1, 2, 3),
    cards("GREEN", 1, 2, 3) + cards("GREY", 1, 2, 3) + cards("RED", 4, 5, 6),
    cards("PURPLE", 1, 2, 3) + cards("GREEN", 4, 5, 6) + cards("BLUE", 4, 5, 6),
]


def knowing(*proofs: tuple[str, str]) -> list[Event]:
    """Earlier rounds proved these (stronger, weaker) pairs; a new round is then led by seat 0.

    The proofs are folded as facts (evolve never validates), so a test states only what it needs.
    """
    out = []
    for winner, loser in proofs:
        out.append(ev("cards_played", seat=1, wrestler=loser, cards=[], debuted=False,
                      proved=None))
        out.append(ev("cards_played", seat=2, wrestler=winner, cards=[], debuted=False,
                      proved=[winner, loser]))
        out.append(ev("round_ended", winner=2, leader=0))
    return out


# --- the worked example (maskmen.md §6, WEP) ----------------------------------------------------


def test_rulebook_worked_example():
    a = cards("BLUE", 1) + cards("ORANGE", 1, 2) + cards("RED", 1)
    b = cards("GREEN", 1, 2) + cards("RED", 2, 3)
    c = cards("PURPLE", 1, 2, 3) + cards("GREEN", 3) + cards("RED", 4)
    # 1. A plays 1 blue, B plays 2 green, C plays 3 purple: blue < green < purple.
    state = given(GAME, *start(a, b, c)).when(play("BLUE-1"), 0).then(
        played(0, ["BLUE-1"], debuted=True))
    state = given_state(GAME, state).when(play("GREEN-1", "GREEN-2"), 1).then(
        played(1, ["GREEN-1", "GREEN-2"], True, ["GREEN", "BLUE"]))
    state = given_state(GAME, state).when(play("PURPLE-1", "PURPLE-2", "PURPLE-3"), 2).then(
        played(2, ["PURPLE-1", "PURPLE-2", "PURPLE-3"], True, ["PURPLE", "GREEN"]))
    assert knowledge.relation(state["beats"], "PURPLE", "BLUE") == ">"
    state = given_state(GAME, state).when(GIVE_UP, 0).then(ev("gave_up", seat=0))
    state = given_state(GAME, state).when(GIVE_UP, 1).then(
        ev("gave_up", seat=1), ev("round_ended", winner=2, leader=2))
    # 2. C leads 1 green, A plays 2 orange, B and C pass: green < orange, so blue < orange too.
    state = given_state(GAME, state).when(play("GREEN-3"), 2).then(played(2, ["GREEN-3"]))
    state = given_state(GAME, state).when(play("ORANGE-1", "ORANGE-2"), 0).then(
        played(0, ["ORANGE-1", "ORANGE-2"], True, ["ORANGE", "GREEN"]))
    state = given_state(GAME, state).when(GIVE_UP, 1).then(ev("gave_up", seat=1))
    state = given_state(GAME, state).when(GIVE_UP, 2).then(
        ev("gave_up", seat=2), ev("round_ended", winner=0, leader=0))
    beats = state["beats"]
    assert knowledge.relation(beats, "ORANGE", "GREEN") == ">"
    assert knowledge.relation(beats, "ORANGE", "BLUE") == ">"
    assert knowledge.relation(beats, "ORANGE", "PURPLE") == "?"
    assert GAME.view(state, 1)["knowledge"]["display"]["columns"] == [
        ["BLUE", "GREEN", "PURPLE"], ["BLUE", "GREEN", "ORANGE"]]
    assert state["turn"] == 0


# --- leading (§5) ------------------------------------------------------------------------------


def test_lead_an_undebuted_wrestler_with_one_card():
    given(GAME, *start(*BIG)).when(play("RED-1"), 0).then(played(0, ["RED-1"], debuted=True))


@pytest.mark.parametrize("count", [2, 3])
def test_lead_an_undebuted_wrestler_with_more_cards_is_rejected(count):
    given(GAME, *start(*BIG)).when(play(*cards("RED", 1, 2, 3)[:count]), 0).rejected(
        "undebuted_needs_one")


@pytest.mark.parametrize("count", [1, 2, 3])
def test_lead_a_debuted_wrestler_with_one_to_three_cards(count):
    lead = cards("RED", 1, 2, 3)[:count]
    given(GAME, *start(*BIG), *knowing(("RED", "BLUE"))).when(play(*lead), 0).then(
        played(0, lead))


def test_a_play_of_four_cards_is_rejected():
    hands = [cards("RED", 1, 2, 3, 4, 5), cards("BLUE", 1, 2), cards("GREEN", 1, 2)]
    log = [*start(*hands), played(0, ["RED-5"], True), ev("gave_up", seat=1),
           ev("gave_up", seat=2), ev("round_ended", winner=0, leader=0)]
    given(GAME, *log).when(play(*cards("RED", 1, 2, 3, 4)), 0).rejected("too_many_cards")


def test_the_leader_cannot_give_up():
    given(GAME, *start(*BIG)).when(GIVE_UP, 0).rejected("command_not_allowed")


def test_a_play_mixing_wrestlers_is_rejected():
    given(GAME, *start(*BIG)).when(play("RED-1", "BLUE-1"), 0).rejected("mixed_wrestlers")


def test_cards_not_in_hand_are_rejected():
    given(GAME, *start(*BIG)).when(play("GREEN-1"), 0).rejected("not_in_hand")


def test_the_same_card_twice_is_rejected():
    given(GAME, *start(*BIG)).when(play("RED-1", "RED-1"), 0).rejected("duplicate_cards")


def test_an_empty_play_is_rejected():
    given(GAME, *start(*BIG)).when(play(), 0).rejected("no_cards")


def test_only_the_seat_whose_turn_it_is_may_act():
    given(GAME, *start(*BIG)).when(play("GREEN-1"), 1).rejected("not_your_turn")


# --- following (§5, §8) ------------------------------------------------------------------------


def test_follow_an_undetermined_wrestler_with_one_more_card_proves_it_stronger():
    state = given(GAME, *start(*BIG), played(0, ["BLUE-1"], True)).when(
        play("GREEN-1", "GREEN-2"), 1).then(
        played(1, ["GREEN-1", "GREEN-2"], True, ["GREEN", "BLUE"]))
    assert state["beats"]["GREEN"] == ["BLUE"]
    assert state["turn"] == 2


@pytest.mark.parametrize("copies", [(1,), (1, 2, 3)])
def test_follow_an_undetermined_wrestler_with_another_count_is_rejected(copies):
    given(GAME, *start(*BIG), played(0, ["BLUE-1"], True)).when(
        play(*cards("GREEN", *copies)), 1).rejected("wrong_count")


def test_follow_a_known_stronger_wrestler_with_the_same_count():
    log = [*start(*BIG), *knowing(("GREEN", "BLUE")), played(0, ["BLUE-1", "BLUE-2"])]
    state = given(GAME, *log).when(play("GREEN-1", "GREEN-2"), 1).then(
        played(1, ["GREEN-1", "GREEN-2"]))
    assert state["proofs"] == [["GREEN", "BLUE"]]


@pytest.mark.parametrize("copies", [(1,), (1, 2, 3)])
def test_follow_a_known_stronger_wrestler_with_another_count_is_rejected(copies):
    log = [*start(*BIG), *knowing(("GREEN", "BLUE")), played(0, ["BLUE-1", "BLUE-2"])]
    given(GAME, *log).when(play(*cards("GREEN", *copies)), 1).rejected("wrong_count")


def test_follow_with_a_known_weaker_wrestler_is_rejected():
    log = [*start(*BIG), *knowing(("RED", "GREEN")), played(0, ["RED-1"])]
    given(GAME, *log).when(play("GREEN-1", "GREEN-2"), 1).rejected("weaker_wrestler")


def test_weaker_through_a_chain_is_rejected():
    log = [*start(*BIG), *knowing(("PURPLE", "GREEN"), ("BLUE", "PURPLE")), played(0, ["BLUE-1"])]
    given(GAME, *log).when(play("GREEN-1", "GREEN-2"), 1).rejected("weaker_wrestler")


def test_stronger_through_a_chain_follows_with_the_same_count():
    log = [*start(*BIG), *knowing(("GREY", "RED"), ("GREEN", "GREY")), played(0, ["RED-1"])]
    given(GAME, *log).when(play("GREEN-1"), 1).then(played(1, ["GREEN-1"]))


def test_follow_with_the_same_wrestler_is_rejected():
    log = [*start(*BIG), played(0, ["RED-1"], True)]
    given(GAME, *log).when(play("RED-4", "RED-5"), 1).rejected("same_wrestler")


def test_after_three_cards_an_undetermined_wrestler_cannot_follow():
    log = [*start(*BIG), played(0, ["BLUE-1"], True),
           played(1, ["GREEN-1", "GREEN-2"], True, ["GREEN", "BLUE"]),
           played(2, ["PURPLE-1", "PURPLE-2", "PURPLE-3"], True, ["PURPLE", "GREEN"])]
    given(GAME, *log).when(play(*cards("RED", 1, 2, 3)), 0).rejected("needs_four_cards")


def test_the_round_goes_on_after_a_three_card_play():
    log = [*start(*BIG), played(0, ["BLUE-1"], True),
           played(1, ["GREEN-1", "GREEN-2"], True, ["GREEN", "BLUE"])]
    state = given(GAME, *log).when(play("PURPLE-1", "PURPLE-2", "PURPLE-3"), 2).then(
        played(2, ["PURPLE-1", "PURPLE-2", "PURPLE-3"], True, ["PURPLE", "GREEN"]))
    assert GAME.pending(state)[0].kinds == ("play", "give_up")


def test_merged_chains_let_a_known_stronger_wrestler_follow_a_three_card_proof():
    # Earlier: blue < green < purple. This round: orange, then grey proves grey > orange, then
    # blue proves blue > grey with 3 cards. The chains merge, so green is known stronger than
    # blue and may follow with 3 (SEED: the merging case).
    hands = [cards("ORANGE", 1) + cards("RED", 1),
             cards("GREY", 1, 2) + cards("GREEN", 1, 2, 3) + cards("RED", 2),
             cards("BLUE", 1, 2, 3) + cards("RED", 3)]
    log = [*start(*hands), *knowing(("GREEN", "BLUE"), ("PURPLE", "GREEN")),
           played(0, ["ORANGE-1"], True),
           played(1, ["GREY-1", "GREY-2"], True, ["GREY", "ORANGE"])]
    before = given(GAME, *log).state
    assert GAME.view(before, 0)["knowledge"]["display"]["columns"] == [
        ["BLUE", "GREEN", "PURPLE"], ["ORANGE", "GREY"]]
    state = given(GAME, *log).when(play("BLUE-1", "BLUE-2", "BLUE-3"), 2).then(
        played(2, ["BLUE-1", "BLUE-2", "BLUE-3"], False, ["BLUE", "GREY"]))
    assert GAME.view(state, 0)["knowledge"]["display"]["columns"] == [
        ["ORANGE", "GREY", "BLUE", "GREEN", "PURPLE"]]
    log.append(played(2, ["BLUE-1", "BLUE-2", "BLUE-3"], False, ["BLUE", "GREY"]))
    given(GAME, *log, ev("gave_up", seat=0)).when(play("GREEN-1", "GREEN-2", "GREEN-3"), 1).then(
        played(1, ["GREEN-1", "GREEN-2", "GREEN-3"]))


def test_at_most_three_wrestlers_debut_in_a_round():
    log = [*start(*BIG), played(0, ["BLUE-1"], True),
           played(1, ["GREEN-1", "GREEN-2"], True, ["GREEN", "BLUE"]),
           played(2, ["PURPLE-1", "PURPLE-2", "PURPLE-3"], True, ["PURPLE", "GREEN"])]
    state = given(GAME, *log).state
    assert GAME.legal_commands(state, 0) == [GIVE_UP]


# --- giving up and the end of a round (§5) -----------------------------------------------------


def test_give_up_even_with_a_legal_play():
    log = [*start(*BIG), played(0, ["BLUE-1"], True)]
    state = given(GAME, *log).when(GIVE_UP, 1).then(ev("gave_up", seat=1))
    assert state["turn"] == 2


def test_a_player_who_gave_up_is_skipped_for_the_rest_of_the_round():
    log = [*start(*BIG), played(0, ["BLUE-1"], True), ev("gave_up", seat=1)]
    state = given(GAME, *log).when(play("GREEN-4", "GREEN-5"), 2).then(
        played(2, ["GREEN-4", "GREEN-5"], True, ["GREEN", "BLUE"]))
    assert state["turn"] == 0
    state = given(GAME, *log, played(2, ["GREEN-4", "GREEN-5"], True, ["GREEN", "BLUE"])).when(
        play("RED-1", "RED-2", "RED-3"), 0).then(
        played(0, ["RED-1", "RED-2", "RED-3"], True, ["RED", "GREEN"]))
    assert state["turn"] == 2


def test_the_round_ends_when_all_others_gave_up_and_the_last_player_leads():
    log = [*start(*BIG), played(0, ["BLUE-1"], True),
           played(1, ["GREEN-1", "GREEN-2"], True, ["GREEN", "BLUE"]), ev("gave_up", seat=2)]
    state = given(GAME, *log).when(GIVE_UP, 0).then(ev("gave_up", seat=0),
                                                    ev("round_ended", winner=1, leader=1))
    assert state["turn"] == 1
    assert state["round"]["current"] is None
    assert GAME.pending(state)[1].kinds == ("play",)


def test_a_player_who_gave_up_plays_again_next_round():
    log = [*start(*BIG), played(0, ["BLUE-1"], True), ev("gave_up", seat=1),
           ev("gave_up", seat=2), ev("round_ended", winner=0, leader=0)]
    state = given(GAME, *log).when(play("BLUE-2"), 0).then(played(0, ["BLUE-2"]))
    assert state["turn"] == 1


def test_players_with_empty_hands_are_skipped():
    hands = [cards("BLUE", 1, 2), [], cards("RED", 1, 2, 3)]
    log = [*start(*hands), ev("went_out", seat=1, place=1, points=2)]
    state = given(GAME, *log).when(play("BLUE-1"), 0).then(played(0, ["BLUE-1"], True))
    assert state["turn"] == 2
    state = given_state(GAME, state).when(play("RED-1", "RED-2"), 2).then(
        played(2, ["RED-1", "RED-2"], True, ["RED", "BLUE"]))
    assert state["turn"] == 0


def test_a_leader_who_went_out_passes_the_lead_clockwise():
    # 4 players: seat 1 plays its last cards, everyone else gives up: seat 2 leads (PROPOSED).
    hands = [cards("BLUE", 1, 2), cards("GREEN", 1, 2), cards("RED", 1), cards("GREY", 1)]
    log = [*start(*hands), played(0, ["BLUE-1"], True),
           played(1, ["GREEN-1", "GREEN-2"], True, ["GREEN", "BLUE"]),
           ev("went_out", seat=1, place=1, points=2), ev("gave_up", seat=2)]
    given(GAME, *log, ev("gave_up", seat=3)).when(GIVE_UP, 0).then(
        ev("gave_up", seat=0), ev("round_ended", winner=1, leader=2))


# --- seasons and scoring (§3, §7) -------------------------------------------------------------


def test_the_first_player_out_takes_two_points():
    hands = [cards("BLUE", 1), cards("GREEN", 1, 2, 3), cards("RED", 1, 2)]
    state = given(GAME, *start(*hands)).when(play("BLUE-1"), 0).then(
        played(0, ["BLUE-1"], True), ev("went_out", seat=0, place=1, points=2))
    assert state["scores"] == [2, 0, 0]
    assert state["turn"] == 1


def test_the_season_ends_mid_round_when_the_second_to_last_player_goes_out():
    # Seat 0 is out; seat 1 empties its hand while seat 2 could still answer: the season ends
    # at once, seat 2 takes -1 and leads season 2 (maskmen.md decisions).
    hands = [cards("BLUE", 1), cards("GREEN", 1, 2) + cards("GREY", 1, 2),
             cards("RED", 1, 2, 3, 4, 5)]
    log = [*start(*hands), played(0, ["BLUE-1"], True), ev("went_out", seat=0, place=1, points=2),
           played(1, ["GREEN-1", "GREEN-2"], True, ["GREEN", "BLUE"]),
           played(2, ["RED-1", "RED-2", "RED-3"], True, ["RED", "GREEN"]),
           ev("gave_up", seat=1), ev("round_ended", winner=2, leader=2), played(2, ["RED-4"])]
    state = given(GAME, *log).when(play("GREY-1", "GREY-2"), 1).then(
        played(1, ["GREY-1", "GREY-2"], True, ["GREY", "RED"]),
        ev("went_out", seat=1, place=2, points=1),
        ev("season_ended", season=1, first=0, last=2, points=[2, 1, -1]),
        deal("current", 3, 2, 2, Rng("test")))
    assert state["scores"] == [2, 1, -1]
    assert state["season"] == 2
    assert state["turn"] == 2
    assert state["debuted"] == [] and state["proofs"] == []


def test_with_four_players_only_two_out_awards_and_the_last_scores():
    hands = [[], cards("GREEN", 1), cards("RED", 1, 2), []]
    log = [*start(*hands, leader=1)]
    log[1] = ev("season_dealt", season=1, leader=1, hands=hands, set_aside=[])
    log += [ev("went_out", seat=0, place=1, points=2), ev("went_out", seat=3, place=2, points=1)]
    given(GAME, *log).when(play("GREEN-1"), 1).then(
        played(1, ["GREEN-1"], True), ev("went_out", seat=1, place=3, points=0),
        ev("season_ended", season=1, first=0, last=2, points=[2, 0, -1, 1]),
        deal("current", 4, 2, 2, Rng("test")))


def test_each_season_is_dealt_afresh_with_no_known_strengths():
    events = GAME.setup(3, GAME.load_options({}), Rng("seasons"))
    assert [e.type for e in events] == ["maskmen_started", "season_dealt"]
    nxt = deal("current", 3, 2, 1, Rng("next"))
    state = GAME.fold([*events, *knowing(("RED", "BLUE")), nxt])
    assert state["beats"] == {w: [] for w in DATA.wrestler_ids}
    assert [len(h) for h in state["hands"]] == [15, 15, 15]


def test_the_game_ends_after_four_seasons_with_the_highest_total_winning():
    hands = [cards("BLUE", 1), cards("GREEN", 1, 2), cards("RED", 1, 2)]
    log = [*start(*hands, season=4), ev("went_out", seat=2, place=1, points=2)]
    log[1] = ev("season_dealt", season=4, leader=0, hands=[cards("BLUE", 1), cards("GREEN", 1, 2),
                                                          []], set_aside=[])
    given(GAME, *log).when(play("BLUE-1"), 0).then(
        played(0, ["BLUE-1"], True), ev("went_out", seat=0, place=2, points=1),
        ev("season_ended", season=4, first=2, last=1, points=[1, -1, 2]),
        ev("game_ended", winners=[2], scores={"0": 1, "1": -1, "2": 2}, ranking=[[2], [0], [1]]))


def test_tied_totals_share_the_win():
    prior = [ev("went_out", seat=0, place=1, points=2), ev("went_out", seat=2, place=2, points=1),
             ev("season_ended", season=1, first=0, last=1, points=[2, -1, 1])]
    log = [*start([], [], [], season=1), *prior]
    log.append(ev("season_dealt", season=4, leader=0,
                  hands=[cards("BLUE", 1), cards("GREEN", 1, 2), []], set_aside=[]))
    log.append(ev("went_out", seat=2, place=1, points=2))
    state = given(GAME, *log).when(play("BLUE-1"), 0).then_state()
    result = GAME.result(state)
    assert result == {"winners": [0, 2], "scores": {"0": 3, "1": -2, "2": 3},
                      "ranking": [[0, 2], [1]]}
    assert GAME.pending(state) == {}


def test_later_seasons_are_led_by_the_player_who_took_minus_one():
    hands = [cards("BLUE", 1), cards("GREEN", 1, 2), cards("RED", 1, 2)]
    log = [*start(*hands), ev("went_out", seat=2, place=1, points=2)]
    log[1] = ev("season_dealt", season=1, leader=0,
                hands=[cards("BLUE", 1), cards("GREEN", 1, 2), []], set_aside=[])
    scene = given(GAME, *log).when(play("BLUE-1"), 0)
    assert scene.events[-1].data["leader"] == 1
    assert scene.then_state()["turn"] == 1


# --- two players (§3) --------------------------------------------------------------------------


def test_two_players_the_first_out_wins_the_season_without_markers():
    hands = [cards("BLUE", 1), cards("GREEN", 1, 2)]
    state = given(GAME, *start(*hands)).when(play("BLUE-1"), 0).then(
        played(0, ["BLUE-1"], True), ev("went_out", seat=0, place=1, points=0),
        ev("season_ended", season=1, first=0, last=1, points=[0, 0]),
        deal("current", 2, 2, 1, Rng("test")))
    assert state["season_wins"] == [1, 0]
    assert state["scores"] == [0, 0]
    assert GAME.result(state) is None


def test_two_players_the_first_to_win_three_seasons_wins_the_game():
    log = [*start([], [])]
    for season, first in enumerate([0, 1, 0, 1], start=1):
        log.append(ev("season_ended", season=season, first=first, last=1 - first, points=[0, 0]))
    log.append(ev("season_dealt", season=5, leader=0,
                  hands=[cards("BLUE", 1), cards("GREEN", 1)], set_aside=[]))
    state = given(GAME, *log).state
    assert state["season_wins"] == [2, 2] and GAME.result(state) is None
    given(GAME, *log).when(play("BLUE-1"), 0).then(
        played(0, ["BLUE-1"], True), ev("went_out", seat=0, place=1, points=0),
        ev("season_ended", season=5, first=0, last=1, points=[0, 0]),
        ev("game_ended", winners=[0], scores={"0": 3, "1": 2}, ranking=[[0], [1]]))


def test_two_player_games_have_no_fixed_number_of_seasons():
    events = GAME.setup(2, GAME.load_options({}), Rng("two"))
    assert events[0].data == {"seats": 2, "edition": "current", "seasons": None,
                              "wins_needed": 3}


# --- setup, editions, options (§1, §2) ---------------------------------------------------------

DEAL_TABLE = [("current", 2, 15, 30), ("current", 3, 15, 15), ("current", 4, 15, 0),
              ("current", 5, 12, 0), ("current", 6, 10, 0), ("first", 2, 10, 28),
              ("first", 3, 10, 18), ("first", 4, 10, 8), ("first", 5, 9, 3), ("first", 6, 8, 0)]


@pytest.mark.parametrize(("edition", "seats", "hand", "aside"), DEAL_TABLE)
def test_the_deal_follows_the_table(edition, seats, hand, aside):
    events = GAME.setup(seats, GAME.load_options({"edition": edition}), Rng(f"{edition}{seats}"))
    dealt = events[1].data
    assert [len(h) for h in dealt["hands"]] == [hand] * seats
    assert len(dealt["set_aside"]) == aside
    every = [c for h in dealt["hands"] for c in h] + dealt["set_aside"]
    assert sorted(every) == sorted(DATA.deck(edition))
    assert 0 <= dealt["leader"] < seats


@pytest.mark.parametrize(("edition", "size", "per"), [("current", 60, 10), ("first", 48, 8)])
def test_each_edition_has_six_wrestlers_of_unique_cards(edition, size, per):
    deck = DATA.deck(edition)
    assert len(deck) == len(set(deck)) == size
    assert set(Counter(c.rpartition("-")[0] for c in deck).values()) == {per}


def test_the_current_edition_is_the_default():
    assert GAME.load_options({})["edition"] == "current"


def test_an_unknown_edition_is_refused():
    with pytest.raises(ValidationError):
        GAME.load_options({"edition": "deluxe"})


@pytest.mark.parametrize("seats", [1, 7])
def test_only_two_to_six_players(seats):
    with pytest.raises(Rejected) as exc:
        GAME.setup(seats, GAME.load_options({}), Rng("x"))
    assert exc.value.code == "bad_seat_count"


# --- knowledge and the marker display (§4, §6) -------------------------------------------------


def test_a_branch_is_shown_as_two_columns_sharing_the_weaker_marker():
    beats = knowledge.closure(DATA.wrestler_ids, [("RED", "BLUE"), ("GREY", "BLUE")])
    assert knowledge.columns(beats, ["BLUE", "RED", "GREY"]) == [["BLUE", "RED"],
                                                                ["BLUE", "GREY"]]
    assert knowledge.levels(beats, ["BLUE", "RED", "GREY"]) == [["BLUE"], ["RED", "GREY"]]


def test_deciding_a_branch_merges_it_into_one_column():
    beats = knowledge.closure(DATA.wrestler_ids,
                              [("RED", "BLUE"), ("GREY", "BLUE"), ("GREY", "RED")])
    assert knowledge.columns(beats, ["BLUE", "RED", "GREY"]) == [["BLUE", "RED", "GREY"]]
    assert knowledge.covers(beats, ["BLUE", "RED", "GREY"]) == [("BLUE", "RED"), ("RED", "GREY")]


def test_a_debuted_wrestler_without_proofs_is_a_column_of_its_own():
    beats = knowledge.empty(DATA.wrestler_ids)
    assert knowledge.columns(beats, ["RED"]) == [["RED"]]


def test_the_first_edition_view_uses_the_one_marker_layout():
    hands = [cards("BLUE", 1, 2), cards("GREEN", 1, 2), cards("RED", 1, 2)]
    log = [*start(*hands, edition="first"), played(0, ["BLUE-1"], True),
           played(1, ["GREEN-1", "GREEN-2"], True, ["GREEN", "BLUE"])]
    display = GAME.view(given(GAME, *log).state, SPECTATOR)["knowledge"]["display"]
    assert display["style"] == "levels"
    assert display["levels"] == [["BLUE"], ["GREEN"]]


def test_knowledge_is_transitive():
    beats = knowledge.closure(DATA.wrestler_ids, [("GREEN", "BLUE"), ("PURPLE", "GREEN")])
    assert knowledge.relation(beats, "PURPLE", "BLUE") == ">"
    assert knowledge.relation(beats, "BLUE", "PURPLE") == "<"
    assert knowledge.relation(beats, "RED", "BLUE") == "?"


# --- views and hidden information --------------------------------------------------------------


def _dealt_state():
    return GAME.fold(GAME.setup(3, GAME.load_options({}), Rng("views")))


def test_a_seat_sees_its_own_hand_and_only_counts_of_the_others():
    state = _dealt_state()
    view = GAME.view(state, 1)
    assert view["hand"] == state["hands"][1]
    assert view["hand_counts"] == [15, 15, 15]
    text = json.dumps(view)
    assert not [c for c in GAME.secrets(state, 1) if f'"{c}"' in text]
    assert GAME.secrets(state, 1) == set(state["hands"][0] + state["hands"][2]
                                         + state["set_aside"])


def test_set_aside_cards_are_hidden_from_everyone_but_the_auditor():
    state = _dealt_state()
    for viewer in (0, SPECTATOR):
        view = GAME.view(state, viewer)
        assert "set_aside" not in view and view["set_aside_count"] == 15
        assert set(state["set_aside"]) <= GAME.secrets(state, viewer)
    assert GAME.view(state, AUDITOR)["set_aside"] == state["set_aside"]
    assert GAME.secrets(state, AUDITOR) == set()


def test_the_deal_event_shows_each_seat_only_its_own_hand():
    events = GAME.setup(3, GAME.load_options({}), Rng("redact"))
    dealt = events[1]
    mine = GAME.redact(dealt, 2).data
    assert mine["hand"] == dealt.data["hands"][2]
    assert mine["hand_counts"] == [15, 15, 15] and "hands" not in mine
    assert GAME.redact(dealt, SPECTATOR).data["hand"] is None
    assert GAME.redact(dealt, AUDITOR) == dealt
    assert GAME.redact(events[0], 0) == events[0]


def test_played_cards_are_public_as_their_wrestler():
    state = given(GAME, *start(*BIG), played(0, ["BLUE-1"], True)).state
    assert GAME.view(state, SPECTATOR)["played"] == ["BLUE"]
    assert GAME.view(state, 2)["round"]["plays"][0]["cards"] == ["BLUE"]
    assert GAME.view(state, AUDITOR)["played"] == ["BLUE-1"]


def test_a_deal_is_an_undo_barrier():
    assert "season_dealt" in GAME.undo_barriers


# --- legal and default commands ----------------------------------------------------------------


def test_the_default_command_gives_up_when_following():
    state = given(GAME, *start(*BIG), played(0, ["BLUE-1"], True)).state
    assert GAME.default_command(state, 1) == GIVE_UP


def test_the_default_command_leads_the_smallest_play():
    state = given(GAME, *start(*BIG)).state
    assert GAME.default_command(state, 0) == plays("BLUE", 1)
    assert GAME.default_command(state, 0) in GAME.legal_commands(state, 0)


def test_legal_commands_are_one_per_wrestler_and_count_and_all_accepted():
    log = [*start(*BIG), *knowing(("GREEN", "BLUE")), played(0, ["BLUE-1", "BLUE-2"])]
    state = given(GAME, *log).state
    legal = GAME.legal_commands(state, 1)
    assert legal == [plays("GREEN", 2), plays("GREY", 3), plays("RED", 3), GIVE_UP]
    for command in legal:
        given(GAME, *log).when(command, 1).then_state()
    assert GAME.legal_commands(state, 0) == []


# --- whole games -------------------------------------------------------------------------------


def _random_game(seats: int, edition: str, seed: int) -> int:
    """One random game through the rules' own decide (the kernel's schema checks are covered by
    the conformance test); checks the invariants after every command. Returns the steps."""
    events = GAME.setup(seats, GAME.load_options({"edition": edition}), Rng(f"r{seed}"))
    state = GAME.fold(events)
    rng, deal_rng = Rng(f"bot{seed}"), Rng(f"deal{seed}")
    deck = sorted(DATA.deck(edition))
    step = 0
    while GAME.result(state) is None:
        (seat, prompt), = GAME.pending(state).items()
        command = random_bot(Seen(seat, {}, GAME.legal_commands(state, seat)), rng)
        assert command["type"] in prompt.kinds
        for event in GAME.decide_command(state, command, seat, deal_rng):
            state = GAME.evolve(state, event)
            if event.type == "cards_played" and event.data["proved"]:
                assert knowledge.is_acyclic(state["beats"])
                assert state["beats"] == knowledge.closure(DATA.wrestler_ids, state["proofs"])
            if event.type in ("round_ended", "season_ended", "season_dealt"):
                held = [c for h in state["hands"] for c in h]
                assert sorted(held + state["played"] + state["set_aside"]) == deck
        step += 1
        assert step < 5_000
    return step


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_random_games_never_break_a_rule_invariant(seats):
    # 200 games per player count, 1,000 in all; every fourth one in the first edition.
    for seed in range(200):
        _random_game(seats, "first" if seed % 4 == 3 else "current", seed)


@pytest.mark.parametrize("level", ["random", "basic"])
def test_bot_levels_return_a_legal_command(level):
    state = given(GAME, *start(*BIG), played(0, ["BLUE-1"], True)).state
    seen = GAME.seen(state, 1)
    assert GAME.bot(level)(seen, Rng("b")) in seen.legal
    assert level in GAME.bot_levels


def _duel(seed: int, basic_seat: int) -> bool:
    bots = [random_bot, random_bot]
    bots[basic_seat] = basic_bot
    state = GAME.fold(GAME.setup(2, GAME.load_options({}), Rng(f"duel{seed}")))
    rng = Rng(f"duel-bots{seed}")
    step = 0
    while GAME.result(state) is None:
        (seat,) = GAME.pending(state)
        command = bots[seat](GAME.seen(state, seat), rng)
        for event in GAME.decide_command(state, command, seat, Rng(f"duel{seed}", step)):
            state = GAME.evolve(state, event)
        step += 1
    return basic_seat in GAME.result(state)["winners"]


def test_the_basic_bot_beats_the_random_bot_in_most_two_player_games():
    wins = sum(_duel(seed, seed % 2) for seed in range(200))
    assert wins >= 140, f"basic won {wins} of 200"


# --- issue 12: copies of one wrestler reveal nothing ---------------------------------------------

def _relabelled(hands: list[list[str]], set_aside: list[str], swap: dict[str, str]):
    """The same deal with some copies' ids swapped (the physical cards are identical)."""
    return ([sorted(swap.get(c, c) for c in h) for h in hands],
            sorted(swap.get(c, c) for c in set_aside))


def test_copies_of_one_wrestler_are_indistinguishable_to_everyone_but_their_holder():
    # maskmen.md §1: the cards of one wrestler are identical, so "RED-9 led" must not tell the
    # table that seat 0 holds no red 1-8. Two deals differ only in which red copies seat 0
    # holds and which are set aside: every other seat, and spectators, see the same game.
    hands = [cards("RED", 1, 2, 9) + cards("BLUE", 1, 2), cards("GREEN", 1, 2, 3, 4, 5),
             cards("GREY", 1, 2, 3, 4, 5)]
    set_aside = cards("RED", 3, 4, 5, 6, 7, 8, 10)
    swap = {"RED-1": "RED-7", "RED-7": "RED-1", "RED-2": "RED-8", "RED-8": "RED-2"}
    worlds = [(hands, set_aside), _relabelled(hands, set_aside, swap)]
    seen: list[list] = []
    for world_hands, world_aside in worlds:
        log = start(*world_hands, set_aside=world_aside)
        state, trace = GAME.fold(log), []
        for _ in range(12):
            if GAME.result(state) is not None:
                break
            (seat, _), = GAME.pending(state).items()
            legal = GAME.legal_commands(state, seat)
            red = [c for c in legal if c.get("wrestler") == "RED" or "RED-" in str(c)]
            command = (red or legal)[0] if seat == 0 else legal[-1]
            for event in GAME.decide(state, command, seat, Rng("same")):
                state = GAME.evolve(state, event)
                trace.append([GAME.redact(event, v).to_dict() for v in (1, 2, SPECTATOR)])
            trace.append([(GAME.view(state, v), GAME.legal_commands(state, v))
                          for v in (1, 2, SPECTATOR)])
            trace.append(GAME.explain(state, command, seat))
        seen.append(trace)
    assert any("RED" in json.dumps(step) for step in seen[0])  # seat 0 did play red
    assert seen[0] == seen[1]


def test_a_play_names_a_wrestler_and_a_count_and_the_server_takes_the_copies():
    state = given(GAME, *start(*BIG)).when(plays("RED", 1), 0).then_state()
    assert state["hands"][0] == cards("BLUE", 1, 2, 3) + cards("ORANGE", 1, 2, 3) + \
        cards("RED", 2, 3)
    given(GAME, *start(*BIG)).when(plays("PURPLE", 1), 0).rejected("not_in_hand")
    given(GAME, *start(*BIG)).when(plays("PINK", 1), 0).rejected("unknown_wrestler")
    given(GAME, *start(*BIG)).when(plays("RED", 0), 0).rejected("no_cards")


def test_the_holder_sees_its_copies_and_the_others_see_the_wrestler_and_count():
    event = given(GAME, *start(*BIG)).when(plays("RED", 1), 0).events[0]
    assert GAME.redact(event, 0) == event and event.data["cards"] == ["RED-1"]
    for viewer in (1, 2, SPECTATOR):
        assert GAME.redact(event, viewer).data == {**event.data, "cards": ["RED"]}
    assert GAME.redact(event, AUDITOR) == event


def test_a_stored_play_naming_copies_still_folds_redacts_and_re_runs():
    # Games stored before issue 12 sent {"cards": [...]} and logged no count.
    old = ev("cards_played", seat=0, wrestler="RED", cards=["RED-1", "RED-2"], debuted=True,
             proved=None)
    state = given(GAME, *start(*BIG), old).state
    assert state["round"]["current"] == {"seat": 0, "wrestler": "RED", "count": 2}
    assert GAME.redact(old, 1).data["cards"] == ["RED", "RED"]
    given(GAME, *start(*BIG)).when(play("RED-3"), 0).then(played(0, ["RED-3"], True))


# --- the expert's hooks --------------------------------------------------------------------------

def test_an_expert_playout_stops_when_the_season_ends():
    # 2 players: going out with the last card ends the season (maskmen.md §7), and the next
    # season is dealt afresh, so a playout from before it has nothing left to learn.
    world = GAME.fold(start(cards("RED", 1), cards("BLUE", 1, 2), leader=0))
    after = GAME.fold(GAME.decide(world, plays("RED", 1), 0, Rng("out")),
                      GAME.copy_state(world))
    assert not GAME.playout_over(world, world)
    assert GAME.playout_over(world, after)
    assert after["season_wins"] == [1, 0]


def test_the_two_player_evaluation_is_the_chance_to_win_three_seasons_first():
    state = GAME.fold(start(cards("RED", 1, 2), cards("BLUE", 1, 2), leader=0))
    assert GAME.evaluate(state, 0) == pytest.approx(0.5)  # even hands, 0-0 in seasons
    state["season_wins"] = [2, 0]
    assert GAME.evaluate(state, 0) == pytest.approx(0.5 * 1 + 0.5 * 0.75)
    assert GAME.evaluate(state, 1) == pytest.approx(1 - GAME.evaluate(state, 0))
    state["hands"][1] = cards("BLUE", 1, 2, 3, 4, 5)  # seat 0 is well ahead in this season
    assert GAME.evaluate(state, 0) > 0.875


def test_the_playout_view_is_the_view_without_the_marker_layout():
    state = GAME.fold([*start(*BIG), played(0, cards("BLUE", 1), debuted=True)])
    full = GAME.view(state, 1)
    lean = GAME.playout_seen(state, 1)
    assert "display" in full["knowledge"] and "display" not in lean.view["knowledge"]
    full["knowledge"].pop("display")
    assert lean.view == full and lean.legal == GAME.legal_commands(state, 1)
