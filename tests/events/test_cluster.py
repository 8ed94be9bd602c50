"""REDIS_CLUSTER=1: the store and the API on a real 3-master Redis Cluster (tests/cluster.py), with
the same timeouts and pools as on a single server (issue 9 item 1) and the RQ queues on a plain
Redis (issue 13). `make test-cluster` runs the store contract and the service tests there too."""

from __future__ import annotations

import uuid

import pytest
import redis
from redis.cluster import RedisCluster
from rq import SimpleWorker

from events.redis_store import (
    MAX_BLOCK_MS,
    POOL_SIZE,
    SOCKET_TIMEOUT,
    STREAM_POOL_SIZE,
    RedisEventStore,
    connect,
)
from events.store import NewEvent
from service.http import create_app
from service.runtime.config import Config
from tests import unlimited
from tests.cluster import SLOTS, LocalCluster
from tests.service.conftest import Api
from tests.service.test_sse import idle_stream_keeps_alive_then_carries_a_move
from workers import jobs
from workers.scheduling import QUEUES_NOT_ON_CLUSTER, JobScheduler, queue_connection
from workers.sweeper import Sweeper


@pytest.fixture
def cluster_url(redis_cluster: LocalCluster) -> str:
    """The URL of the session's 3-master cluster (tests/conftest.py)."""
    return redis_cluster.url


@pytest.fixture
def on_cluster(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every client the code makes from a URL is a cluster client, as in a deployment."""
    monkeypatch.setenv("REDIS_CLUSTER", "1")


def _node_pool(client: RedisCluster) -> redis.ConnectionPool:
    return client.get_default_node().redis_connection.connection_pool


def test_the_test_cluster_splits_the_slots_over_three_masters(redis_cluster: LocalCluster):
    ranges = sorted((start, end) for start, end, *_ in
                    redis_cluster.node(0).execute_command("CLUSTER", "SLOTS"))
    assert ranges == [(0, 5460), (5461, 10921), (10922, SLOTS - 1)]
    client = connect(redis_cluster.url, cluster=True)
    assert len(client.get_primaries()) == 3


def test_on_a_cluster_an_append_has_no_outbox_and_never_asks_for_one(
        redis_cluster: LocalCluster):
    store = RedisEventStore(connect(redis_cluster.url, cluster=True))
    game_id = f"nobox-{uuid.uuid4().hex}"
    store.create(game_id, {"game": "tally"}, "seed")
    result = store.append(game_id, 0, [NewEvent("a", {})], "c",
                          outbox=lambda stored: pytest.fail("the outbox was asked for"))
    assert not store.has_outbox and result.outbox is None and result.last_version == 1


def test_games_of_one_store_land_on_every_master_and_read_back(redis_cluster: LocalCluster):
    client = connect(redis_cluster.url, cluster=True)
    store = RedisEventStore(client)
    games = [f"spread-{uuid.uuid4().hex}" for _ in range(24)]
    for game_id in games:
        store.create(game_id, {"game": "tally"}, "secret")
        store.append(game_id, 0, [NewEvent("added", {"amount": 1})], f"c-{game_id}")
    nodes = {client.get_node_from_key(f"{{g:{game_id}}}:log").port for game_id in games}
    assert nodes == set(redis_cluster.ports)
    assert all(store.last_version(game_id) == 1 for game_id in games)
    assert set(games) <= set(store.game_ids())  # SCAN visits every master


def test_bot_jobs_from_the_plain_queue_redis_play_on_the_cluster(redis_cluster, on_cluster,
                                                                 plain_redis_url):
    queue = f"cluster-{uuid.uuid4().hex[:12]}"
    scheduler = JobScheduler(queue_connection(plain_redis_url), queue)
    api = Api(create_app(Config(redis_url=redis_cluster.url, queue_redis_url=plain_redis_url,
                                **unlimited.CONFIG), followups=scheduler))
    host = api.player("host")
    game_id = api.create(host, "tally", [{"kind": "human"}, {"kind": "bot", "level": "random"}],
                         {"target": 100})
    started = api.client.post(f"/v1/games/{game_id}/start", headers=host).json
    if "0" in started["pending"]:  # tally's first seat is drawn: the human moves first
        assert api.send(game_id, host, {"type": "add", "amount": 1},
                        started["version"]).status_code == 200
    bot_turn = api.get(game_id)
    assert list(bot_turn["pending"]) == ["1"]
    assert [job for job in scheduler.queue.get_job_ids() if job.startswith(f"bot-{game_id}-1-")]
    jobs.use_service(api.service)
    try:
        worker = SimpleWorker([scheduler.queue], connection=scheduler.connection)
        worker.work(burst=True, max_jobs=1, logging_level="WARNING")
        # The job ran a bot move against the cluster store; a sweep finds nothing lost.
        after = api.get(game_id)
        assert after["version"] == bot_turn["version"] + 1 and list(after["pending"]) == ["0"]
        assert Sweeper(api.service, scheduler).sweep_game(game_id) == 0
    finally:
        jobs.use_service(None)


def test_an_api_on_a_cluster_without_a_queue_redis_is_refused_at_start(redis_cluster,
                                                                       on_cluster):
    with pytest.raises(ValueError, match="QUEUE_REDIS_URL"):
        create_app(Config(redis_url=redis_cluster.url, workers_enabled=True))
    with pytest.raises(ValueError) as refused:
        JobScheduler.from_url(redis_cluster.url)
    assert str(refused.value) == QUEUES_NOT_ON_CLUSTER


def test_cluster_store_appends_reads_and_blocks_with_pools_of_its_own(cluster_url):
    client = connect(cluster_url, cluster=True)
    assert isinstance(client, RedisCluster)
    store = RedisEventStore(client)
    store.create("cluster-g1", {"game": "tally"}, "secret")
    store.append("cluster-g1", 0, [NewEvent("added", {"amount": 1})], "c1")
    assert [e.version for e in store.wait("cluster-g1", 0, 15_000)] == [1]
    assert store.wait("cluster-g1", 1, 200) == []  # blocked, then nothing
    assert store.write_error() is None
    commands, blocking = _node_pool(client), _node_pool(store.blocking_client())
    assert isinstance(commands, redis.BlockingConnectionPool)
    assert isinstance(blocking, redis.BlockingConnectionPool)
    assert commands.max_connections == POOL_SIZE
    assert blocking.max_connections == STREAM_POOL_SIZE
    assert commands.connection_kwargs["socket_timeout"] == SOCKET_TIMEOUT
    assert blocking.connection_kwargs["socket_timeout"] > MAX_BLOCK_MS / 1000


def test_api_on_a_cluster_plays_a_move_and_streams_it(cluster_url, monkeypatch):
    monkeypatch.setenv("REDIS_CLUSTER", "1")
    api = Api(create_app(Config(redis_url=cluster_url, workers_enabled=False,
                                sse_heartbeat_seconds=0.2, **unlimited.CONFIG)))
    idle_stream_keeps_alive_then_carries_a_move(api)


def test_a_finished_game_on_a_cluster_is_indexed_archived_and_read_back(cluster_url,
                                                                       monkeypatch):
    # The game's keys (archive included) share its hash tag; the indexes are other slots,
    # written as separate commands.
    monkeypatch.setenv("REDIS_CLUSTER", "1")
    api = Api(create_app(Config(redis_url=cluster_url, workers_enabled=False,
                                **unlimited.CONFIG)))
    game_id, players = api.table("tally", 1, {"target": 3})
    api.play_to_end(game_id, players)
    events = api.client.get(f"/v1/games/{game_id}/events?from=1").json
    assert game_id in [g["id"] for g in api.client.get("/v1/games?status=finished").json]
    assert api.service.archive(game_id)
    assert not api.service.store.client.exists(f"{{g:{game_id}}}:log")
    fresh = Api(create_app(Config(redis_url=cluster_url, workers_enabled=False,
                                  **unlimited.CONFIG)))
    assert fresh.client.get(f"/v1/games/{game_id}/events?from=1").json == events
    assert fresh.client.get(f"/v1/games/{game_id}/audit").status_code == 200
