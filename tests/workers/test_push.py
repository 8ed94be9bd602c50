"""Web Push (issue 26): notices become pushes encrypted to the subscription's keys, sent by a
worker to a push service (here a loopback receiver that decrypts them as a browser would),
retried with backoff, and dropped when the push service says the subscription is gone."""

from __future__ import annotations

import pytest

from service.http import create_app
from service.runtime.config import Config
from tests import unlimited
from tests.workers.push_receiver import Browser, PushService
from workers import jobs


@pytest.fixture
def app(workers_url, workers_client, scheduler):
    config = Config(redis_url=workers_url, webhook_allow_http=True,
                    webhook_retry_seconds=(1, 2), **unlimited.CONFIG)
    app = create_app(config, followups=scheduler, redis_client=workers_client)
    jobs.use_service(app.extensions["tablestream"].service)
    yield app
    jobs.use_service(None)


@pytest.fixture
def push_service():
    found = PushService()
    yield found
    found.close()


def _players(client):
    tokens = [client.post("/v1/players", json={"name": n}).json["token"] for n in ("ann", "bob")]
    return [{"Authorization": f"Bearer {t}"} for t in tokens]


def _start(client, ann, bob) -> str:
    game_id = client.post("/v1/games", headers=ann, json={
        "game": "loot", "seats": [{"kind": "human"}, {"kind": "human"}]}).json["id"]
    client.post(f"/v1/games/{game_id}/join", headers=bob)
    assert client.post(f"/v1/games/{game_id}/start", headers=ann).status_code == 200
    return game_id


def test_a_started_game_is_pushed_encrypted_to_the_subscriptions_keys(app, push_service,
                                                                      drain):
    client = app.test_client()
    ann, bob = _players(client)
    browser = Browser(f"{push_service.base}/push/ann-phone")
    made = client.post("/v1/me/push-subscriptions", headers=ann, json=browser.subscription)
    assert made.status_code == 201, made.json
    key = client.get("/v1/me/push-key", headers=ann).json["public_key"]
    game_id = _start(client, ann, bob)
    drain()
    assert push_service.received, "the worker pushed"
    messages = [browser.decrypt(r["body"]) for r in push_service.received]
    started = [m for m in messages if m["notice"]["kind"] == "game_started"]
    assert len(started) == 1
    assert started[0]["notice"]["game_id"] == game_id and started[0]["notice"]["seat"] == 0
    assert started[0]["title"] == "Your game started"
    assert started[0]["url"] == f"/play/#/games/{game_id}"
    request = push_service.received[0]
    assert request["path"] == "/push/ann-phone"
    assert request["headers"]["content-encoding"] == "aes128gcm"
    # RFC 8292: signed with the server's VAPID key, the one browsers subscribe with.
    assert f"k={key}" in request["headers"]["authorization"]
    assert int(request["headers"]["ttl"]) > 0
    deliveries = client.get(f"/v1/me/push-subscriptions/{made.json['id']}/deliveries",
                            headers=ann).json
    assert {d["status"] for d in deliveries} == {"delivered"}
    assert len(deliveries) == len(messages)


def test_a_subscription_the_push_service_says_is_gone_is_dropped(app, push_service, drain):
    client = app.test_client()
    ann, bob = _players(client)
    browser = Browser(f"{push_service.base}/push/gone")
    client.post("/v1/me/push-subscriptions", headers=ann, json=browser.subscription)
    push_service.statuses = [410]
    _start(client, ann, bob)
    drain()
    assert len(push_service.received) >= 1
    assert client.get("/v1/me/push-subscriptions", headers=ann).json == []


def test_a_failed_push_is_retried_with_backoff_and_observable(app, push_service, drain):
    client = app.test_client()
    ann, bob = _players(client)
    browser = Browser(f"{push_service.base}/push/flaky")
    made = client.post("/v1/me/push-subscriptions", headers=ann,
                       json={**browser.subscription, "events": ["game_started"]}).json
    push_service.statuses = [500]
    _start(client, ann, bob)
    drain()
    [delivery] = client.get(f"/v1/me/push-subscriptions/{made['id']}/deliveries",
                            headers=ann).json
    assert delivery["status"] == "pending" and delivery["attempts"] == 1
    assert delivery["last_status"] == 500 and delivery["next_attempt"]
    # The retry comes due (1 s here): a worker's clock loop moves it onto the queue.
    from workers.clocks import ClockLoop

    followups = app.extensions["tablestream"].service.followups
    ClockLoop(followups.connection, [followups.webhook_queue.name]).tick(  # pushes' queue
        now=delivery["next_attempt"] / 1000 + 1)
    drain()
    [delivery] = client.get(f"/v1/me/push-subscriptions/{made['id']}/deliveries",
                            headers=ann).json
    assert delivery["status"] == "delivered" and delivery["attempts"] == 2
    assert [browser.decrypt(r["body"])["notice"]["kind"] for r in push_service.received] == [
        "game_started", "game_started"]


def test_a_moves_turn_push_reads_the_subscriptions_on_the_appends_own_round_trip(
        app, push_service, drain, monkeypatch):
    client = app.test_client()
    ann, bob = _players(client)
    browsers = {"ann": Browser(f"{push_service.base}/push/ann"),
                "bob": Browser(f"{push_service.base}/push/bob")}
    for headers, name in ((ann, "ann"), (bob, "bob")):
        client.post("/v1/me/push-subscriptions", headers=headers,
                    json={**browsers[name].subscription, "events": ["your_turn"]})
    game_id = _start(client, ann, bob)
    drain()
    push_service.received.clear()
    push = app.extensions["tablestream"].service.inbox.push
    separate_reads = []
    monkeypatch.setattr(push, "list", lambda player: separate_reads.append(player) or [])
    game = client.get(f"/v1/games/{game_id}", headers=ann).json
    mover, other = (ann, "bob") if str(game["you"]) in game["pending"] else (bob, "ann")
    move = client.get(f"/v1/games/{game_id}", headers=mover).json["legal_commands"][0]
    assert client.post(f"/v1/games/{game_id}/commands", headers=mover,
                       json=move).status_code == 200
    drain()
    assert separate_reads == [], "no HVALS of its own per notice: it rode on the append"
    turns = [browsers[other].decrypt(r["body"])["notice"] for r in push_service.received
             if r["path"] == f"/push/{other}"]
    assert [n["kind"] for n in turns] == ["your_turn"], turns


def test_push_endpoints_must_pass_the_outbound_address_check_in_production(redis_url,
                                                                         queue_redis_url):
    config = Config(redis_url=redis_url, queue_redis_url=queue_redis_url,
                    workers_enabled=False, **unlimited.CONFIG)
    client = create_app(config).test_client()
    [ann, _] = _players(client)
    for endpoint in ("http://push.example/x", "https://127.0.0.1/x", "https://10.0.0.1/x",
                     "https://[::1]/x", "https://localhost/x"):
        browser = Browser(endpoint)
        refused = client.post("/v1/me/push-subscriptions", headers=ann,
                              json=browser.subscription)
        assert refused.status_code == 400, endpoint
        assert refused.json["code"] == "invalid_push_endpoint"
    assert client.get("/v1/me/push-subscriptions", headers=ann).json == []


def test_a_push_endpoint_whose_name_now_resolves_inside_is_never_contacted(redis_client,
                                                                          monkeypatch):
    """Issue 23 item 9 for pushes: the name is resolved again at each delivery and every
    address checked, so a public name that later points at a private or loopback address is
    refused; the record says only that there was no answer (no port-scanner detail)."""
    import socket

    from service.app import push
    from service.app.webhooks import UNREACHABLE

    subscriptions = push.PushSubscriptions(redis_client)
    player = f"p_push_{id(subscriptions)}"
    keys = Browser("https://push.example.com/send/1").subscription["keys"]
    record = subscriptions.register(player, "https://push.example.com/send/1", keys["p256dh"],
                                    keys["auth"], ["your_turn"])
    def rebound(host, port, *args, flags=0, **kwargs):
        if flags & socket.AI_NUMERICHOST:
            raise socket.gaierror("not a numeric address")  # a name, not an address
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))]

    monkeypatch.setattr(socket, "getaddrinfo", rebound)

    def never(*args, **kwargs):
        raise AssertionError("a push was sent to an address it may not reach")

    import pywebpush

    monkeypatch.setattr(pywebpush, "webpush", never)
    delivery_id = f"{record['id']}-n1"
    redis_client.hset(f"push:deliveries:{record['id']}", delivery_id, push.json.dumps({
        "id": delivery_id, "subscription": record["id"], "kind": "your_turn",
        "notice": {"id": "n1", "kind": "your_turn", "game_id": "g1", "game": "loot"},
        "status": "pending", "attempts": 0, "created": 0, "last_status": None,
        "last_error": None}))
    assert subscriptions.deliver(player, record["id"], delivery_id) is not None  # a retry
    [delivery] = subscriptions.deliveries(player, record["id"])
    assert delivery["last_error"] == UNREACHABLE and delivery["status"] == "pending"
