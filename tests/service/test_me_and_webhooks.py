"""The player's account: who they are, their games, their notices and webhooks."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator

import pytest

from service.app.webhooks import Webhooks, sign


def test_me_says_who_the_token_belongs_to(api):
    headers = api.player("ann")
    response = api.client.get("/v1/me", headers=headers)
    assert response.status_code == 200
    assert response.json["name"] == "ann" and response.json["roles"] == []
    assert api.client.get("/v1/me").status_code == 401


def _first_to_act(api, game_id, players):
    public = api.get(game_id)
    return int(sorted(public["pending"])[0])


def test_my_games_lists_each_game_with_my_seat_and_my_prompt(api):
    ann, bob = api.player("ann"), api.player("bob")
    running = api.create(ann, "loot", 2)
    assert api.client.post(f"/v1/games/{running}/join", headers=bob).status_code == 200
    assert api.client.post(f"/v1/games/{running}/start", headers=ann).status_code == 200
    waiting = api.create(ann, "loot", 3)
    games = api.client.get("/v1/me/games", headers=ann).json
    assert [g["id"] for g in games] == [waiting, running]  # newest first
    by_id = {g["id"]: g for g in games}
    assert by_id[waiting]["status"] == "open" and by_id[waiting]["pending"] is None
    seat = _first_to_act(api, running, [ann, bob])
    assert by_id[running]["seat"] == 0
    assert by_id[running]["your_turn"] is (seat == 0)
    bobs = api.client.get("/v1/me/games?filter=my_turn", headers=bob).json
    assert [g["id"] for g in bobs] == ([running] if seat == 1 else [])
    if bobs:
        assert bobs[0]["pending"]["kinds"] and "deadline" in bobs[0]["pending"]
    assert [g["id"] for g in api.client.get("/v1/me/games?filter=open",
                                            headers=ann).json] == [waiting]
    assert api.client.get("/v1/me/games?filter=nonsense", headers=ann).status_code == 400


def test_a_game_i_left_before_it_started_is_not_mine(api):
    ann, bob = api.player("ann"), api.player("bob")
    game_id = api.create(ann, "loot", 2)
    api.client.post(f"/v1/games/{game_id}/join", headers=bob)
    assert api.client.post(f"/v1/games/{game_id}/leave", headers=bob).status_code == 200
    assert api.client.get("/v1/me/games", headers=bob).json == []


def test_notices_tell_each_player_of_the_start_and_of_their_turn(api):
    game_id, players = api.table("loot", 2)
    inbox = api.service.inbox
    me = {i: api.client.get("/v1/me", headers=h).json["id"] for i, h in enumerate(players)}
    seat = _first_to_act(api, game_id, players)
    kinds = {i: [(n["kind"], n["game_id"]) for n in inbox.read(me[i])] for i in me}
    assert ("game_started", game_id) in kinds[0] and ("game_started", game_id) in kinds[1]
    assert ("your_turn", game_id) in kinds[seat]
    assert ("your_turn", game_id) not in kinds[1 - seat]


# --- webhooks ---------------------------------------------------------------------------------

def test_a_webhook_must_be_https_and_not_a_private_address(api):
    headers = api.player("ann")
    for url in ("http://example.com/hook", "https://127.0.0.1/hook", "https://10.1.2.3/x",
                "https://localhost/x", "ftp://example.com/x"):
        response = api.client.post("/v1/me/webhooks", headers=headers, json={"url": url})
        assert response.status_code == 400, url
        assert response.json["code"] == "invalid_webhook_url"
    assert api.client.get("/v1/me/webhooks", headers=headers).json == []


def test_a_webhook_secret_is_shown_once_and_the_webhook_can_be_removed(api):
    headers = api.player("ann")
    created = api.client.post("/v1/me/webhooks", headers=headers, json={
        "url": "https://hooks.example/tablestream", "events": ["your_turn"]})
    assert created.status_code == 201 and len(created.json["secret"]) > 30
    listed = api.client.get("/v1/me/webhooks", headers=headers).json
    assert listed == [{k: v for k, v in created.json.items() if k != "secret"}]
    hook = created.json["id"]
    assert api.client.get(f"/v1/me/webhooks/{hook}/deliveries", headers=headers).json == []
    other = api.player("bob")
    assert api.client.delete(f"/v1/me/webhooks/{hook}", headers=other).status_code == 404
    assert api.client.delete(f"/v1/me/webhooks/{hook}", headers=headers).status_code == 204
    assert api.client.get("/v1/me/webhooks", headers=headers).json == []


class Receiver:
    """A local HTTP server that records each POST and answers with the next queued status."""

    def __init__(self):
        self.received: list[dict] = []
        self.statuses: list[int] = []
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.received.append({"headers": dict(self.headers), "body": body})
                self.send_response(receiver.statuses.pop(0) if receiver.statuses else 204)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    found = Receiver()
    yield found
    found.close()


def _hooks(redis_client, queued: list) -> Webhooks:
    return Webhooks(redis_client, lambda *args: queued.append(args), allow_http=True,
                    retry_intervals=(1, 2))


def test_a_delivery_is_signed_over_its_timestamp_and_body(redis_client, receiver):
    queued: list = []
    hooks = _hooks(redis_client, queued)
    hook = hooks.register("p_sign", receiver.url, None)
    hooks.notify("p_sign", {"kind": "your_turn", "game_id": "g1", "id": "1-0"})
    assert hooks.deliver(*queued[0], now=1_800_000_000) is None
    got = receiver.received[0]
    assert got["headers"]["X-Tablestream-Event"] == "your_turn"
    assert got["headers"]["X-Tablestream-Timestamp"] == "1800000000"
    assert got["headers"]["X-Tablestream-Signature"] == sign(hook["secret"], 1_800_000_000,
                                                             got["body"])
    assert json.loads(got["body"])["game_id"] == "g1"
    [delivery] = hooks.deliveries("p_sign", hook["id"])
    assert delivery["status"] == "delivered" and delivery["attempts"] == 1


def test_a_failed_delivery_is_retried_with_backoff_then_marked_failed(redis_client, receiver):
    queued: list = []
    hooks = _hooks(redis_client, queued)
    hook = hooks.register("p_retry", receiver.url, None)
    receiver.statuses = [500, 503, 500]
    hooks.notify("p_retry", {"kind": "game_over", "game_id": "g2", "id": "2-0"})
    waits = [hooks.deliver(*queued[0]) for _ in range(3)]
    assert waits == [1.0, 2.0, None]  # two retries, then given up
    [delivery] = hooks.deliveries("p_retry", hook["id"])
    assert delivery["status"] == "failed" and delivery["attempts"] == 3
    assert delivery["last_status"] == 500
    # The same delivery id on every attempt, so a receiver can drop repeats.
    ids = {r["headers"]["X-Tablestream-Delivery"] for r in receiver.received}
    assert len(receiver.received) == 3 and len(ids) == 1
    assert hooks.deliver(*queued[0]) is None and len(receiver.received) == 3


def test_a_webhook_is_told_only_the_kinds_it_asked_for(redis_client, receiver):
    queued: list = []
    hooks = _hooks(redis_client, queued)
    hooks.register("p_kinds", receiver.url, ["game_over"])
    hooks.notify("p_kinds", {"kind": "your_turn", "game_id": "g", "id": "3-0"})
    hooks.notify("p_kinds", {"kind": "game_started", "game_id": "g", "id": "3-1"})
    assert queued == []
    hooks.notify("p_kinds", {"kind": "game_over", "game_id": "g", "id": "3-2"})
    assert len(queued) == 1


def test_a_redirect_is_not_followed(redis_client, receiver):
    queued: list = []
    hooks = _hooks(redis_client, queued)
    hooks.register("p_redirect", receiver.url, None)
    receiver.statuses = [302]
    hooks.notify("p_redirect", {"kind": "game_over", "game_id": "g", "id": "4-0"})
    assert hooks.deliver(*queued[0]) == 1.0
    assert len(receiver.received) == 1


# --- tokens -----------------------------------------------------------------------------------

def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_a_player_holds_several_named_tokens_each_shown_once(api):
    headers = api.player("ann")
    phone = api.client.post("/v1/me/tokens", headers=headers, json={"name": "phone"})
    assert phone.status_code == 201 and phone.json["expires_at"] is None
    assert api.client.get("/v1/me", headers=_bearer(phone.json["token"])).json["name"] == "ann"
    listed = api.client.get("/v1/me/tokens", headers=headers).json
    assert [t["name"] for t in listed] == ["default", "phone"]
    assert all("token" not in t and "hash" not in t for t in listed)


def test_a_revoked_token_stops_at_once(api):
    headers = api.player("ann")
    phone = api.client.post("/v1/me/tokens", headers=headers, json={"name": "phone"}).json
    assert api.client.get("/v1/me", headers=_bearer(phone["token"])).status_code == 200
    assert api.client.delete(f"/v1/me/tokens/{phone['id']}", headers=headers).status_code == 204
    refused = api.client.get("/v1/me", headers=_bearer(phone["token"]))
    assert refused.status_code == 401 and refused.json["code"] == "invalid_token"
    assert api.client.delete(f"/v1/me/tokens/{phone['id']}", headers=headers).status_code == 404


def test_rotating_a_token_keeps_its_name_and_lifetime_and_ends_the_old_one(api):
    headers = api.player("ann")
    old = api.client.post("/v1/me/tokens", headers=headers,
                          json={"name": "tablet", "expires_in": 3600}).json
    new = api.client.post(f"/v1/me/tokens/{old['id']}/rotate", headers=headers)
    assert new.status_code == 201
    assert new.json["name"] == "tablet" and new.json["id"] != old["id"]
    assert new.json["expires_at"] - new.json["created"] == 3_600_000  # Unix ms
    assert api.client.get("/v1/me", headers=_bearer(old["token"])).status_code == 401
    assert api.client.get("/v1/me", headers=_bearer(new.json["token"])).status_code == 200


def test_an_expiring_token_is_expired_by_redis_itself(api, redis_client):
    from service.app.accounts import _token_key

    headers = api.player("ann")
    short = api.client.post("/v1/me/tokens", headers=headers,
                            json={"name": "kiosk", "expires_in": 60}).json
    assert 55 <= redis_client.ttl(_token_key(short["token"])) <= 60
    assert short["expires_at"] == short["created"] + 60_000


@pytest.mark.parametrize("body", [{"name": ""}, {"name": "x", "expires_in": 5}, {}])
def test_a_malformed_token_request_is_a_400_and_makes_nothing(api, body):
    headers = api.player("ann")
    response = api.client.post("/v1/me/tokens", headers=headers, json=body)
    assert response.status_code == 400 and response.mimetype == "application/problem+json"
    assert len(api.client.get("/v1/me/tokens", headers=headers).json) == 1


def test_another_players_token_cannot_be_revoked_or_rotated(api):
    ann, bob = api.player("ann"), api.player("bob")
    anns = api.client.get("/v1/me/tokens", headers=ann).json[0]["id"]
    assert api.client.delete(f"/v1/me/tokens/{anns}", headers=bob).status_code == 404
    assert api.client.post(f"/v1/me/tokens/{anns}/rotate", headers=bob).status_code == 404
    assert api.client.get("/v1/me", headers=ann).status_code == 200


def test_a_moves_notices_and_their_webhooks_ride_on_its_append(api, redis_client, receiver,
                                                               monkeypatch):
    """A move's notices go in the append's own round trip (the store's outbox, issue 13): the
    next player has their your_turn, and their webhook its delivery, with one EVALSHA sent. On
    Redis Cluster the inboxes are in other slots than the game, so they follow in a pipeline."""
    game_id, players = api.table("loot", 2)
    me = [api.client.get("/v1/me", headers=h).json["id"] for h in players]
    queued: list = []
    inbox = api.service.inbox
    hooks = _hooks(redis_client, queued)
    monkeypatch.setattr(inbox, "webhooks", hooks)
    seat = _first_to_act(api, game_id, players)
    other = me[1 - seat]
    hook = hooks.register(other, receiver.url, ["your_turn"])
    mine = api.get(game_id, players[seat])
    before = inbox.latest(other)
    sent: list[tuple] = []
    client = api.service.store.client
    real, real_pipeline = client.execute_command, client.pipeline
    monkeypatch.setattr(client, "execute_command", lambda *a, **k: sent.append(a) or real(*a, **k))
    monkeypatch.setattr(client, "pipeline", lambda *a, **k: sent.append(("pipeline",))
                        or real_pipeline(*a, **k))
    response = api.send(game_id, players[seat], mine["legal_commands"][0], mine["version"])
    monkeypatch.undo()
    assert response.status_code == 200, response.json
    round_trips = ["EVALSHA"] if api.service.store.has_outbox else ["EVALSHA", "pipeline"]
    assert [c[0] for c in sent] == round_trips, sent
    [notice] = [n for n in inbox.read(other, after=before) if n["kind"] == "your_turn"]
    assert notice["game_id"] == game_id and notice["version"] == response.json["version"]
    assert [args[:2] for args in queued] == [(other, hook["id"])]
    [delivery] = hooks.deliveries(other, hook["id"])
    assert delivery["notice"] == notice and delivery["status"] == "pending"
