"""REDIS_CLUSTER=1: the store on a real (one-node) Redis Cluster, with the same timeouts and
pools as on a single server (issue 9 item 1)."""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from redis.cluster import RedisCluster

from events.embedded_redis import _free_port, server_binary
from events.redis_store import (
    MAX_BLOCK_MS,
    POOL_SIZE,
    SOCKET_TIMEOUT,
    STREAM_POOL_SIZE,
    RedisEventStore,
    connect,
)
from events.store import NewEvent
from service.config import Config
from service.http import create_app
from tests import unlimited
from tests.service.conftest import Api
from tests.service.test_sse import idle_stream_keeps_alive_then_carries_a_move


@pytest.fixture(scope="module")
def cluster_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A one-node Redis Cluster holding every slot (the bundled redis-server)."""
    directory: Path = tmp_path_factory.mktemp("cluster")
    port = _cluster_port()
    process = subprocess.Popen(
        [str(server_binary()), "--port", str(port), "--bind", "127.0.0.1", "--dir",
         str(directory), "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
         "--save", "", "--appendonly", "yes"], stdout=open(directory / "log", "w"))
    try:
        admin = redis.Redis(host="127.0.0.1", port=port, decode_responses=True,
                            socket_timeout=5)
        deadline = time.monotonic() + 30
        while True:
            try:
                admin.ping()
                break
            except redis.ConnectionError:
                assert time.monotonic() < deadline, "the cluster node did not start"
                time.sleep(0.05)
        admin.execute_command("CLUSTER", "ADDSLOTS", *range(16384))
        while admin.cluster("info")["cluster_state"] != "ok":
            assert time.monotonic() < deadline, "the cluster did not become ok"
            time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.kill()
        process.wait()


def _cluster_port() -> int:
    """A free port whose cluster bus port (+10000) is a valid, free port too."""
    while True:
        port = _free_port()
        if port + 10000 > 65535:
            continue
        with socket.socket() as bus:
            try:
                bus.bind(("127.0.0.1", port + 10000))
            except OSError:
                continue
        return port


def _node_pool(client: RedisCluster) -> redis.ConnectionPool:
    return client.get_default_node().redis_connection.connection_pool


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
