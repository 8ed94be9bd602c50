"""Loot rules (shared/rules/loot.md): the §10 clarifications, the SEED examples, battles,
capturing, the end and scoring, the empty draw pile, team play, hidden information, invariants."""

from __future__ import annotations

import json

import pytest

from games.core import AUDITOR, SPECTATOR, Event, Rejected, Rng, random_bot
from games.loot import GAME
from games.loot.bot import basic
from games.loot.data import CARDS, COLOURS, DECK, KIND, MERCHANT, PIRATE
from tests.games.dsl import ev, given

FILLER = ["P-gold-1a", "P-gold-1b", "P-gold-2a", "P-gold-2b", "P-gold-2c", "P-gold-2d"]


def started(*hands, deck=FILLER, **options):
    opts = {"teams": False, "empty_deck_mode": "discard", "team_capture": "anchor",
            "end_requires_play": False, **options}
    return ev("loot_started", seats=len(hands), options=opts, first=0,
              hands=[list(h) for h in hands], deck=list(deck))


def team_start(*hands, deck=FILLER, **options):
    return started(*hands, deck=deck, teams=True, **options)


def history(start: Event, *moves: tuple[int, dict]) -> list[Event]:
    """The setup event plus the events of ``moves`` (seat, command), each decided in turn."""
    events = [start]
    state = GAME.fold(events)
    for seat, command in moves:
        new = GAME.decide(state, command, seat, Rng("test"))
        state = GAME.fold(new, state)
        events.extend(new)
    return events


def merchant(card):
    return {"type": "play_merchant", "card": card}


def pirate(card, ship):
    return {"type": "play_pirate", "card": card, "merchant": ship}


def captain(card, ship):
    return {"type": "play_captain", "card": card, "merchant": ship}


def admiral(ship):
    return {"type": "play_admiral", "card": "ADM", "merchant": ship}


DRAW = {"type": "draw"}


def play_out(seats, seed, options=None, bots=None):
    options = GAME.load_options(options or {})
    events = GAME.setup(seats, options, Rng(f"setup-{seed}"))
    state = GAME.fold(events)
    rng = Rng(f"play-{seed}")
    for _ in range(5000):
        if GAME.result(state) is not None:
            return state, events
        seat = state["turn"]
        bot = bots[seat] if bots else random_bot
        command = bot(GAME.seen(state, seat), rng)
        new = GAME.decide(state, command, seat, rng)
        state = GAME.fold(new, state)
        events.extend(new)
    pytest.fail("the game did not end")


def all_cards(state):
    cards = list(state["deck"]) + list(state["discard"])
    for hand in state["hands"]:
        cards += hand
    for won in state["won"]:
        cards += won
    for ship in state["ships"]:
        cards += [ship["m"]] + [card for _, card in ship["plays"]]
    return cards


# --- §2 the deck ---------------------------------------------------------------------------------

def test_deck_has_78_unique_cards_100_gold_and_30_skulls_per_colour():
    assert len(DECK) == 78 == len(CARDS)
    assert sum(c.gold for c in DECK if c.kind == MERCHANT) == 100
    assert sum(1 for c in DECK if c.kind == MERCHANT) == 25
    for colour in COLOURS:
        assert sum(c.skulls for c in DECK if c.kind == PIRATE and c.colour == colour) == 30
        assert sum(1 for c in DECK if c.kind == PIRATE and c.colour == colour) == 12
    assert sorted(c.kind for c in DECK if c.kind in ("captain", "admiral")) == [
        "admiral", "captain", "captain", "captain", "captain"]


@pytest.mark.parametrize("seats", range(2, 9))
def test_setup_deals_six_cards_each_and_keeps_all_78_cards(seats):
    state = GAME.fold(GAME.setup(seats, GAME.load_options({}), Rng("deal")))
    assert [len(h) for h in state["hands"]] == [6] * seats
    assert sorted(all_cards(state)) == sorted(CARDS)
    assert state["turn"] == 0  # seat 0 sits at the dealer's left and starts (§3)


@pytest.mark.parametrize("seats", [2, 3, 5, 7])
def test_team_play_needs_four_six_or_eight_seats(seats):
    with pytest.raises(Rejected) as exc:
        GAME.setup(seats, GAME.load_options({"teams": True}), Rng("x"))
    assert exc.value.code == "teams_need_4_6_or_8"


# --- §10 clarifications ----------------------------------------------------------------------

def test_merchant_and_pirate_in_the_same_turn_is_not_allowed():
    start = started(["M5a", "P-blue-2a"], ["M2a"])
    given(GAME, *history(start, (0, merchant("M5a")))).when(
        pirate("P-blue-2a", "M5a"), 0).rejected("not_your_turn")


def test_owner_may_defend_own_ship_with_an_unused_colour():
    start = started(["M5a", "P-green-3a"], ["P-blue-2a", "M2a"])
    events = history(start, (0, merchant("M5a")), (1, pirate("P-blue-2a", "M5a")))
    state = given(GAME, *events).when(pirate("P-green-3a", "M5a"), 0).then(
        ev("pirate_played", seat=0, card="P-green-3a", merchant="M5a"),
        ev("turn_passed", seat=1))
    assert GAME.view(state, 0)["ships"][0]["leader"] == 0


def test_owner_may_not_defend_with_a_colour_already_in_use():
    start = started(["M5a", "P-blue-3a"], ["P-blue-2a", "M2a"])
    events = history(start, (0, merchant("M5a")), (1, pirate("P-blue-2a", "M5a")))
    given(GAME, *events).when(pirate("P-blue-3a", "M5a"), 0).rejected("colour_taken")


def test_attacker_cannot_change_colour_on_a_ship():
    start = started(["M5a", "P-green-3a", "M2a"], ["P-blue-2a", "P-purple-4a", "M2b"])
    events = history(start, (0, merchant("M5a")), (1, pirate("P-blue-2a", "M5a")),
                     (0, pirate("P-green-3a", "M5a")))
    given(GAME, *events).when(pirate("P-purple-4a", "M5a"), 1).rejected("wrong_colour")


def test_captain_without_own_pirates_of_that_colour_is_illegal():
    start = started(["M5a", "P-blue-2a", "M2a"], ["C-blue", "P-green-2a", "M2b"])
    events = history(start, (0, merchant("M5a")), (1, pirate("P-green-2a", "M5a")),
                     (0, pirate("P-blue-2a", "M5a")))
    given(GAME, *events).when(captain("C-blue", "M5a"), 1).rejected("no_matching_pirates")


def test_admiral_on_someone_elses_ship_is_illegal():
    start = started(["M5a", "M2a"], ["ADM", "M3a"])
    events = history(start, (0, merchant("M5a")))
    given(GAME, *events).when(admiral("M5a"), 1).rejected("admiral_not_own_ship")


def test_admiral_needs_no_pirate_ships_first():
    start = started(["M5a", "ADM"], ["P-blue-4a", "M2a"])
    events = history(start, (0, merchant("M5a")), (1, pirate("P-blue-4a", "M5a")))
    state = given(GAME, *events).when(admiral("M5a"), 0).then(
        ev("admiral_played", seat=0, card="ADM", merchant="M5a"), ev("turn_passed", seat=1))
    assert GAME.view(state, 1)["ships"][0]["leader"] == 0


def test_several_trumps_on_one_ship_the_last_played_wins():
    start = started(["M5a", "ADM", "M2a"], ["P-blue-1a", "C-blue", "M2b"])
    events = history(start, (0, merchant("M5a")), (1, pirate("P-blue-1a", "M5a")),
                     (0, admiral("M5a")), (1, captain("C-blue", "M5a")))
    ship = GAME.view(GAME.fold(events), AUDITOR)["ships"][0]
    assert (ship["trump"], ship["leader"]) == (1, 1)


def test_tied_strength_nobody_captures_and_the_ship_stays_until_the_tie_is_broken():
    start = started(["M5a", "P-green-2a", "M2a"], ["P-blue-2b", "P-blue-1a", "M2b"])
    moves = [(0, merchant("M5a")), (1, pirate("P-blue-2b", "M5a")),
             (0, pirate("P-green-2a", "M5a")), (1, DRAW), (0, DRAW)]
    state = GAME.fold(history(start, *moves))
    assert [s["m"] for s in state["ships"]] == ["M5a"]  # a full round passed, nobody captured
    assert GAME.view(state, 1)["ships"][0]["leader"] is None
    events = history(start, *moves, (1, pirate("P-blue-1a", "M5a")))
    given(GAME, *events).when(DRAW, 0).then(
        ev("card_drawn", seat=0, card="P-gold-2a"), ev("turn_passed", seat=1),
        ev("merchant_captured", seat=1, merchant="M5a",
           cards=["P-blue-2b", "P-green-2a", "P-blue-1a"]))


def test_several_ships_are_captured_at_the_start_of_one_turn():
    # Alone, a player's one action can win only one ship per round; a partner's plays can add
    # more. Reading A: team 0 captures everything it leads at the start of seat 0's turn.
    start = team_start(["M5a", "M2a"], ["M2b"], ["M3a", "M2c"], ["M3b"],
                       team_capture="first_in_turn_order")
    events = history(start, (0, merchant("M5a")), (1, DRAW), (2, merchant("M3a")))
    given(GAME, *events).when(DRAW, 3).then(
        ev("card_drawn", seat=3, card="P-gold-1b"),
        ev("turn_passed", seat=0),
        ev("merchant_captured", seat=0, merchant="M5a", cards=[]),
        ev("merchant_captured", seat=0, merchant="M3a", cards=[]))


def test_there_is_no_hand_limit():
    start = started(["M2a"], ["M2b"], deck=[f"P-blue-{s}" for s in
                                           ("1a", "1b", "2a", "2b", "2c", "2d", "3a", "3b")])
    events = history(start, *[(i % 2, DRAW) for i in range(8)])
    assert [len(h) for h in GAME.fold(events)["hands"]] == [5, 5]


def test_merchant_ships_in_hand_at_the_end_subtract_their_gold():
    start = started(["M5a", "M8a", "P-blue-1a"], ["M2a"], deck=[])
    state = given(GAME, *history(start, (0, merchant("M5a")))).when(
        merchant("M2a"), 1).then_state()
    assert GAME.result(state)["scores"] == {"0": -8, "1": 0}


def test_uncaptured_ships_at_the_end_are_discarded_and_score_for_nobody():
    start = started(["M5a", "P-blue-1a"], ["M3a"], deck=[])
    events = history(start, (0, merchant("M5a")))
    state = given(GAME, *events).when(merchant("M3a"), 1).then(
        ev("merchant_played", seat=1, card="M3a"),
        ev("game_ended", unclaimed=["M5a", "M3a"]))
    assert state["ships"] == [] and {"M5a", "M3a"} <= set(state["discard"])
    assert GAME.result(state)["scores"] == {"0": 0, "1": 0}


def test_an_empty_hand_while_the_deck_has_cards_is_not_the_end():
    start = started(["M5a"], ["M2a", "M3a"])
    events = history(start, (0, merchant("M5a")))
    state = GAME.fold(events)
    assert state["hands"][0] == [] and not state["over"]
    state = given(GAME, *history(start, (0, merchant("M5a")), (1, DRAW))).when(
        DRAW, 0).then_state()
    assert len(state["hands"][0]) == 1 and not state["over"]


# --- SEED examples and §5.4 leader cases ----------------------------------------------------------

def test_seed_example_blue_captain_beats_the_owners_admiral():
    # SEED §3.5: blue 4 attacks my ship, I play the admiral, blue plays the blue captain: blue wins.
    start = started(["M5a", "ADM", "M2a"], ["P-blue-4a", "C-blue", "M2b"])
    moves = [(0, merchant("M5a")), (1, pirate("P-blue-4a", "M5a")), (0, admiral("M5a"))]
    given(GAME, *history(start, *moves)).when(captain("C-blue", "M5a"), 1).then(
        ev("captain_played", seat=1, card="C-blue", merchant="M5a"), ev("turn_passed", seat=0))
    events = history(start, *moves, (1, captain("C-blue", "M5a")))
    given(GAME, *events).when(DRAW, 0).then(
        ev("card_drawn", seat=0, card="P-gold-1a"),
        ev("turn_passed", seat=1),
        ev("merchant_captured", seat=1, merchant="M5a", cards=["P-blue-4a", "ADM", "C-blue"]))


def test_admiral_played_after_a_captain_wins():
    start = started(["M5a", "P-green-2a", "ADM", "M2a"], ["P-blue-1a", "C-blue", "M2b"])
    moves = [(0, merchant("M5a")), (1, pirate("P-blue-1a", "M5a")),
             (0, pirate("P-green-2a", "M5a")), (1, captain("C-blue", "M5a"))]
    given(GAME, *history(start, *moves)).when(admiral("M5a"), 0).then(
        ev("admiral_played", seat=0, card="ADM", merchant="M5a"), ev("turn_passed", seat=1))
    given(GAME, *history(start, *moves, (0, admiral("M5a")))).when(DRAW, 1).then(
        ev("card_drawn", seat=1, card="P-gold-1a"), ev("turn_passed", seat=0),
        ev("merchant_captured", seat=0, merchant="M5a",
           cards=["P-blue-1a", "P-green-2a", "C-blue", "ADM"]))


def test_a_tie_for_the_lead_means_no_leader_even_for_the_owner():
    start = started(["M5a", "P-green-3a", "M2a"], ["P-blue-3a", "M2b"], ["P-purple-3a", "M2c"])
    events = history(start, (0, merchant("M5a")), (1, pirate("P-blue-3a", "M5a")),
                     (2, pirate("P-purple-3a", "M5a")))
    assert GAME.view(GAME.fold(events), 0)["ships"][0]["leader"] is None


def test_pirates_cannot_beat_a_trump_but_a_new_attacker_may_still_join():
    start = started(["M5a", "ADM", "M2a"], ["P-blue-4a", "P-blue-4b", "M2b"])
    events = history(start, (0, merchant("M5a")), (1, pirate("P-blue-4a", "M5a")),
                     (0, admiral("M5a")))
    given(GAME, *events).when(pirate("P-blue-4b", "M5a"), 1).then(
        ev("pirate_played", seat=1, card="P-blue-4b", merchant="M5a"), ev("turn_passed", seat=0),
        ev("merchant_captured", seat=0, merchant="M5a",
           cards=["P-blue-4a", "ADM", "P-blue-4b"]))


def test_an_unattacked_own_ship_is_captured_at_the_owners_next_turn_not_before():
    start = started(["M5a", "M2a"], ["M2b", "M3a"])
    events = history(start, (0, merchant("M5a")))
    assert GAME.fold(events)["won"] == [[], []]
    given(GAME, *events).when(DRAW, 1).then(
        ev("card_drawn", seat=1, card="P-gold-1a"), ev("turn_passed", seat=0),
        ev("merchant_captured", seat=0, merchant="M5a", cards=[]))


@pytest.mark.parametrize(("command", "code"), [
    ({"type": "play_merchant", "card": "M8a"}, "not_in_hand"),
    ({"type": "play_merchant", "card": "P-blue-2a"}, "not_a_merchant"),
    ({"type": "play_pirate", "card": "P-blue-2a", "merchant": "M5a"}, "no_merchant_in_play"),
    ({"type": "play_pirate", "card": "M2a", "merchant": "M5a"}, "not_a_pirate"),
    ({"type": "play_captain", "card": "P-blue-2a", "merchant": "M5a"}, "not_a_captain"),
    ({"type": "play_admiral", "card": "C-blue", "merchant": "M5a"}, "not_an_admiral"),
    ({"type": "discard", "card": "P-blue-2a"}, "deck_not_empty"),
    ({"type": "take_discard", "card": "P-blue-2a"}, "command_not_allowed"),
    ({"type": "play_pirate", "card": "P-blue-2a"}, "invalid_command"),
    ({"type": "fly"}, "unknown_command"),
])
def test_rule_errors_have_stable_codes(command, code):
    given(GAME, started(["M2a", "P-blue-2a", "C-blue", "ADM"], ["M2b"])).when(
        command, 0).rejected(code)


def test_a_pirate_on_a_ship_not_in_play_is_rejected():
    start = started(["M5a", "M2a"], ["P-blue-2a", "M3a"])
    given(GAME, *history(start, (0, merchant("M5a")))).when(
        pirate("P-blue-2a", "M7a"), 1).rejected("merchant_not_in_play")


# --- §7 end and §8 empty draw pile -----------------------------------------------------------

def test_the_game_ends_at_once_when_the_pile_is_empty_and_a_player_plays_the_last_card():
    start = started(["M5a", "M2a"], ["M3a"], deck=["P-blue-1a"])
    events = history(start, (0, merchant("M5a")), (1, DRAW))
    assert GAME.fold(events)["won"][0] == ["M5a"]  # captured at the start of seat 0's turn
    state = given(GAME, *events).when(merchant("M2a"), 0).then(
        ev("merchant_played", seat=0, card="M2a"), ev("game_ended", unclaimed=["M2a"]))
    assert GAME.pending(state) == {}
    assert GAME.result(state) == {"scores": {"0": 5, "1": -3}, "winners": [0],
                                  "ranking": [[0], [1]]}


def test_drawing_the_last_card_while_another_hand_is_empty_ends_the_game_by_default():
    start = started(["M5a"], ["M3a"], deck=["P-blue-1a"])
    given(GAME, *history(start, (0, merchant("M5a")))).when(DRAW, 1).then(
        ev("card_drawn", seat=1, card="P-blue-1a"), ev("game_ended", unclaimed=["M5a"]))


def test_with_end_requires_play_drawing_the_last_card_does_not_end_the_game():
    start = started(["M5a"], ["M3a", "P-blue-1a"], deck=["P-blue-2a"], end_requires_play=True)
    events = history(start, (0, merchant("M5a")))
    state = given(GAME, *events).when(DRAW, 1).then(
        ev("card_drawn", seat=1, card="P-blue-2a"),
        ev("turn_skipped", seat=0),  # no cards and no pile: seat 0 sits out, captures still run
        ev("merchant_captured", seat=0, merchant="M5a", cards=[]),
        ev("turn_passed", seat=1))
    assert not state["over"]
    events = history(start, (0, merchant("M5a")), (1, DRAW), (1, merchant("M3a")),
                     (1, {"type": "discard", "card": "P-blue-1a"}))
    state = given(GAME, *events).when({"type": "discard", "card": "P-blue-2a"}, 1).then_state()
    assert state["over"] and GAME.result(state)["scores"] == {"0": 5, "1": 3}


def test_drawing_from_an_empty_pile_is_rejected():
    given(GAME, started(["M2a"], ["M2b"], deck=[])).when(DRAW, 0).rejected("deck_empty")


def test_with_an_empty_pile_a_non_merchant_card_may_be_discarded_even_when_a_play_exists():
    start = started(["M2a", "P-blue-1a", "P-blue-2a"], ["M2b"], deck=[])
    given(GAME, start).when({"type": "discard", "card": "P-blue-1a"}, 0).then(
        ev("card_discarded", seat=0, card="P-blue-1a"), ev("turn_passed", seat=1))


def test_merchant_ships_may_never_be_discarded():
    given(GAME, started(["M2a", "P-blue-1a"], ["M2b"], deck=[])).when(
        {"type": "discard", "card": "M2a"}, 0).rejected("cannot_discard_merchant")


def _seed_literal_events():
    # Seat 1 captures M5a; its battle cards go to the discard pile; the draw pile is empty.
    start = started(["M5a", "P-blue-1a", "P-green-1a"], ["P-purple-2a", "M2b", "P-gold-4a"],
                    deck=[], empty_deck_mode="seed_literal")
    return history(start, (0, merchant("M5a")), (1, pirate("P-purple-2a", "M5a")),
                   (0, pirate("P-blue-1a", "M5a")), (1, merchant("M2b")))


def test_seed_literal_mode_lets_a_player_take_a_non_merchant_from_the_discard_pile():
    assert GAME.fold(_seed_literal_events())["discard"] == ["P-purple-2a", "P-blue-1a"]
    given(GAME, *_seed_literal_events()).when({"type": "take_discard", "card": "P-blue-1a"},
                                              0).then(
        ev("discard_taken", seat=0, card="P-blue-1a"), ev("turn_passed", seat=1),
        ev("merchant_captured", seat=1, merchant="M2b", cards=[]))


def test_seed_literal_mode_discards_only_when_nothing_can_be_played_or_taken():
    given(GAME, *_seed_literal_events()).when({"type": "discard", "card": "P-green-1a"},
                                              0).rejected("discard_not_needed")


def test_seed_literal_mode_never_lets_a_merchant_be_taken_from_the_discard_pile():
    start = started(["M5a", "M2a", "M3c"], ["M2b", "M3a"], ["M2c", "M3b"], deck=[],
                    empty_deck_mode="seed_literal")
    events = history(start, (0, merchant("M5a")), (1, merchant("M2b")), (2, merchant("M2c")))
    state = GAME.fold(events)
    state["discard"].append("M4a")  # as if an unclaimed ship had been discarded
    with pytest.raises(Rejected) as exc:
        GAME.decide(state, {"type": "take_discard", "card": "M4a"}, 0, Rng("t"))
    assert exc.value.code == "cannot_take_merchant"


def test_seed_literal_mode_allows_taking_only_once_the_pile_is_empty():
    given(GAME, started(["M2a"], ["M2b"], empty_deck_mode="seed_literal")).when(
        {"type": "take_discard", "card": "P-gold-1a"}, 0).rejected("deck_not_empty")


def test_equal_scores_share_the_win():
    tie = GAME.fold(history(started(["M2a"], ["P-blue-1a"], deck=[]), (0, merchant("M2a"))))
    assert GAME.result(tie) == {"scores": {"0": 0, "1": 0}, "winners": [0, 1],
                                "ranking": [[0, 1]]}


# --- §9 team play ----------------------------------------------------------------------------

TEAM_HANDS = (["M5a", "ADM", "M2a"], ["P-blue-2a", "C-blue", "M2b"], ["M3a"],
              ["P-blue-1a", "P-green-1a", "M2c"])


def test_team_partner_must_attack_with_the_team_colour():
    start = team_start(*TEAM_HANDS)
    events = history(start, (0, merchant("M5a")), (1, pirate("P-blue-2a", "M5a")), (2, DRAW))
    given(GAME, *events).when(pirate("P-green-1a", "M5a"), 3).rejected("wrong_colour")


def test_team_strength_adds_both_partners_skulls():
    start = team_start(*TEAM_HANDS)
    events = history(start, (0, merchant("M5a")), (1, pirate("P-blue-2a", "M5a")), (2, DRAW),
                     (3, pirate("P-blue-1a", "M5a")))
    ship = GAME.view(GAME.fold(events), 0)["ships"][0]
    assert ship["strengths"] == [0, 3] and ship["colours"] == [None, "blue"]


def test_team_partner_may_play_the_admiral_on_the_partners_ship():
    start = team_start(["M5a", "M2a"], ["P-blue-2a", "M2b"], ["ADM", "M3a"], ["M2c"])
    events = history(start, (0, merchant("M5a")), (1, pirate("P-blue-2a", "M5a")))
    given(GAME, *events).when(admiral("M5a"), 2).then(
        ev("admiral_played", seat=2, card="ADM", merchant="M5a"), ev("turn_passed", seat=3))


def test_team_partner_may_play_the_team_colours_captain():
    start = team_start(["M5a", "M2a"], ["P-blue-2a", "M2b"], ["M3a"], ["C-blue", "M2c"])
    events = history(start, (0, merchant("M5a")), (1, pirate("P-blue-2a", "M5a")), (2, DRAW))
    given(GAME, *events).when(captain("C-blue", "M5a"), 3).then(
        ev("captain_played", seat=3, card="C-blue", merchant="M5a"), ev("turn_passed", seat=0))


def _anchor_moves():
    # Seat 3 makes team 1's first play on seat 0's ship; team 1 then leads on it.
    return [(0, merchant("M5a")), (1, DRAW), (2, DRAW), (3, pirate("P-blue-2a", "M5a"))]


def _team_capture_start(mode):
    return team_start(["M5a", "M2a"], ["M2b"], ["M3a"], ["P-blue-2a", "M2c"],
                      team_capture=mode)


def test_team_capture_reading_b_waits_for_the_partner_who_first_played_on_the_ship():
    events = history(_team_capture_start("anchor"), *_anchor_moves(), (0, DRAW), (1, DRAW))
    given(GAME, *events).when(DRAW, 2).then(
        ev("card_drawn", seat=2, card="P-gold-2c"), ev("turn_passed", seat=3),
        ev("merchant_captured", seat=3, merchant="M5a", cards=["P-blue-2a"]))


def test_team_capture_reading_a_happens_at_the_turn_of_the_partner_first_in_turn_order():
    events = history(_team_capture_start("first_in_turn_order"), *_anchor_moves())
    given(GAME, *events).when(DRAW, 0).then(
        ev("card_drawn", seat=0, card="P-gold-2a"), ev("turn_passed", seat=1),
        ev("merchant_captured", seat=1, merchant="M5a", cards=["P-blue-2a"]))


def test_team_player_with_an_empty_hand_after_the_pile_is_exhausted_is_skipped():
    start = team_start(["M5a", "M2a"], [], ["M2b"], ["M3a"], deck=[])
    given(GAME, start).when(merchant("M5a"), 0).then(
        ev("merchant_played", seat=0, card="M5a"), ev("turn_skipped", seat=1),
        ev("turn_passed", seat=2))


def test_a_skipped_team_player_still_takes_its_captures_when_its_turn_comes_round():
    start = team_start(["M5a", "M2a"], ["M3a"], ["M2b", "M2c"], ["M3b", "M3c"], deck=[])
    events = history(start, (0, merchant("M5a")), (1, merchant("M3a")), (2, merchant("M2b")),
                     (3, merchant("M3b")))
    assert GAME.fold(events)["won"][0] == ["M5a"]
    given(GAME, *events).when(merchant("M2a"), 0).then(
        ev("merchant_played", seat=0, card="M2a"),
        ev("turn_skipped", seat=1),
        ev("merchant_captured", seat=1, merchant="M3a", cards=[]),
        ev("turn_passed", seat=2),
        ev("merchant_captured", seat=2, merchant="M2b", cards=[]))


def test_team_game_ends_when_both_partners_are_out_and_the_team_scores_add_up():
    start = team_start(["M5a", "M2a"], [], ["M2b"], ["M3a"], deck=[])
    events = history(start, (0, merchant("M5a")), (2, merchant("M2b")))
    assert not GAME.fold(events)["over"]  # one partner out is not enough
    state = given(GAME, *events).when(merchant("M3a"), 3).then(
        ev("merchant_played", seat=3, card="M3a"),
        ev("game_ended", unclaimed=["M5a", "M2b", "M3a"]))
    assert GAME.result(state) == {
        "scores": {"0": -2, "1": 0, "2": 0, "3": 0},
        "teams": {"0": {"seats": [0, 2], "score": -2}, "1": {"seats": [1, 3], "score": 0}},
        "winners": [1, 3], "ranking": [[1, 3], [0, 2]]}


# --- hidden information -----------------------------------------------------------------------

def test_a_seat_sees_its_own_hand_and_only_counts_of_the_rest():
    state = GAME.fold(GAME.setup(3, GAME.load_options({}), Rng("view")))
    view = GAME.view(state, 1)
    assert view["hand"] == state["hands"][1]
    assert view["hand_counts"] == [6, 6, 6] and view["deck_count"] == 60
    text = json.dumps(view)
    hidden = set(state["hands"][0]) | set(state["hands"][2]) | set(state["deck"])
    assert not [c for c in hidden if f'"{c}"' in text]
    assert GAME.secrets(state, 1) == hidden


def test_captured_ships_are_counts_for_others_while_running_and_revealed_at_the_end():
    start = started(["M5a", "M2a"], ["M3a"], deck=["P-blue-1a"])
    state = GAME.fold(history(start, (0, merchant("M5a")), (1, DRAW)))
    assert GAME.view(state, 1)["won_counts"] == [1, 0] and GAME.view(state, 1)["won"] == []
    assert "M5a" not in GAME.secrets(state, 1)  # everyone saw it captured from the table
    assert GAME.view(state, 0)["won"] == ["M5a"]
    state = GAME.fold(GAME.decide(state, merchant("M2a"), 0, Rng("t")), state)
    assert GAME.secrets(state, 1) == set()
    assert GAME.view(state, SPECTATOR)["won_all"] == [["M5a"], []]
    assert GAME.view(state, 1)["hands"] == [[], ["M3a", "P-blue-1a"]]


def test_the_auditor_sees_everything():
    state = GAME.fold(GAME.setup(2, GAME.load_options({}), Rng("audit")))
    view = GAME.view(state, AUDITOR)
    assert view["hands"] == state["hands"] and view["deck"] == state["deck"]
    assert GAME.secrets(state, AUDITOR) == set()


def test_redaction_hides_the_deck_order_and_other_hands_in_the_deal():
    setup = GAME.setup(2, GAME.load_options({}), Rng("redact"))[0]
    seen = GAME.redact(setup, 0)
    assert seen.data["hand"] == setup.data["hands"][0]
    assert "deck" not in seen.data and "hands" not in seen.data
    assert seen.data["deck_count"] == 66 and seen.data["hand_counts"] == [6, 6]
    assert "hand" not in GAME.redact(setup, SPECTATOR).data
    assert GAME.redact(setup, AUDITOR) == setup


def test_redaction_hides_a_drawn_card_from_everyone_but_the_drawer():
    drawn = ev("card_drawn", seat=1, card="ADM")
    assert GAME.redact(drawn, 1) == drawn and GAME.redact(drawn, AUDITOR) == drawn
    assert GAME.redact(drawn, 0) == ev("card_drawn", seat=1)
    assert GAME.redact(drawn, SPECTATOR) == ev("card_drawn", seat=1)


def test_undo_never_crosses_the_deal_or_a_draw():
    assert {"loot_started", "card_drawn"} <= GAME.undo_barriers


# --- commands offered -------------------------------------------------------------------------

def test_legal_commands_are_all_accepted_and_include_the_default():
    start = started(["M5a", "P-blue-2a", "C-blue", "ADM", "M2a"], ["P-green-1a", "M3a"],
                    deck=[])
    state = GAME.fold(history(start, (0, merchant("M5a")), (1, pirate("P-green-1a", "M5a"))))
    legal = GAME.legal_commands(state, 0)
    for command in legal:
        GAME.decide(state, command, 0, Rng("t"))
    assert GAME.default_command(state, 0) == {"type": "discard", "card": "P-blue-2a"}
    assert admiral("M5a") in legal and pirate("P-blue-2a", "M5a") in legal
    assert captain("C-blue", "M5a") not in legal
    assert GAME.legal_commands(state, 1) == []


def test_default_command_draws_then_discards_then_plays_the_lowest_merchant():
    assert GAME.default_command(GAME.fold([started(["M8a"], ["M2a"])]), 0) == DRAW
    state = GAME.fold([started(["M8a", "M3a"], ["M2a"], deck=[])])
    assert GAME.default_command(state, 0) == merchant("M3a")


# --- invariants over random playouts (loot.md §11) --------------------------------------------

VARIANTS = [
    (2, {}), (3, {}), (5, {}), (8, {}),
    (4, {"teams": True}), (6, {"teams": True, "team_capture": "first_in_turn_order"}),
    (8, {"teams": True, "end_requires_play": True}),
    (3, {"empty_deck_mode": "seed_literal"}), (2, {"end_requires_play": True}),
]


@pytest.mark.parametrize(("seats", "options"), VARIANTS)
@pytest.mark.parametrize("seed", range(8))
def test_cards_are_conserved_and_battle_invariants_hold_over_random_playouts(
        seats, options, seed):
    opts = GAME.load_options(options)
    events = GAME.setup(seats, opts, Rng(f"setup-{seed}"))
    state = GAME.fold(events)
    rng = Rng(f"play-{seed}")
    for _ in range(5000):
        if state["over"]:
            break
        seat = state["turn"]
        legal = GAME.legal_commands(state, seat)
        assert GAME.default_command(state, seat) in legal
        new = GAME.decide(state, legal[rng.below(len(legal))], seat, rng)
        state = GAME.fold(new, state)
        assert sorted(all_cards(state)) == sorted(CARDS)  # §11: cards are conserved
        for ship in state["ships"]:
            colours = [c for c in ship["col"] if c is not None]
            assert len(colours) == len(set(colours))  # §11: one colour per participant
            for seat_, card in ship["plays"]:
                if KIND[card] == "admiral":  # §11: only the owner (or partner) plays it
                    assert seat_ % state["sides"] == ship["owner"] % state["sides"]
    assert state["over"] and GAME.result(state) is not None


# --- bots -------------------------------------------------------------------------------------

def test_basic_bot_beats_the_random_bot_in_at_least_70_percent_of_two_player_games():
    wins, games = 0, 200
    for seed in range(games):
        me = seed % 2
        bots = [random_bot, random_bot]
        bots[me] = GAME.bot("basic")
        state, _ = play_out(2, seed, bots=bots)
        wins += GAME.result(state)["winners"] == [me]
    assert wins / games >= 0.7, wins
    assert GAME.bot("basic") is basic


def test_explain_names_the_rule_checks_and_the_rejection_code():
    start = started(["M5a", "M2a"], ["P-blue-2a", "M3a"])
    state = GAME.fold(history(start, (0, merchant("M5a"))))
    lines = GAME.explain(state, pirate("P-blue-2a", "M5a"), 1)
    assert any("§5.1" in line for line in lines)
    assert GAME.explain(state, admiral("M5a"), 1)[0].startswith("Rejected (not_in_hand)")
