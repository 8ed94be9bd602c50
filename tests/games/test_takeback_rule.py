"""The kernel's takeback rule, game by game (games/core.py, ``Game.reveals``): what an event
brings into a viewer's sight, worked out from ``secrets`` and ``redact`` alone."""

from __future__ import annotations

import copy

import pytest

from games import REGISTRY
from games.core import SPECTATOR, Rng


def _reveals(game, state, seat, command, viewer):
    """What ``seat``'s ``command`` brings into ``viewer``'s sight, event by event."""
    events = game.decide(state, command, seat, Rng("rule"))
    shown, before = set(), game.secrets(state, viewer)
    state = copy.deepcopy(state)
    for event in events:
        state = game.evolve(state, event)
        after = game.secrets(state, viewer)
        shown |= game.reveals(event, before, after, viewer)
        before = after
    return shown


def _opening(name: str, seats: int = 2):
    game = REGISTRY[name]
    state = game.fold(game.setup(seats, game.load_options({}), Rng(f"{name}-rule")))
    seat = sorted(game.pending(state))[0]
    return game, state, seat


@pytest.mark.skipif("loot" not in REGISTRY, reason="no loot")
def test_a_loot_draw_shows_the_card_to_the_drawer_only():
    game, state, seat = _opening("loot")
    drawn = _reveals(game, state, seat, {"type": "draw"}, seat)
    assert len(drawn) == 1 and drawn <= set(state["deck"])
    assert _reveals(game, state, seat, {"type": "draw"}, 1 - seat) == set()


@pytest.mark.skipif("loot" not in REGISTRY, reason="no loot")
def test_a_loot_card_played_from_hand_shows_it_to_everyone_else():
    game, state, seat = _opening("loot")
    for step in range(40):  # draw until the seat to move can play a card
        plays = [c for c in game.legal_commands(state, seat) if c["type"] != "draw"]
        if plays:
            break
        state, _ = game.step(state, {"type": "draw"}, seat, Rng("draws", step))
        seat = sorted(game.pending(state))[0]
    play = plays[0]
    card = next(v for v in play.values() if v in state["hands"][seat])
    assert _reveals(game, state, seat, play, 1 - seat) == {card}
    assert card in _reveals(game, state, seat, play, SPECTATOR)
    assert _reveals(game, state, seat, play, seat) == set()  # the player knew it


@pytest.mark.skipif("maskmen" not in REGISTRY, reason="no maskmen")
def test_maskmen_cards_played_show_themselves_and_never_the_set_aside():
    game, state, seat = _opening("maskmen")
    play = next(c for c in game.legal_commands(state, seat) if c["type"] == "play")
    shown = _reveals(game, state, seat, play, 1 - seat)
    # A play names a wrestler and a count (issue 12): the copies the server took leave the
    # hand, and they are what the others now know of it.
    assert len(shown) == play["count"]
    assert all(card.startswith(play["wrestler"] + "-") for card in shown)
    assert not shown & set(state["set_aside"])


@pytest.mark.skipif("faker_blue" not in REGISTRY, reason="no faker_blue")
def test_a_faker_blue_card_used_face_down_shows_nothing_to_the_others():
    game, state, seat = _opening("faker_blue")
    use = next(c for c in game.legal_commands(state, seat) if c["type"] == "use")
    for viewer in (1 - seat, SPECTATOR):
        assert _reveals(game, state, seat, use, viewer) == set()
