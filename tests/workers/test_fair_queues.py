"""No kind of background work waits behind a slower kind (issue 23 items 6 and 7): expert
searches and webhook deliveries have queues and workers of their own, a delivery attempt has a
total deadline, and a turn clock fires while a search and a delivery hold their workers."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator

import pytest
from rq.job import Job, JobStatus

from service.app.application import NoFollowUps
from service.app.push import PushSubscriptions
from service.app.webhooks import Webhooks
from tests.workers.conftest import wait_for
from tests.workers.test_clocks import _clocked_game, _events
from workers import queue_names
from workers.jobs import DeliveryDeadline, deadline
from workers.scheduling import Due, job_id


@pytest.fixture
def silent_receiver() -> Iterator[socket.socket]:
    """A loopback socket that accepts connections (the kernel does) and never answers."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    yield listener
    listener.close()


def _bot_game(service, level: str) -> tuple[str, Due]:
    followups, service.followups = service.followups, NoFollowUps()
    game_id = service.create_game("host", "loot", {}, [{"kind": "bot", "level": level}] * 2)
    service.followups = followups
    seat, prompt = next(iter(service.projection(game_id).opened.items()))
    return game_id, Due("bot", int(seat), prompt["since"], prompt["at"] / 1000,
                        search=level == "expert")


def test_a_worker_without_a_role_serves_every_queue_clocks_first():
    assert queue_names("all", "q") == ["q", "q-search", "q-webhooks"]
    assert queue_names("clocks", "q") == ["q"]
    assert queue_names("search", "q") == ["q-search"]
    assert queue_names("webhooks", "q") == ["q-webhooks"]


def test_an_expert_turn_goes_to_the_search_queue(service, scheduler):
    game_id, due = _bot_game(service, "expert")
    scheduler.issue(game_id, due)
    assert scheduler.search_queue.job_ids == [job_id("bot", game_id, due.seat, due.since)]
    assert scheduler.queue.job_ids == []


def test_a_quick_bot_turn_stays_on_the_clocks_queue(service, scheduler):
    game_id, due = _bot_game(service, "basic")
    scheduler.issue(game_id, due)
    assert scheduler.queue.job_ids == [job_id("bot", game_id, due.seat, due.since)]
    assert scheduler.search_queue.job_ids == []


def test_the_due_jobs_of_an_expert_seat_are_marked_for_the_search_queue(service, scheduler):
    from service.app.due import due_jobs

    game_id, due = _bot_game(service, "expert")
    assert due_jobs(service.projection(game_id)) == [due]
    assert due.search


def test_a_webhook_delivery_goes_to_the_webhook_queue(scheduler):
    scheduler.enqueue_webhook("p1", "wh_1", "d1")
    assert [jid[:3] for jid in scheduler.webhook_queue.job_ids] == ["wh-"]
    assert scheduler.queue.job_ids == [] and scheduler.search_queue.job_ids == []


def test_the_sweeper_sees_a_waiting_expert_turn_on_its_own_queue(service, scheduler):
    game_id, due = _bot_game(service, "expert")
    scheduler.issue(game_id, due)
    assert scheduler.status(game_id, due).waiting


def test_a_deadline_ends_a_read_that_would_wait_forever(silent_receiver):
    with socket.create_connection(silent_receiver.getsockname()) as conn:
        conn.settimeout(None)  # blocking, no socket timeout: only the deadline can end it
        with pytest.raises(DeliveryDeadline), deadline(0.2):
            conn.recv(1)


def test_a_deadline_gives_back_the_job_timeout_it_found():
    signal.setitimer(signal.ITIMER_REAL, 60)  # RQ's alarm for the job
    try:
        with deadline(5):
            pass
        assert 0 < signal.getitimer(signal.ITIMER_REAL)[0] <= 60
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def test_a_delivery_past_its_deadline_is_a_failed_attempt_to_retry(redis_client,
                                                                   silent_receiver):
    queued: list[tuple[str, str, str]] = []
    webhooks = Webhooks(redis_client, lambda *args: queued.append(args), allow_http=True,
                        retry_intervals=(7,))
    port = silent_receiver.getsockname()[1]
    player = "p-deadline-" + str(port)
    hook = webhooks.register(player, f"http://127.0.0.1:{port}/hook", ["your_turn"])
    webhooks.notify(player, {"id": "1-0", "kind": "your_turn", "game": "g"})
    (_, webhook_id, delivery_id), = queued
    with deadline(0.3):
        wait = webhooks.deliver(player, webhook_id, delivery_id)
    assert wait == 7.0
    delivery, = webhooks.deliveries(player, hook["id"])
    assert delivery["status"] == "pending" and delivery["attempts"] == 1


def _started(scheduler, jid: str) -> bool:
    return Job.fetch(jid, connection=scheduler.connection).get_status() == JobStatus.STARTED


@pytest.mark.e2e
def test_a_clock_fires_while_a_search_and_a_delivery_hold_their_workers(service, scheduler,
                                                                       worker_process):
    for role in ("clocks", "search", "webhooks"):
        worker_process(role=role)
    # Jobs that hold their worker far longer than the test: a search, a silent receiver.
    search = scheduler.search_queue.enqueue("time.sleep", 120, job_timeout=180)
    delivery = scheduler.webhook_queue.enqueue("time.sleep", 120, job_timeout=180)
    wait_for(lambda: _started(scheduler, search.id) and _started(scheduler, delivery.id),
             timeout=30, message="the search and the delivery under way")
    game_id, _ = _clocked_game(service, seconds=1)
    wait_for(lambda: any(e.type == "clock_expired" for e in _events(service, game_id)),
             timeout=30, message="the clock to fire")
    assert _started(scheduler, search.id) and _started(scheduler, delivery.id)


SCHEDULING_OF_A_SEARCH_WORKER = """
import os
from workers.runner import run
run(role="search", queue=os.environ["QUEUE"], burst=True)
print(os.sched_getscheduler(0) == os.SCHED_IDLE, os.getpriority(os.PRIO_PROCESS, 0))
"""


@pytest.mark.skipif(not hasattr(os, "SCHED_IDLE"), reason="Linux's SCHED_IDLE")
def test_a_search_worker_runs_only_on_cpu_time_nothing_else_wants(workers_url, queue_name):
    """A nice value weighs only within its session (the kernel's autogroups): under expert
    searches a bystander's bot reply took 1.7x as long at p50 with nice 10 alone (issue 23
    item 7); SCHED_IDLE gives the CPU to any other process that wakes."""
    ran = subprocess.run([sys.executable, "-c", SCHEDULING_OF_A_SEARCH_WORKER],
                         env={**os.environ, "REDIS_URL": workers_url, "QUEUE": queue_name},
                         capture_output=True, text=True, timeout=60, check=True)
    idle, niceness = ran.stdout.split()
    assert idle == "True" and int(niceness) >= 10


class RoundTrips:
    """Round trips to Redis made through ``clients``: commands sent alone, and pipelines."""

    def __init__(self, monkeypatch, *clients):
        self.sent: list[str] = []
        for client in clients:
            command, pipeline = client.execute_command, client.pipeline
            monkeypatch.setattr(client, "execute_command", lambda *a, _c=command, **k: (
                self.sent.append(str(a[0])) or _c(*a, **k)))
            monkeypatch.setattr(client, "pipeline", lambda *a, _p=pipeline, **k: (
                self._counted(_p(*a, **k))))

    def _counted(self, pipe):
        execute = pipe.execute
        pipe.execute = lambda *a, **k: self.sent.append("pipeline") or execute(*a, **k)
        return pipe


def test_a_notice_to_five_webhooks_is_written_and_queued_in_a_round_trip_each(
        redis_client, scheduler, monkeypatch):
    """A notice's deliveries are made inline by whatever made the notice (a bot's move in the
    clocks' worker, a move's request): five webhooks cost 25 round trips and 5 ms of it one by
    one; now one pipeline writes them and one ``enqueue_many`` queues them."""
    webhooks = Webhooks(redis_client, scheduler.enqueue_webhook, allow_http=True,
                        enqueue_many=scheduler.enqueue_webhooks)
    player = f"p-five-{scheduler.queue.name}"
    hooks = [webhooks.register(player, f"http://127.0.0.1:9/hook{n}", None) for n in range(5)]
    scheduler.enqueue_webhook("p0", "wh_0", "d0")  # RQ asks Redis's version once a connection
    registered = webhooks.list(player)  # read with the notice's other reads (Inbox.published)
    trips = RoundTrips(monkeypatch, redis_client, scheduler.connection)
    webhooks.notify(player, {"id": "1-0", "kind": "your_turn", "game": "g"}, hooks=registered)
    assert trips.sent == ["pipeline", "pipeline"]
    queued = [Job.fetch(jid, connection=scheduler.connection).args
              for jid in scheduler.webhook_queue.job_ids[1:]]
    assert sorted(queued) == sorted((player, hook["id"], f"{hook['id']}-1-0") for hook in hooks)
    for hook in hooks:
        [delivery] = webhooks.deliveries(player, hook["id"])
        assert delivery["status"] == "pending" and delivery["notice"]["id"] == "1-0"


def test_a_notice_to_three_push_subscriptions_is_written_and_queued_in_a_round_trip_each(
        redis_client, scheduler, monkeypatch):
    """Pushes are made inline as webhooks are: one pipeline records the deliveries, one
    ``enqueue_many`` queues them; the same notice again queues nothing (pushed once)."""
    push = PushSubscriptions(redis_client, scheduler.enqueue_push, allow_http=True,
                             enqueue_many=scheduler.enqueue_pushes)
    player = f"p-three-{scheduler.queue.name}"
    made = [push.register(player, f"http://127.0.0.1:9/push/{n}", "key", "auth", None)
            for n in range(3)]
    scheduler.enqueue_push("p0", "ps_0", "d0")  # RQ asks Redis's version once a connection
    records = push.list(player)  # read with the notice's other reads (Inbox.published)
    trips = RoundTrips(monkeypatch, redis_client, scheduler.connection)
    notice = {"id": "1-0", "kind": "your_turn", "game": "loot", "game_id": "g"}
    assert push.notify(player, notice, records=records) == 3
    assert trips.sent == ["pipeline", "pipeline"]
    queued = [Job.fetch(jid, connection=scheduler.connection).args
              for jid in scheduler.webhook_queue.job_ids[1:]]
    assert sorted(queued) == sorted((player, sub["id"], f"{sub['id']}-1-0") for sub in made)
    trips.sent.clear()
    assert push.notify(player, notice, records=records) == 0
    assert trips.sent == ["pipeline"]  # recorded already: nothing queued
    assert len(scheduler.webhook_queue.job_ids) == 4
    for sub in made:
        [delivery] = push.deliveries(player, sub["id"])
        assert delivery["status"] == "pending" and delivery["notice"]["id"] == "1-0"


def test_a_webhook_lists_its_latest_deliveries_and_its_record_is_cut_back_now_and_then(
        redis_client):
    from service.app import webhooks as module

    queued: list = []
    webhooks = Webhooks(redis_client, lambda *args: queued.append(args), allow_http=True)
    player = f"p-kept-{id(queued)}"
    hook = webhooks.register(player, "http://127.0.0.1:9/hook", ["your_turn"])
    record = module._deliveries_key(hook["id"])
    made = module.DELIVERIES_KEPT + module.DELIVERIES_SLACK
    for n in range(made):
        webhooks.notify(player, {"id": f"{n}-0", "kind": "your_turn", "game": "g"})
    assert redis_client.hlen(record) == made  # not cut at every notice
    listed = webhooks.deliveries(player, hook["id"])
    assert len(listed) == module.DELIVERIES_KEPT
    assert listed[0]["notice"]["id"] == f"{made - 1}-0"  # the newest first
    webhooks.notify(player, {"id": f"{made}-0", "kind": "your_turn", "game": "g"})
    assert redis_client.hlen(record) == module.DELIVERIES_KEPT  # the oldest gone
    assert webhooks.deliveries(player, hook["id"])[0]["notice"]["id"] == f"{made}-0"
