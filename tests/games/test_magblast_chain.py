"""Mag Blast response chains (magblast.md §4b-§4c; KR 비행대 방어하기, 직격 카드 콤보): Evasive
Action, Temporal Flux, intercepting Fighters and Cranium Consortium; seats asked one at a time in
turn order after the card's player, every seat the rules let answer whatever its hand holds
(issue 12); LIFO resolution."""

from __future__ import annotations

from games.core import Rng
from games.magblast import GAME
from games.magblast.data import ZONES
from tests.games.dsl import ev, given_state
from tests.games.magblast_table import (
    CARRIER,
    CARRIER2,
    CRUISER,
    CRUISER2,
    DESTROYER,
    DESTROYER2,
    DREAD,
    SCOUT,
    SCOUT2,
    ZEUS,
    A,
    B,
    C,
    D,
    conserved,
    plain,
    table,
    with_icons,
)

BEAM, LASER = plain("beam_blast", 1), plain("laser_blast", 1)
LASER2, LASER3 = plain("laser_blast", 2), plain("laser_blast", 3)
EVADE, EVADE2 = "evasive_action-1", "evasive_action-2"
FLUX, FLUX2 = "temporal_flux-1", "temporal_flux-2"
DH = plain("direct_hit")
NO = {"type": "no_response"}


def four(*ships):
    return dict(zip(ZONES, ships, strict=True))


FLEETS = [four(DESTROYER, CRUISER, DREAD, SCOUT), four(DESTROYER2, CRUISER2, ZEUS, SCOUT2),
          four("ship-06", "ship-07", "ship-08", "ship-09"),
          four("ship-10", "ship-11", "ship-12", "ship-02")]


def blast(card, ship_, target):
    return {"type": "blast", "card": card, "ship": ship_, "target": target, "sound": "pew"}


def respond(card):
    return {"type": "respond", "card": card}


def run(state, *moves):
    events = []
    for seat, command in moves:
        state, new = GAME.step(state, command, seat, Rng("test"))
        events += new
    return state, events


def asked(state):
    if state["chain"] is None:
        return None
    pending = GAME.pending(state)
    assert len(pending) <= 1, "a window asks one seat at a time"
    return next(iter(pending), None)


def test_evasive_action_cancels_a_blast_and_no_direct_hit_follows():
    state, _ = run(table(FLEETS[:2], [[BEAM, DH], [EVADE]]), (A, blast(BEAM, CRUISER, CRUISER2)))
    assert asked(state) == B
    prompt = GAME.pending(state)[B]
    assert prompt.clock == "reaction" and prompt.kinds == ("respond", "no_response")
    after, events = run(state, (B, respond(EVADE)), (A, NO))  # A may Flux the Evasive Action
    assert [e.type for e in events] == ["response_made", "response_passed", "card_settled",
                                        "card_cancelled", "card_settled", "chain_closed"]
    assert after["under"] == {} and after["dh"] is None
    assert {BEAM, EVADE} <= set(after["action_discard"])
    given_state(GAME, after).when({"type": "direct_hit", "card": DH}, A).rejected("no_blast_hit")


def test_a_seat_with_nothing_to_answer_is_asked_and_may_only_pass():
    # Issue 12: C holds no answer but the rules let it Flux A's card, so it is asked as if it
    # held one; only its own legal commands show it can but pass.
    state, _events = run(table(FLEETS[:3], [[BEAM], [], [LASER]]), (A, blast(BEAM, CRUISER,
                                                                          CRUISER2)))
    assert asked(state) == C
    assert GAME.pending(state)[C].kinds == ("respond", "no_response")
    assert GAME.legal_commands(state, C) == [NO]
    given_state(GAME, state).when(respond(LASER), C).rejected("cannot_respond_with")
    state, _ = run(state, (C, NO))
    assert asked(state) is None and state["under"][CRUISER2] == [[BEAM, 3]]


def test_a_seat_with_an_empty_hand_is_not_asked():
    # Every answer is a hand card (or paid with them) and hand counts are public: asking an
    # empty hand would tell nobody anything, so B (the target, no cards) is skipped.
    state, _events = run(table(FLEETS[:2], [[BEAM], []]), (A, blast(BEAM, CRUISER, CRUISER2)))
    assert asked(state) is None and state["under"][CRUISER2] == [[BEAM, 3]]


def _window_for(b_hand):
    """A blasts B's ship on a 3-seat table where B holds ``b_hand`` and C holds a Laser."""
    state = table(FLEETS[:3], [[BEAM, LASER2], b_hand, [LASER]])
    state, _ = run(state, (A, blast(BEAM, CRUISER, CRUISER2)))
    return state


def _asked_in_turn(state):
    """Every seat asked until the chain resolves, each passing: (seat, prompt) in order."""
    order = []
    while state["chain"] is not None:
        pending = GAME.pending(state)
        assert len(pending) == 1
        seat, prompt = next(iter(pending.items()))
        order.append((seat, prompt))
        state, _ = run(state, (seat, NO))
    return order


def test_the_seats_asked_are_the_same_whether_or_not_a_seat_holds_an_answer():
    holding, empty_handed = _window_for([EVADE]), _window_for([LASER3])
    assert _asked_in_turn(holding) == _asked_in_turn(empty_handed)
    assert [seat for seat, _ in _asked_in_turn(holding)] == [B, C]


def test_another_seat_sees_the_same_window_whether_or_not_the_asked_seat_holds_an_answer():
    holding, empty_handed = _window_for([EVADE]), _window_for([LASER3])
    for viewer in (A, C, "spectator"):
        assert GAME.view(holding, viewer) == GAME.view(empty_handed, viewer)
    assert GAME.pending(holding) == GAME.pending(empty_handed)
    # Only the asked seat's own legal commands differ.
    assert GAME.legal_commands(holding, B) == [respond(EVADE), NO]
    assert GAME.legal_commands(empty_handed, B) == [NO]


def test_a_game_created_before_every_eligible_seat_was_asked_keeps_its_old_windows():
    # Its options lack "windows": its log was decided asking only holders, and re-runs so.
    state = table(FLEETS[:3], [[BEAM], [], [LASER]])
    del state["options"]["windows"]
    state, _ = run(state, (A, blast(BEAM, CRUISER, CRUISER2)))
    assert asked(state) is None and state["under"][CRUISER2] == [[BEAM, 3]]


def test_seats_are_asked_one_at_a_time_in_turn_order_after_the_cards_player():
    state = table(FLEETS, [[], [FLUX], [EVADE], [FLUX2, LASER]], turn=D)
    # D fires at C: asked after D are A (nothing), B (Flux), C (Evasive, its ship), then nobody.
    state, _ = run(state, (D, {"type": "blast", "card": LASER, "ship": "ship-11",
                               "target": "ship-07", "sound": "pew"}))
    assert asked(state) == B
    state, _ = run(state, (B, NO))
    assert asked(state) == C
    assert GAME.default_command(state, C) == NO  # the reaction clock's default
    state, _ = run(state, (C, NO))
    assert asked(state) is None and state["under"]["ship-07"] == [[LASER, 1]]


def test_a_response_restarts_the_asking_after_its_player():
    state = table(FLEETS[:3], [[BEAM, FLUX], [EVADE], [FLUX2]])
    state, _ = run(state, (A, blast(BEAM, CRUISER, CRUISER2)), (B, respond(EVADE)))
    assert asked(state) == C  # after B: C, then A
    state, _ = run(state, (C, NO))
    assert asked(state) == A


def test_blast_evasive_flux_flux_resolves_last_in_first_out():
    """A's Blast, B's Evasive Action, A's Flux on it, B's Flux on that: B's Flux cancels A's,
    so the Evasive Action stands and the Blast is cancelled."""
    state = table(FLEETS[:2], [[BEAM, FLUX], [EVADE, FLUX2]])
    state, events = run(state, (A, blast(BEAM, CRUISER, CRUISER2)), (B, respond(EVADE)),
                        (A, respond(FLUX)), (B, respond(FLUX2)))
    cancelled = [(e.data["card"], e.data["by"]) for e in events if e.type == "card_cancelled"]
    assert cancelled == [(FLUX, "flux"), (BEAM, "evade")]
    assert state["chain"] is None and state["under"] == {}
    assert {BEAM, FLUX, EVADE, FLUX2} <= set(state["action_discard"])
    assert conserved(state)


def test_a_flux_on_the_evasive_action_lets_the_blast_hit():
    state = table(FLEETS[:2], [[BEAM, FLUX], [EVADE]])
    state, _ = run(state, (A, blast(BEAM, CRUISER, CRUISER2)), (B, respond(EVADE)),
                   (A, respond(FLUX)))
    assert state["under"][CRUISER2] == [[BEAM, 3]]


def test_temporal_flux_cancels_any_action_card_of_an_opponent():
    state = table(FLEETS[:2], [["strategic_allocation-1"], [FLUX]])
    state, _ = run(state, (A, {"type": "play_card", "card": "strategic_allocation-1"}))
    assert asked(state) == B
    state, _ = run(state, (B, respond(FLUX)))
    assert state["hands"][A] == []


def test_a_player_cannot_flux_their_own_card():
    state = table(FLEETS[:2], [[BEAM, FLUX], []])
    state, _ = run(state, (A, blast(BEAM, CRUISER, CRUISER2)))
    assert asked(state) is None


def _squadron(hands, b_fleet=None):
    fleets = [four(CARRIER, CRUISER, DREAD, SCOUT), b_fleet or four(CARRIER2, CRUISER2, ZEUS,
                                                                     SCOUT2)]
    return table(fleets, hands)


def test_evasive_action_sends_a_squadron_home_at_the_end_of_the_turn():
    state = _squadron([["bomber-1"], [EVADE]])
    state, _ = run(state, (A, {"type": "launch", "card": "bomber-1", "carrier": CARRIER,
                               "target": CARRIER2}), (B, respond(EVADE)))
    assert state["temp"] == {} and state["returning"] == [["bomber-1", A]]
    state, _ = run(state, (A, {"type": "end_turn"}))
    assert "bomber-1" in state["hands"][A]


def test_temporal_flux_discards_a_squadron():
    state = _squadron([["bomber-1"], [FLUX]])
    state, _ = run(state, (A, {"type": "launch", "card": "bomber-1", "carrier": CARRIER,
                               "target": CARRIER2}), (B, respond(FLUX)))
    assert "bomber-1" in state["action_discard"] and state["returning"] == []


def test_an_intercepting_fighter_downs_a_bomber_and_flies_home():
    state = _squadron([["bomber-1"], ["fighter-1"]])
    state, _ = run(state, (A, {"type": "launch", "card": "bomber-1", "carrier": CARRIER,
                               "target": CARRIER2}), (B, respond("fighter-1")))
    assert "bomber-1" in state["action_discard"]
    assert state["returning"] == [["fighter-1", B]] and state["temp"] == {}
    state, _ = run(state, (A, {"type": "end_turn"}))
    assert state["hands"][B] == ["fighter-1"]


def test_two_fighters_meeting_are_both_discarded():
    state = _squadron([["fighter-1"], ["fighter-2"]])
    state, _ = run(state, (A, {"type": "launch", "card": "fighter-1", "carrier": CARRIER,
                               "target": ZEUS}), (B, respond("fighter-2")))
    assert {"fighter-1", "fighter-2"} <= set(state["action_discard"])
    assert state["returning"] == []


def test_intercepting_needs_a_carrier_in_the_defending_fleet():
    state = _squadron([["fighter-1"], ["fighter-2"]], four(DESTROYER2, CRUISER2, ZEUS, SCOUT2))
    state, _ = run(state, (A, {"type": "launch", "card": "fighter-1", "carrier": CARRIER,
                               "target": ZEUS}))
    assert asked(state) == B and GAME.legal_commands(state, B) == [NO]  # no carrier: no Fighter
    state, _ = run(state, (B, NO))
    assert asked(state) is None and state["temp"] == {ZEUS: 2}


def test_evasive_action_cancels_a_direct_hit():
    state = table(FLEETS[:2], [[BEAM, DH], [EVADE]])
    state, _ = run(state, (A, blast(BEAM, CRUISER, CRUISER2)), (B, NO),
                   (A, {"type": "direct_hit", "card": DH}), (B, respond(EVADE)))
    assert state["dh"] is None and DH in state["action_discard"]


def test_cranium_consortium_cancels_a_blast_with_two_resource_icons():
    two = [with_icons("laser_blast", "star"), with_icons("laser_blast", "circle")]
    state = table(FLEETS[:2], [[BEAM, FLUX], two], races=["freep", "cranium"])
    state, _ = run(state, (A, blast(BEAM, CRUISER, CRUISER2)))
    assert GAME.pending(state)[B].kinds == ("respond", "cranium", "no_response")
    assert {c["type"] for c in GAME.legal_commands(state, B)} == {"cranium", "no_response"}
    given_state(GAME, state).when({"type": "cranium", "cards": two[:1]},
                                  B).rejected("wrong_icons")
    state, events = run(state, (B, {"type": "cranium", "cards": two}))
    assert state["under"] == {} and set(two) <= set(state["action_discard"])
    assert asked(state) is None  # Temporal Flux cannot cancel a power (decisions block)
    assert any(e.type == "card_cancelled" and e.data["by"] == "cranium" for e in events)
    assert conserved(state)


def test_the_redacted_window_shows_the_cards_played_to_everyone():
    state = table(FLEETS[:3], [[BEAM], [EVADE], []])
    state, _ = run(state, (A, blast(BEAM, CRUISER, CRUISER2)))
    seen = GAME.view(state, C)
    assert seen["chain"]["links"][0]["card"] == BEAM
    assert seen["pending"] == {"1": {"kinds": ["respond", "no_response"], "clock": "reaction",
                                     "label": "respond to beam_blast?"}}
    assert EVADE not in str(seen)


def test_the_events_of_a_window_are_the_cards_put_on_the_table():
    state = table(FLEETS[:2], [[BEAM], [EVADE]])
    state, _ = run(state, (A, blast(BEAM, CRUISER, CRUISER2)))
    given_state(GAME, state).when(respond(EVADE), B).then(
        ev("response_made", seat=B, card=EVADE, cards=[], action="evade"),
        ev("card_settled", card=EVADE, to="discard", owner=B),
        ev("card_cancelled", card=BEAM, seat=A, by="evade", by_seat=B),
        ev("card_settled", card=BEAM, to="discard", owner=A),
        ev("chain_closed"))


def test_explain_says_why_a_seat_was_asked():
    state = table(FLEETS[:2], [[BEAM], [EVADE]])
    state, _ = run(state, (A, blast(BEAM, CRUISER, CRUISER2)))
    text = "\n".join(GAME.explain(state, respond(EVADE), B))
    assert "was the seat asked" in text and "Then: response_made" in text
