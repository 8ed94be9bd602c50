"""Bots never receive hidden information: a bot is handed exactly its seat's view, legal
commands and, for a bot that reads it (the expert), its seat's redacted log (rule 10)."""

from __future__ import annotations

import copy
import json

import pytest

from events.projector import is_platform_event
from games import get_game
from games.core import Event
from tests.workers.conftest import GAMES


@pytest.mark.parametrize("game_name", GAMES)
def test_a_bot_is_given_exactly_what_its_seats_view_shows(game_name, service, drain,
                                                          monkeypatch):
    game = get_game(game_name)
    calls, thinking = [], []
    real_bot = game.bot

    def recording_bot(level):
        play = real_bot(level)

        def bot(seen, rng):
            if thinking:  # the expert's own playouts in its imagined worlds: not a move
                return play(seen, rng)
            calls.append((json.loads(json.dumps(seen.view)), json.loads(json.dumps(seen.legal)),
                          [e.to_dict() for e in seen.events], bot.reads_log))
            thinking.append(True)
            try:
                return play(seen, rng)
            finally:
                thinking.pop()

        bot.reads_log = getattr(play, "reads_log", False)
        return bot

    monkeypatch.setattr(game, "bot", recording_bot)
    # Every level plays (the expert thinks briefly: its budget is a count, not the clock).
    seats = [{"kind": "bot", "level": game.bot_levels[i % len(game.bot_levels)], "think_ms": 10}
             for i in range(max(game.min_seats, min(4, game.max_seats)))]
    options = {"target": 40} if game_name == "tally" else {}
    game_id = service.create_game("host", game_name, options, seats)
    drain()
    assert service.projection(game_id).status == "finished"

    # Re-derive, for every bot move in the log, what that seat's view was just before it.
    # The first event each bot command appended (one command id per bot decision).
    moves = list({e.cmd: e for e in reversed(service.store.read(game_id))
                  if e.cmd.startswith("bot:")}.values())[::-1]
    assert len(moves) == len(calls) > 0
    stored = service.store.read(game_id)
    log = [Event(e.type, e.data) for e in stored if not is_platform_event(e.type)]
    leaks = {seat: _leaks(game, log, seat) for seat in range(len(seats))}
    for (view, legal, events, reads_log), move in zip(calls, moves, strict=True):
        before = service.replay(game_id, move.version - 1)
        seat = int(move.seat)
        assert view == json.loads(json.dumps(game.view(before.state, seat)))
        assert legal == json.loads(json.dumps(game.legal_commands(before.state, seat)))
        # The log a bot reads is the seat's own events page, nothing more (no takebacks here).
        page = [Event(e.type, e.data) for e in stored[:move.version - 1]
                if not is_platform_event(e.type)]
        expected = [(game.redact(e, seat) or Event(e.type)).to_dict() for e in page]
        assert events == (expected if reads_log else [])
        assert not any(leaks[seat][:len(events)])  # no event showed what was hidden then
        hidden = game.secrets(before.state, seat)
        shown = json.dumps(view)
        assert not [card for card in hidden if json.dumps(card) in shown]
    assert any(reads for *_, reads in calls) == ("expert" in game.bot_levels)


def _leaks(game, log, seat):
    """Per game event: the card ids its redacted form shows ``seat`` that were hidden from it
    both just before and just after that event (as the HTTP scan judges events pages)."""
    state, out = game.initial_state(), []
    for event in log:
        after = game.evolve(copy.deepcopy(state), event)
        hidden = game.secrets(state, seat) & game.secrets(after, seat) if state else set()
        shown = json.dumps((game.redact(event, seat) or Event(event.type)).to_dict())
        out.append([card for card in hidden if json.dumps(card) in shown])
        state = after
    return out
