"""A whole 4-seat War of the Ring game over HTTP only (issue 24 point 7): four humans, two a
side, each seat shown its own Nations and hand, the seats of a side taking its dice in turn."""

from __future__ import annotations

from games.core import Rng


def test_four_humans_play_a_whole_four_seat_war_of_the_ring_over_http(seeded_api):
    api = seeded_api
    game_id, players = api.table("wotr", 4, {"scenario": "south", "max_rounds": 3})
    views = {seat: api.get(game_id, players[seat])["view"] for seat in range(4)}
    assert [views[s]["side"] for s in range(4)] == ["fp", "sh", "fp", "sh"]
    assert views[2]["nations"] == ["rohan", "north", "dwarves"]
    gondor_hand = views[0]["hand"]
    assert gondor_hand and views[2]["hand"] == []  # a teammate's hand stays hidden
    assert not any(f'"{card}"' in str(views[2]).replace("'", '"') for card in gondor_hand)
    rng = Rng("wotr-four-http")
    final = api.play_to_end(game_id, players,
                            choose=lambda legal, step: legal[rng.below(len(legal))])
    events = api.client.get(f"/v1/games/{game_id}/events?from=1&limit=1000").json["events"]
    rounds = [i for i, e in enumerate(events) if e["type"] == "round_started"]
    first, second = events[rounds[0]:rounds[1]], events[rounds[1]:]
    # the non-Leading seats first, then the Leading ones (Gondor and the Witch-king in round 1)
    assert [e["seat"] for e in first if e["type"] == "die_used"][:4] == [2, 3, 0, 1]
    # round 2: Rohan and Saruman lead, so each side's first die is Gondor's and the Witch-king's
    # (which side acts first depends on the random play: a side may pass or muster first)
    dice = [e["seat"] for e in second if e["type"] == "die_used"]
    assert next(s for s in dice if s in (0, 2)) == 0
    assert next(s for s in dice if s in (1, 3)) == 1
    result = final["result"]
    assert sorted(result["winners"]) in ([0, 2], [1, 3])
    assert result["summary"]
