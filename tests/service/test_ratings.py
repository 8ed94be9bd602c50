"""Ratings (issue 25): a projection of finished rated games, folded by a worker job once per
game, rebuilt from the game streams with the same numbers; profiles and leaderboards."""

from __future__ import annotations

import secrets
import time

import pytest

from service.app.ratings import BOT_RATINGS, MODEL, SETTLE_SECONDS, Match, rate
from tests.service.conftest import Api


@pytest.fixture
def api(make_app) -> Api:
    """The API with ratings of its own, so that rebuilding them touches no other test's."""
    return Api(make_app({"ratings_namespace": f"ratings-{secrets.token_hex(4)}"}))


def ratings(api):
    return api.app.extensions["tablestream"].ratings


def fold(api) -> int:
    """The worker's job, run as if the games just finished had settled."""
    return ratings(api).fold_finished(api.service,
                                      now_ms=(time.time() + SETTLE_SECONDS + 0.5) * 1000)


def accounts(api, count: int) -> list[tuple[str, dict[str, str]]]:
    """``count`` new accounts: (handle, headers)."""
    out = []
    for i in range(count):
        handle = f"rater{i}x{secrets.randbelow(10**8):08d}"
        response = api.client.post("/v1/account", json={"handle": handle})
        assert response.status_code == 201, response.json
        out.append((handle, {"Authorization":
                             f"Bearer {response.json['session']['access_token']}"}))
    return out


def rated_table(api, game: str, players, options=None, bots=(), rated=True) -> str:
    seats = [{"kind": "human"}] * len(players) + [{"kind": "bot", "level": b} for b in bots]
    response = api.client.post("/v1/games", headers=players[0][1], json={
        "game": game, "seats": seats, "options": options or {}, "rated": rated})
    assert response.status_code == 201, response.json
    game_id = response.json["id"]
    for _, headers in players[1:]:
        assert api.client.post(f"/v1/games/{game_id}/join", headers=headers).status_code == 200
    response = api.client.post(f"/v1/games/{game_id}/start", headers=players[0][1])
    assert response.status_code == 200, response.json
    return game_id


def finish(api, game_id: str, players, max_steps: int = 5000) -> dict:
    """Play to the end: humans their first legal command, bot seats their bot's move."""
    for _ in range(max_steps):
        projection = api.service.projection(game_id)
        if projection.status == "finished":
            return projection.data["result"]
        seat = int(sorted(projection.opened, key=int)[0])
        if projection.seats[seat].get("bot"):
            api.service.bot_move(game_id, seat, projection.opened[str(seat)]["since"])
            continue
        mine = api.get(game_id, players[seat][1])
        response = api.send(game_id, players[seat][1], mine["legal_commands"][0],
                            mine["version"])
        assert response.status_code == 200, response.json
    raise AssertionError("the game did not end")


def profile(api, handle: str) -> dict:
    response = api.client.get(f"/v1/players/{handle}")
    assert response.status_code == 200, response.json
    return response.json


def rating(api, handle: str, game: str) -> dict | None:
    return next((r for r in profile(api, handle)["ratings"] if r["game"] == game), None)


def test_a_two_seat_rated_game_moves_the_winner_up_and_the_loser_down(api):
    players = accounts(api, 2)
    game_id = rated_table(api, "tally", players, {"target": 5})
    winner = finish(api, game_id, players)["winners"][0]
    assert fold(api) >= 1
    won, lost = rating(api, players[winner][0], "tally"), rating(api, players[1 - winner][0],
                                                                  "tally")
    assert won["mu"] > MODEL.mu > lost["mu"]
    assert won["sigma"] < MODEL.sigma and lost["sigma"] < MODEL.sigma
    assert (won["wins"], won["losses"], lost["wins"], lost["losses"]) == (1, 0, 0, 1)
    assert won["history"][-1]["game"] == game_id
    assert profile(api, players[winner][0])["record"] == {"games": 1, "wins": 1, "losses": 0,
                                                          "draws": 0}


def test_a_five_seat_game_rates_every_seat_by_its_rank(api):
    players = accounts(api, 5)
    game_id = rated_table(api, "tally", players, {"target": 7})
    result = finish(api, game_id, players)
    fold(api)
    by_seat = [rating(api, handle, "tally") for handle, _ in players]
    winner = result["winners"][0]
    # tally's ranking names the winner alone: the other four tie below.
    others = {round(r["mu"], 9) for seat, r in enumerate(by_seat) if seat != winner}
    assert len(others) == 1 and by_seat[winner]["mu"] > MODEL.mu > others.pop()
    assert all(r["games"] == 1 for r in by_seat)


def test_a_team_game_rates_partners_as_one_side(api):
    players = accounts(api, 4)
    game_id = rated_table(api, "loot", players, {"teams": True})
    result = finish(api, game_id, players)
    fold(api)
    by_seat = [rating(api, handle, "loot") for handle, _ in players]
    # loot.md §9: seat i partners seat i + N/2, and the team ranks as one.
    assert by_seat[0]["mu"] == by_seat[2]["mu"] and by_seat[1]["mu"] == by_seat[3]["mu"]
    winners = set(result["winners"])
    if len(winners) == 2:
        up = next(iter(winners))
        assert by_seat[up]["mu"] > MODEL.mu > by_seat[(up + 1) % 4]["mu"]
        assert by_seat[up]["wins"] == 1


def test_a_casual_game_changes_no_rating(api):
    players = accounts(api, 2)
    game_id = rated_table(api, "tally", players, {"target": 5}, rated=False)
    finish(api, game_id, players)
    fold(api)
    assert profile(api, players[0][0])["ratings"] == []
    assert api.get(game_id)["status"] == "finished"


def test_a_game_says_whether_it_is_rated_to_everyone_who_reads_it(api):
    players = accounts(api, 2)
    rated = rated_table(api, "tally", players, {"target": 5})
    casual = rated_table(api, "tally", players, {"target": 5}, rated=False)
    for game_id, expected in ((rated, True), (casual, False)):
        for headers in (players[0][1], players[1][1], {}):
            body = api.client.get(f"/v1/games/{game_id}", headers=headers).json
            assert body["rated"] is expected, (game_id, headers, body)


def test_folding_twice_counts_each_game_once(api):
    players = accounts(api, 2)
    finish(api, rated_table(api, "tally", players, {"target": 5}), players)
    fold(api)
    once = [rating(api, handle, "tally") for handle, _ in players]
    # A second run, a run of another worker from the start, a game counted by hand again.
    assert fold(api) == 0
    ratings(api).redis.delete(ratings(api).scanned_key)
    assert fold(api) == 0
    assert [rating(api, handle, "tally") for handle, _ in players] == once
    assert once[0]["games"] == 1


def test_a_game_waits_until_it_has_settled(api):
    players = accounts(api, 2)
    finish(api, rated_table(api, "tally", players, {"target": 5}), players)
    ratings(api).fold_finished(api.service)  # now: finished less than SETTLE_SECONDS ago
    assert rating(api, players[0][0], "tally") is None


def test_rebuilding_from_the_game_streams_gives_the_same_ratings(api):
    players = accounts(api, 3)
    for seats, target in (((0, 1), 5), ((1, 2), 6), ((0, 1, 2), 5), ((2, 0), 4)):
        table = [players[i] for i in seats]
        finish(api, rated_table(api, "tally", table, {"target": target}), table)
        fold(api)
    folded = [profile(api, handle)["ratings"] for handle, _ in players]
    assert ratings(api).rebuild(api.service) >= 4
    assert [profile(api, handle)["ratings"] for handle, _ in players] == folded
    assert folded[0][0]["games"] == 3


def test_a_late_game_is_folded_in_the_order_it_finished(api):
    players = accounts(api, 2)
    first = rated_table(api, "tally", players, {"target": 5})
    finish(api, first, players)
    second = rated_table(api, "tally", players, {"target": 6})
    finish(api, second, players)
    store = ratings(api)
    from service.app.ratings import match_of

    late, early = (match_of(g, api.service.store.read(g)) for g in (second, first))
    assert store.count(late) and store.count(early)  # the earlier game arrives last
    folded = [rating(api, handle, "tally") for handle, _ in players]
    store.rebuild(api.service)
    assert [rating(api, handle, "tally") for handle, _ in players] == folded


def test_a_seat_handed_to_a_bot_for_timeouts_counts_as_a_loss(api):
    players = accounts(api, 2)
    game_id = rated_table(api, "tally", players,
                          {"target": 9, "turn_seconds": 60, "max_timeouts": 1})
    projection = api.service.projection(game_id)
    gone = int(next(iter(projection.opened)))
    api.service.expire_clock(game_id, gone, projection.opened[str(gone)]["since"],
                             now=projection.deadline(gone) + 1)
    assert api.service.projection(game_id).seats[gone]["bot"]
    finish(api, game_id, players)
    fold(api)
    assert rating(api, players[gone][0], "tally")["losses"] == 1
    assert rating(api, players[1 - gone][0], "tally")["wins"] == 1


def test_bots_play_at_a_fixed_rating_per_level_and_are_not_rated():
    def beat(level: str) -> float:
        match = Match("g", "loot", 1.0, ((("p_1",), 1), ((f"bot:{level}",), 2)))
        return rate(match, {})["p_1"]["mu"]

    assert set(rate(Match("g", "loot", 1.0, ((("p_1",), 1), (("bot:basic",), 2))), {})) \
        == {"p_1"}
    # Beating a stronger bot is worth more.
    assert beat("expert") > beat("basic") > beat("random")
    assert BOT_RATINGS["expert"] > BOT_RATINGS["basic"] > BOT_RATINGS["random"]


def count_games(api, game_ids) -> None:
    """Fold these games alone (the shared test server holds other tests' rated games)."""
    from service.app.ratings import match_of

    for game_id in game_ids:
        ratings(api).count(match_of(game_id, api.service.store.read(game_id)))


def test_the_leaderboard_pages_best_first_with_its_next_cursor(api):
    players = accounts(api, 4)
    games = []
    for pair in ((0, 1), (2, 3), (0, 2)):
        table = [players[i] for i in pair]
        games.append(rated_table(api, "tally", table, {"target": 5}))
        finish(api, games[-1], table)
    count_games(api, games)
    whole = api.client.get("/v1/leaderboards/tally?limit=100")
    assert whole.status_code == 404  # tally is kept for tests: no public board
    board = ratings(api)
    page = board.board("tally", 100, None)
    assert len(page) == 4 and [s for _, s in page] == sorted((s for _, s in page), reverse=True)
    seen: list = []
    while chunk := board.board("tally", 1, (seen[-1][1], seen[-1][0]) if seen else None):
        seen += chunk
    assert seen == page


def test_the_leaderboard_endpoint_pages_with_its_next_cursor(api):
    players = accounts(api, 3)
    game_id = rated_table(api, "loot", players)
    finish(api, game_id, players)
    count_games(api, [game_id])
    pages, cursor = [], ""
    while True:
        response = api.client.get(f"/v1/leaderboards/loot?limit=2{cursor}")
        assert response.status_code == 200
        pages.append(response.json["entries"])
        if response.json["next"] is None:
            break
        cursor = f"&cursor={response.json['next']}"
    assert [len(p) for p in pages] == [2, 1]
    entries = [e for p in pages for e in p]
    assert {e["handle"] for e in entries} == {handle for handle, _ in players}
    assert [e["ordinal"] for e in entries] == sorted((e["ordinal"] for e in entries),
                                                     reverse=True)


def test_a_bad_cursor_or_an_unknown_game_is_refused(api):
    response = api.client.get("/v1/leaderboards/loot?cursor=not-a-cursor")
    assert response.status_code == 400 and response.json["code"] == "invalid_cursor"
    response = api.client.get("/v1/leaderboards/chess")
    assert response.status_code == 404 and response.json["code"] == "unknown_game_type"
    response = api.client.get("/v1/players/nobody-at-all-here")
    assert response.status_code == 404 and response.json["code"] == "player_not_found"


def test_the_worker_job_folds_a_finished_rated_game(api, monkeypatch):
    from service.app import ratings as ratings_module
    from service.app.ratings import Ratings
    from workers import jobs

    players = accounts(api, 2)
    finish(api, rated_table(api, "tally", players, {"target": 5}), players)
    monkeypatch.setattr(ratings_module, "SETTLE_SECONDS", 0.0)
    jobs.use_service(api.service)
    try:
        # The default ratings, shared with every server on the test Redis: other games count
        # there too, a batch at a time, until the index is read up to now.
        counted = [jobs.fold_ratings() for _ in range(40)]
    finally:
        jobs.use_service(None)
    assert sum(counted) >= 1
    default = Ratings(api.service.store.client)
    both = default.records("tally", [profile(api, handle)["id"] for handle, _ in players])
    assert [r["games"] for r in both] == [1, 1]


def test_a_fold_computed_from_ratings_changed_meanwhile_is_computed_again(api, monkeypatch):
    from service.app.ratings import match_of

    players = accounts(api, 2)
    games = [rated_table(api, "tally", players, {"target": t}) for t in (5, 6)]
    for game_id in games:
        finish(api, game_id, players)
    first, second = (match_of(g, api.service.store.read(g)) for g in games)
    store = ratings(api)
    real = store.redis.hmget
    stale = {}

    def read_then_race(key, ids):
        """The first read sees the ratings before ``first`` counts: another worker's fold
        lands between this one's read and its write."""
        found = real(key, ids)
        if not stale:
            stale["once"] = True
            store.count(first)
        return found

    monkeypatch.setattr(store.redis, "hmget", read_then_race)
    assert store.count(second)
    monkeypatch.setattr(store.redis, "hmget", real)
    raced = [rating(api, handle, "tally") for handle, _ in players]
    store.rebuild(api.service)
    assert [rating(api, handle, "tally") for handle, _ in players] == raced
    assert raced[0]["games"] == 2
