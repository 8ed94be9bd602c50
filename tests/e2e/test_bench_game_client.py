"""bench/game_client.py, the real-game load generator of `make bench-moves` (issue 29), plays real
Loot moves with pushes against `tablestream serve`, so the bench cannot rot unnoticed. Loopback
only, one game, about two seconds."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.game_client import Client

pytestmark = pytest.mark.e2e


def test_bench_game_client_plays_loot_moves_and_each_seat_is_told_of_the_others(server):
    async def play():
        client = Client(server, "loot", "first", [])
        assert await client.setup(1) == {"games": 1}
        try:
            async with asyncio.timeout(90):
                return await client.run(1, 0.3, 1.5)
        finally:
            await client.close()

    result = asyncio.run(play())
    assert result["errors"] == 0, result["error_kinds"]
    assert result["moves"] >= 2
    if not result["games_finished"]:
        assert result["slowest_game_moves"] == result["moves"]  # the one game made them all
    assert result["slowest_table_moves"] == result["moves"]
    assert result["pushes"] >= 1  # the other seat's stream delivered a move it did not make
    assert 0 < result["push_p50_ms"] < 30_000
    assert result["p50_ms"] > 0
    assert result["unwarmed"] == 0
