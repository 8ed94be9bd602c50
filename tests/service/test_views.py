"""The caller's view: version, status, pending, legal commands; ETag and 304."""

from __future__ import annotations


def test_view_has_version_status_view_pending_and_postable_legal_commands(api):
    game_id, players = api.table("tally", 2, {"target": 30})
    public = api.get(game_id)
    seat = next(iter(public["pending"]))
    mine = api.get(game_id, players[int(seat)])
    assert {"version", "status", "view", "pending", "legal_commands"} <= set(mine)
    assert mine["status"] == "running"
    assert mine["you"] == int(seat)
    assert mine["pending"][seat]["since"] <= mine["version"]
    response = api.send(game_id, players[int(seat)], mine["legal_commands"][0], mine["version"])
    assert response.status_code == 200
    assert response.json["version"] == mine["version"] + 1


def test_waiting_seat_has_no_legal_commands(api):
    game_id, players = api.table("tally", 2, {"target": 30})
    seat = int(next(iter(api.get(game_id)["pending"])))
    assert api.get(game_id, players[1 - seat])["legal_commands"] == []


def test_etag_is_the_version_and_if_none_match_gives_304(api):
    game_id, players = api.table("tally", 2, {"target": 30})
    first = api.client.get(f"/v1/games/{game_id}", headers=players[0])
    etag = first.headers["ETag"]
    assert etag == f'"{first.json["version"]}"'
    again = api.client.get(f"/v1/games/{game_id}",
                           headers={**players[0], "If-None-Match": etag})
    assert again.status_code == 304


def test_start_needs_every_human_seat_filled(api):
    host = api.player("host")
    game_id = api.create(host, "tally", 2)
    response = api.client.post(f"/v1/games/{game_id}/start", headers=host)
    assert response.status_code == 409
    assert response.json["code"] == "seats_empty"


def test_lobby_lists_open_games_with_free_seats(api):
    host = api.player("host")
    game_id = api.create(host, "tally", 3)
    rows = api.client.get("/v1/games?status=open&game=tally&limit=500").json
    mine = next(r for r in rows if r["id"] == game_id)
    assert mine["free_seats"] == 2


def test_leaving_frees_the_seat(api):
    host, guest = api.player("host"), api.player("guest")
    game_id = api.create(host, "tally", 2)
    api.client.post(f"/v1/games/{game_id}/join", headers=guest)
    response = api.client.post(f"/v1/games/{game_id}/leave", headers=guest)
    assert response.status_code == 200
    assert [s["player"] is None for s in response.json["seats"]] == [False, True]


def test_event_pages_follow_from_and_to(api):
    game_id, players = api.table("tally", 1, {"target": 30})
    for _ in range(5):
        version = api.get(game_id)["version"]
        api.send(game_id, players[0], {"type": "add", "amount": 1}, version)
    page = api.client.get(f"/v1/games/{game_id}/events?from=2&to=6&limit=3").json
    assert [e["version"] for e in page["events"]] == [2, 3, 4]
    assert page["next"] == 5
    rest = api.client.get(f"/v1/games/{game_id}/events?from=5&to=6").json
    assert [e["version"] for e in rest["events"]] == [5, 6]
    assert rest["next"] is None


def test_the_lobby_index_is_a_cache_rebuilt_from_the_logs(api):
    from service.app.lobby import ROWS, status_key

    host = api.player("host")
    game_id = api.create(host, "tally", 3)
    lobby = api.app.extensions["tablestream"].lobby
    before = next(r for r in lobby.list(limit=500) if r["id"] == game_id)
    client = api.service.store.client
    client.hdel(ROWS, game_id)
    client.zrem(status_key("open"), game_id)
    assert all(r["id"] != game_id for r in lobby.list(limit=500))
    assert lobby.reindex(api.service, game_id)
    assert next(r for r in lobby.list(limit=500) if r["id"] == game_id) == before


def test_every_legal_command_is_a_body_that_can_be_posted_unchanged(api):
    game_id, players = api.table("loot", 2)
    seat = int(sorted(api.get(game_id)["pending"])[0])
    mine = api.get(game_id, players[seat])
    assert mine["legal_commands"]
    assert {c["expected_version"] for c in mine["legal_commands"]} == {mine["version"]}
    response = api.client.post(f"/v1/games/{game_id}/commands", headers=players[seat],
                               json=mine["legal_commands"][-1])
    assert response.status_code == 200, response.json


def test_times_are_unix_milliseconds_and_seats_integers_everywhere(api):
    game_id, _players = api.table("loot", 2, options={"turn_seconds": 60})
    public = api.get(game_id)
    [prompt] = public["pending"].values()
    assert isinstance(prompt["deadline"], int) and prompt["deadline"] > 1_700_000_000_000
    events = api.client.get(f"/v1/games/{game_id}/events").json["events"]
    assert all(isinstance(e["at"], int) and e["at"] > 1_700_000_000_000 for e in events)
    seats = {e["seat"] for e in events}
    assert None in seats and all(s is None or isinstance(s, int) for s in seats)


def test_a_created_game_answers_201_with_its_location(api):
    headers = api.player("ann")
    response = api.client.post("/v1/games", headers=headers, json={
        "game": "loot", "seats": [{"kind": "human"}, {"kind": "human"}]})
    assert response.status_code == 201
    assert response.headers["Location"].endswith(f"/v1/games/{response.json['id']}")


def test_a_move_answers_with_the_game_as_the_mover_sees_it_next(api):
    game_id, players = api.table("loot", 2)
    seat = int(sorted(api.get(game_id)["pending"])[0])
    mine = api.get(game_id, players[seat])
    answer = api.client.post(f"/v1/games/{game_id}/commands", headers=players[seat],
                             json=mine["legal_commands"][0]).json
    after = api.get(game_id, players[seat])
    assert answer["game"] == after  # the same body a GET would give, without the GET
    assert answer["game"]["version"] == answer["version"]
    assert answer["game"]["you"] == seat and answer["game"]["view"]["hand"] is not None


def test_the_etag_changes_with_the_language_so_a_switch_is_never_answered_304(api):
    """Prompt labels and the result's sentence are in the reader's language (issue 28)."""
    game_id, players = api.table("tally", 2, {"target": 30})
    ann = players[0]
    english = api.client.get(f"/v1/games/{game_id}", headers=ann)
    korean = api.client.get(f"/v1/games/{game_id}", headers={**ann, "Accept-Language": "ko"})
    assert english.headers["ETag"] != korean.headers["ETag"]
    switched = api.client.get(f"/v1/games/{game_id}", headers={
        **ann, "Accept-Language": "ko", "If-None-Match": english.headers["ETag"]})
    assert switched.status_code == 200 and switched.headers["Content-Language"] == "ko"
    again = api.client.get(f"/v1/games/{game_id}", headers={
        **ann, "Accept-Language": "ko", "If-None-Match": korean.headers["ETag"]})
    assert again.status_code == 304
