"""Lists that page (issue 26): every list pages by cursor in a stable order, with the next
page's URL in an RFC 8288 Link header (and in the body where the answer is an object)."""

from __future__ import annotations

import re


def _next(response) -> str | None:
    link = response.headers.get("Link")
    if link is None:
        return None
    match = re.fullmatch(r'<([^>]+)>; rel="next"', link)
    assert match, link
    return match.group(1)


def _all_pages(client, url: str, headers=None) -> tuple[list, int]:
    """Every item of a list by following its Link headers; and how many pages it took."""
    items, pages = [], 0
    while url is not None:
        response = client.get(url, headers=headers or {})
        assert response.status_code == 200, response.json
        items += response.json
        pages += 1
        url = _next(response)
    return items, pages


def test_the_lobby_pages_by_cursor_and_a_game_created_meanwhile_shifts_nothing(api):
    ann = api.player("ann")
    mine = [api.create(ann, "loot", 2) for _ in range(5)]
    first = api.client.get("/v1/games?status=open&limit=2")
    assert first.status_code == 200 and len(first.json) == 2
    following = _next(first)
    assert following.startswith("/v1/games?") and "cursor=" in following
    api.create(ann, "loot", 2)  # newer than every page: it belongs before the first
    rest, _ = _all_pages(api.client, following)
    seen = [row["id"] for row in first.json + rest]
    assert len(seen) == len(set(seen)), "no game twice"
    # Newest first: the five, in the reverse of their creation, none skipped.
    assert [game_id for game_id in seen if game_id in mine] == mine[::-1]


def test_my_games_page_through_open_and_finished_games_in_a_stable_order(api):
    ann, bob = api.player("ann"), api.player("bob")
    games = [api.create(ann, "tally", 1, {"target": 1}) for _ in range(3)]
    finished, _ = api.table("tally", 1, {"target": 1})
    api.client.post(f"/v1/games/{finished}/leave", headers=ann)  # not Ann's (created by p0)
    for game_id in games[:2]:
        api.client.post(f"/v1/games/{game_id}/start", headers=ann)
        api.send(game_id, ann, {"type": "add", "amount": 1}, api.get(game_id)["version"])
    rows, pages = _all_pages(api.client, "/v1/me/games?limit=2", ann)
    assert pages == 2
    # Active games first (newest first), then the finished ones (latest finished first).
    assert [row["id"] for row in rows] == [games[2], games[1], games[0]]
    assert [row["status"] for row in rows] == ["open", "finished", "finished"]
    assert api.client.get("/v1/me/games?filter=finished&limit=1", headers=bob).json == []


def test_my_turn_pages_by_deadline(api):
    ann = api.player("ann")
    games = [api.create(ann, "tally", 1, {"target": 100}) for _ in range(3)]
    for game_id in games:
        api.client.post(f"/v1/games/{game_id}/start", headers=ann)
    rows, pages = _all_pages(api.client, "/v1/me/games?filter=my_turn&limit=1", ann)
    assert sorted(row["id"] for row in rows) == sorted(games) and pages == 3


def test_my_games_have_an_etag_that_changes_with_them(api):
    ann, bob = api.player("ann"), api.player("bob")
    game_id = api.create(ann, "loot", 2)
    first = api.client.get("/v1/me/games", headers=ann)
    etag = first.headers["ETag"]
    same = api.client.get("/v1/me/games", headers={**ann, "If-None-Match": etag})
    assert same.status_code == 304 and same.headers["ETag"] == etag
    api.client.post(f"/v1/games/{game_id}/join", headers=bob)
    api.client.post(f"/v1/games/{game_id}/start", headers=ann)
    changed = api.client.get("/v1/me/games", headers={**ann, "If-None-Match": etag})
    assert changed.status_code == 200 and changed.headers["ETag"] != etag
    assert changed.json[0]["status"] == "running"


def test_tokens_and_deliveries_page_by_cursor(api):
    ann = api.player("ann")
    for name in ("phone", "tablet", "laptop"):
        assert api.client.post("/v1/me/tokens", headers=ann, json={"name": name}).status_code \
            == 201
    tokens, pages = _all_pages(api.client, "/v1/me/tokens?limit=3", ann)
    assert pages == 2
    assert [t["name"] for t in tokens] == ["default", "phone", "tablet", "laptop"]
    # The page's last token revoked before the next page is asked for: nothing is skipped.
    first = api.client.get("/v1/me/tokens?limit=2", headers=ann)
    api.client.delete(f"/v1/me/tokens/{first.json[1]['id']}", headers=ann)
    rest, _ = _all_pages(api.client, _next(first), ann)
    assert [t["name"] for t in rest][-2:] == ["tablet", "laptop"]
    player = api.client.get("/v1/me", headers=ann).json["id"]
    webhooks = api.service.inbox.webhooks
    hook = webhooks.register(player, "https://hooks.example/tablestream", None)
    queued: list = []
    enqueue, webhooks.enqueue = webhooks.enqueue, lambda *args: queued.append(args)
    try:  # no worker here: nothing is sent
        for number in range(3):
            webhooks.notify(player, {"kind": "your_turn", "id": f"1-{number}", "game_id": "g"})
    finally:
        webhooks.enqueue = enqueue
    deliveries, pages = _all_pages(
        api.client, f"/v1/me/webhooks/{hook['id']}/deliveries?limit=2", ann)
    assert pages == 2 and len(queued) == 3
    assert [d["id"] for d in deliveries] == [f"{hook['id']}-1-{n}" for n in (2, 1, 0)]


def test_a_games_events_and_a_players_notices_say_where_the_next_page_starts(api):
    game_id, players = api.table("tally", 1, {"target": 100})
    page = api.client.get(f"/v1/games/{game_id}/events?limit=2")
    assert page.json["next"] == 3
    assert _next(page) == f"/v1/games/{game_id}/events?limit=2&from=3"
    events, pages = [], 0
    url = f"/v1/games/{game_id}/events?limit=2"
    while url:
        response = api.client.get(url)
        events += response.json["events"]
        pages += 1
        url = _next(response)
    assert [e["version"] for e in events] == list(range(1, api.get(game_id)["version"] + 1))
    notices = api.client.get("/v1/me/events?limit=1", headers=players[0])
    assert notices.json["next"] == notices.json["after"] == notices.json["notices"][0]["id"]
    assert _next(notices) == f"/v1/me/events?limit=1&after={notices.json['after']}"


def test_a_cursor_from_nowhere_is_refused(api):
    ann = api.player("ann")
    for url in ("/v1/games?cursor=nonsense", "/v1/me/games?cursor=WzFd",
                "/v1/me/tokens?cursor=WyJhIiwxXQ", "/v1/me/games?filter=my_turn&cursor=WzFd"):
        response = api.client.get(url, headers=ann)
        assert response.status_code == 400, url
        assert response.json["code"] == "invalid_cursor", url


def _all_enveloped(client, url: str, headers=None) -> tuple[list, int]:
    """Every item of a list by following the `next` of its bodies (``envelope=true``)."""
    items, pages, cursor = [], 0, None
    while True:
        query = "&".join(filter(None, ["envelope=true", cursor and f"cursor={cursor}"]))
        response = client.get(f"{url}{'&' if '?' in url else '?'}{query}",
                              headers=headers or {})
        assert response.status_code == 200, response.json
        assert set(response.json) == {"items", "next"}
        items += response.json["items"]
        pages += 1
        cursor = response.json["next"]
        # The same next page as the Link header names.
        assert (cursor is None) == (_next(response) is None)
        if cursor is None:
            return items, pages
        assert f"cursor={cursor}" in _next(response)


def test_the_lobby_and_my_games_give_the_next_page_in_the_body_with_envelope(api):
    ann = api.player("ann")
    mine = [api.create(ann, "loot", 2) for _ in range(3)]
    lobby, pages = _all_enveloped(api.client, "/v1/games?status=open&limit=2")
    assert [row["id"] for row in lobby if row["id"] in mine] == mine[::-1] and pages >= 2
    bare, _ = _all_pages(api.client, "/v1/games?status=open&limit=2")
    assert lobby == bare, "the same rows either way"
    games, pages = _all_enveloped(api.client, "/v1/me/games?limit=2", ann)
    assert [row["id"] for row in games] == mine[::-1] and pages == 2
    # Without it, the bare list as ever.
    assert isinstance(api.client.get("/v1/me/games", headers=ann).json, list)


def test_tokens_and_deliveries_give_the_next_page_in_the_body_with_envelope(api):
    ann = api.player("ann")
    for name in ("phone", "tablet"):
        api.client.post("/v1/me/tokens", headers=ann, json={"name": name})
    tokens, pages = _all_enveloped(api.client, "/v1/me/tokens?limit=2", ann)
    assert [t["name"] for t in tokens] == ["default", "phone", "tablet"] and pages == 2
    player = api.client.get("/v1/me", headers=ann).json["id"]
    inbox = api.service.inbox
    hook = inbox.webhooks.register(player, "https://hooks.example/tablestream", None)
    queued: list = []
    enqueue, inbox.webhooks.enqueue = inbox.webhooks.enqueue, lambda *a: queued.append(a)
    try:  # no worker here: nothing is sent
        for number in range(3):
            inbox.webhooks.notify(player, {"kind": "your_turn", "id": f"1-{number}",
                                           "game_id": "g"})
    finally:
        inbox.webhooks.enqueue = enqueue
    deliveries, pages = _all_enveloped(
        api.client, f"/v1/me/webhooks/{hook['id']}/deliveries?limit=2", ann)
    assert [d["id"] for d in deliveries] == [f"{hook['id']}-1-{n}" for n in (2, 1, 0)]
    assert pages == 2
    subscriptions, pages = _all_enveloped(api.client, "/v1/me/push-subscriptions", ann)
    assert subscriptions == [] and pages == 1


def test_envelope_pages_are_in_the_document_beside_the_bare_lists():
    from service.http.openapi import openapi_dict

    spec = openapi_dict()
    for path in ("/v1/games", "/v1/me/games", "/v1/me/tokens",
                 "/v1/me/webhooks/{webhook_id}/deliveries", "/v1/me/push-subscriptions",
                 "/v1/me/push-subscriptions/{subscription_id}/deliveries"):
        operation = spec["paths"][path]["get"]
        assert "envelope" in [p["name"] for p in operation["parameters"]], path
        array, page = operation["responses"]["200"]["content"]["application/json"][
            "schema"]["oneOf"]
        assert array["type"] == "array", path
        body = spec["components"]["schemas"][page["$ref"].rsplit("/", 1)[1]]
        assert body["required"] == ["items", "next"] and body["properties"]["items"] == array
    # The inbox and a game's events answer objects with `next` already.
    for path in ("/v1/me/events", "/v1/games/{game_id}/events"):
        schema = spec["paths"][path]["get"]["responses"]["200"]["content"][
            "application/json"]["schema"]
        name = schema["$ref"].rsplit("/", 1)[1]
        members = spec["components"]["schemas"][name].get("oneOf", [schema])
        for member in members:
            body = spec["components"]["schemas"][member["$ref"].rsplit("/", 1)[1]]
            assert "next" in body["required"], path
