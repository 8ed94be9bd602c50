"""A whole 4-season Mask Men game of 4 humans over HTTP only (issue 5, item 2)."""

from __future__ import annotations

from games.core import Rng


def test_four_humans_play_a_whole_four_season_maskmen_game_over_http(seeded_api):
    api = seeded_api
    game_id, players = api.table("maskmen", 4)
    rng = Rng("maskmen-http")
    final = api.play_to_end(game_id, players,
                            choose=lambda legal, step: legal[rng.below(len(legal))])
    events = api.client.get(f"/v1/games/{game_id}/events?from=1&limit=1000").json["events"]
    seasons = [e for e in events if e["type"] == "season_ended"]
    assert len(seasons) == 4
    result = final["result"]
    assert sum(result["scores"].values()) == 4 * (2 + 1 - 1)  # maskmen.md: +2, +1, -1 a season
    best = max(result["scores"].values())
    assert sorted(result["winners"]) == sorted(int(s) for s, v in result["scores"].items()
                                               if v == best)
