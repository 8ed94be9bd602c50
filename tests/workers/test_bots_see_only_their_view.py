"""Bots never receive hidden information: a bot is handed exactly its seat's view (rule 10)."""

from __future__ import annotations

import json

import pytest

from games import get_game
from tests.workers.conftest import GAMES


@pytest.mark.parametrize("game_name", GAMES)
def test_a_bot_is_given_exactly_what_its_seats_view_shows(game_name, service, drain,
                                                          monkeypatch):
    game = get_game(game_name)
    calls = []
    real_bot = game.bot

    def recording_bot(level):
        play = real_bot(level)

        def bot(view, legal, rng):
            calls.append((json.loads(json.dumps(view)), json.loads(json.dumps(legal))))
            return play(view, legal, rng)

        return bot

    monkeypatch.setattr(game, "bot", recording_bot)
    seats = [{"kind": "bot", "level": game.bot_levels[i % len(game.bot_levels)]}
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
    for (view, legal), move in zip(calls, moves, strict=True):
        before = service.replay(game_id, move.version - 1)
        seat = int(move.seat)
        assert view == json.loads(json.dumps(game.view(before.state, seat)))
        assert legal == json.loads(json.dumps(game.legal_commands(before.state, seat)))
        hidden = game.secrets(before.state, seat)
        shown = json.dumps(view)
        assert not [card for card in hidden if json.dumps(card) in shown]
