"""One account stream and one webhook follow a player's turns across two games (issue 14)."""

from __future__ import annotations

import json
import threading
import time

import pytest
from rq import SimpleWorker

from service.app.webhooks import sign
from service.http import create_app
from service.runtime.config import Config
from tests import unlimited
from tests.service.test_me_and_webhooks import Receiver
from tests.workers.conftest import wait_for
from tests.workers.push_receiver import Browser, PushService
from workers import jobs


@pytest.fixture
def app_service(workers_url, workers_client, scheduler):
    config = Config(redis_url=workers_url, sse_heartbeat_seconds=0.2, webhook_allow_http=True,
                    **unlimited.CONFIG)
    app = create_app(config, followups=scheduler, redis_client=workers_client)
    jobs.use_service(app.extensions["tablestream"].service)  # webhook jobs run with its inbox
    yield app
    jobs.use_service(None)


def _follow(client, headers, notices: list, stop: threading.Event) -> None:
    response = client.get("/v1/me/events/stream", headers=headers, buffered=False)
    for chunk in response.response:
        text = chunk.decode() if isinstance(chunk, bytes) else chunk
        for block in text.split("\n\n"):
            data = [line[6:] for line in block.splitlines() if line.startswith("data: ")]
            if data:
                notices.append(json.loads(data[0]))
        if stop.is_set():
            break
    response.close()


def test_one_account_stream_and_a_webhook_get_each_turn_of_two_games_in_order(
        app_service, drain):
    client = app_service.test_client()
    tokens = [client.post("/v1/players", json={"name": n}).json["token"] for n in ("ann", "bob")]
    ann, bob = ({"Authorization": f"Bearer {t}"} for t in tokens)
    receiver = Receiver()
    try:
        hook = client.post("/v1/me/webhooks", headers=ann, json={"url": receiver.url}).json
        streamed: list = []
        stop = threading.Event()
        follower = threading.Thread(target=_follow, args=(client, ann, streamed, stop),
                                    daemon=True)
        follower.start()
        time.sleep(0.5)  # the stream is open: it follows from now on
        games = []
        for _ in range(2):
            game_id = client.post("/v1/games", headers=ann, json={
                "game": "loot", "seats": [{"kind": "human"}, {"kind": "human"}]}).json["id"]
            assert client.post(f"/v1/games/{game_id}/join", headers=bob).status_code == 200
            assert client.post(f"/v1/games/{game_id}/start", headers=ann).status_code == 200
            games.append(game_id)
        expected: list[tuple[str, int]] = []  # (game, since) of each turn Ann was given
        seen: set[tuple[str, int]] = set()

        def note_anns_turns() -> None:
            for game_id in games:
                prompt = client.get(f"/v1/games/{game_id}").json["pending"].get("0")
                if prompt and (game_id, prompt["since"]) not in seen:
                    seen.add((game_id, prompt["since"]))
                    expected.append((game_id, prompt["since"]))

        note_anns_turns()
        for move in range(12):
            game_id = games[move % 2]
            public = client.get(f"/v1/games/{game_id}").json
            seat = int(sorted(public["pending"])[0])
            headers = ann if seat == 0 else bob
            mine = client.get(f"/v1/games/{game_id}", headers=headers).json
            sent = client.post(f"/v1/games/{game_id}/commands", headers=headers, json={
                **mine["legal_commands"][0], "expected_version": mine["version"]})
            assert sent.status_code == 200, sent.json
            note_anns_turns()
        assert {g for g, _ in expected} == set(games), "Ann had a turn in both games"

        def turns() -> list[tuple[str, int]]:
            return [(n["game_id"], n["since"]) for n in streamed if n["kind"] == "your_turn"]

        wait_for(lambda: len(turns()) >= len(expected), timeout=10,
                 message="Ann's stream to carry every turn")
        stop.set()
        assert turns() == expected
        assert [n["kind"] for n in streamed].count("game_started") == 2

        drain()  # the worker's webhook jobs
        pushed = streamed  # webhooks carry every notice kind (issue 26)
        got = [json.loads(r["body"]) for r in receiver.received]
        assert [n["id"] for n in got] == [n["id"] for n in pushed]  # each once, in order
        for request in receiver.received:
            assert request["headers"]["X-Tablestream-Signature"] == sign(
                hook["secret"], int(request["headers"]["X-Tablestream-Timestamp"]),
                request["body"])
        deliveries = client.get(f"/v1/me/webhooks/{hook['id']}/deliveries", headers=ann).json
        assert {d["status"] for d in deliveries} == {"delivered"}
        assert len(deliveries) == len(pushed)
    finally:
        receiver.close()


def test_a_clock_long_enough_gets_a_warning_job_a_quarter_before_it_runs_out():
    from workers.scheduling import warning_lead

    assert warning_lead(10) == 0  # too short to warn
    assert warning_lead(60) == 15
    assert warning_lead(600) == 30


def test_a_clock_warning_reaches_the_player_whose_decision_still_waits(app_service, drain):
    from workers.scheduling import due_jobs

    client = app_service.test_client()
    tokens = [client.post("/v1/players", json={"name": n}).json["token"] for n in ("ann", "bob")]
    ann, bob = ({"Authorization": f"Bearer {t}"} for t in tokens)
    game_id = client.post("/v1/games", headers=ann, json={
        "game": "loot", "seats": [{"kind": "human"}, {"kind": "human"}],
        "options": {"turn_seconds": 120}}).json["id"]
    client.post(f"/v1/games/{game_id}/join", headers=bob)
    client.post(f"/v1/games/{game_id}/start", headers=ann)
    service = app_service.extensions["tablestream"].service
    projection = service.projection(game_id)
    [warn] = [d for d in due_jobs(projection) if d.kind == "warn"]
    [clock] = [d for d in due_jobs(projection) if d.kind == "clock"]
    assert clock.at - warn.at == 30 and warn.since == clock.since
    player = projection.seats[warn.seat]["player"]
    before = service.inbox.latest(player)
    assert jobs.clock_warning(game_id, warn.seat, warn.since) is True
    [notice] = service.inbox.read(player, before)
    assert notice["kind"] == "clock_warning" and notice["game_id"] == game_id
    assert notice["deadline"] == round(clock.at * 1000)
    # A stale warning (the seat acted, or another decision is open) says nothing.
    assert jobs.clock_warning(game_id, warn.seat, warn.since - 1) is False
    assert jobs.clock_warning(game_id, 1 - warn.seat, warn.since) is False


def test_a_clock_warning_goes_out_once_per_decision_however_often_the_sweeper_runs(
        app_service, scheduler, drain):
    from workers.scheduling import due_jobs
    from workers.sweeper import Sweeper

    client = app_service.test_client()
    tokens = [client.post("/v1/players", json={"name": n}).json["token"] for n in ("ann", "bob")]
    heads = [{"Authorization": f"Bearer {t}"} for t in tokens]
    receiver = Receiver()
    push_service = PushService()
    try:
        for headers in heads:
            client.post("/v1/me/webhooks", headers=headers, json={"url": receiver.url})
        browsers = [Browser(f"{push_service.base}/push/{seat}") for seat in (0, 1)]
        for headers, browser in zip(heads, browsers, strict=True):
            client.post("/v1/me/push-subscriptions", headers=headers,
                        json=browser.subscription)
        game_id = client.post("/v1/games", headers=heads[0], json={
            "game": "loot", "seats": [{"kind": "human"}, {"kind": "human"}],
            "options": {"turn_seconds": 120}}).json["id"]
        client.post(f"/v1/games/{game_id}/join", headers=heads[1])
        client.post(f"/v1/games/{game_id}/start", headers=heads[0])
        service = app_service.extensions["tablestream"].service
        projection = service.projection(game_id)
        [warn] = [d for d in due_jobs(projection) if d.kind == "warn"]
        player = projection.seats[warn.seat]["player"]
        # The sweeper runs every second while the decision waits, between its warning and its
        # clock (30 s apart): each run finds the game overdue (its warning time has passed).
        # Only this game is swept: a whole sweep of the shared test database would also issue
        # the bot turns of other tests' unfinished games, and drain() would play them.
        for later in range(3, 28, 3):
            Sweeper(service, scheduler, clock=lambda later=later: warn.at + later).sweep_game(
                game_id)
            drain()
        warnings = [n for n in service.inbox.read(player) if n["kind"] == "clock_warning"]
        assert [(n["game_id"], n["seat"], n["since"]) for n in warnings] == [
            (game_id, warn.seat, warn.since)]
        def hooked_warnings() -> list[dict]:
            # The webhook queue on its own: in a full run the sweeper also finds other tests'
            # overdue games, whose bot turns would keep drain() on the main queue.
            SimpleWorker([scheduler.webhook_queue], connection=scheduler.connection).work(
                burst=True, logging_level="WARNING")
            return [json.loads(r["body"]) for r in receiver.received]

        hooked = wait_for(lambda: [h for h in [hooked_warnings()] if any(
            n["kind"] == "clock_warning" for n in h)], 15, 0.2, "the warning's webhook")[0]
        time.sleep(0.5)  # a second delivery, were there one, would land by now
        hooked = hooked_warnings()
        assert [n["id"] for n in hooked if n["kind"] == "clock_warning"] == [warnings[0]["id"]]
        # Webhooks carry every kind now: each player was told the game started.
        assert sorted(n["seat"] for n in hooked if n["kind"] == "game_started") == [0, 1]
        pushed = [browsers[int(r["path"].rsplit("/", 1)[1])].decrypt(r["body"])["notice"]
                  for r in push_service.received]
        assert [n["id"] for n in pushed if n["kind"] == "clock_warning"] == [
            warnings[0]["id"]]
    finally:
        receiver.close()
        push_service.close()


def test_a_notice_published_twice_is_delivered_once(app_service):
    service = app_service.extensions["tablestream"].service
    notice = {"kind": "clock_warning", "game_id": "g1", "game": "loot", "version": 3,
              "seat": 0, "since": 3, "deadline": 1}
    assert len(service.inbox.publish([("p-once", notice)])) == 1
    assert service.inbox.publish([("p-once", {**notice, "version": 4})]) == []
    # Another decision (or kind) of the same seat is another notice.
    assert len(service.inbox.publish([("p-once", {**notice, "since": 5})])) == 1
    assert len(service.inbox.publish([("p-once", {**notice, "kind": "your_turn"})])) == 1
