"""Helpers that play games through a real GameService (no HTTP)."""

from __future__ import annotations

import pytest

from games.core import Rng


def play_randomly(service, game_id: str, seed: int | str, moves: int | None = None) -> None:
    """Play a started game to its end (or ``moves`` moves): a seeded random pending seat sends a
    random legal command."""
    rng = Rng(f"random-play-{seed}")
    for _ in range(5000 if moves is None else moves):
        projection = service.projection(game_id)
        if projection.status == "finished":
            return
        seat = int(sorted(projection.opened)[rng.below(len(projection.opened))])
        legal = projection.game.legal_commands(projection.state, seat)
        service.act(game_id, seat, legal[rng.below(len(legal))], projection.version, None)
    if moves is None:
        pytest.fail("the game did not end")
