"""Shared fixtures: a real Redis server for store, service and worker tests (STYLE.md rule 7).

TABLESTREAM_TEST_CLUSTER=1 (``make test-cluster``) puts the event store on a real 3-master
Redis Cluster (tests/cluster.py) and the RQ queues on a plain Redis, as a deployment on Cluster
does (docs/DEPLOY.md); tests that need a standalone server are marked ``standalone_redis``.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest

from events import embedded_redis
from events.redis_store import RedisClient, RedisEventStore, connect
from tests.cluster import LocalCluster, start_cluster

ON_CLUSTER = os.environ.get("TABLESTREAM_TEST_CLUSTER") == "1"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On the cluster run, skip what needs one standalone server (and says why)."""
    if not ON_CLUSTER:
        return
    for item in items:
        marker = item.get_closest_marker("standalone_redis")
        if marker is not None:
            item.add_marker(pytest.mark.skip(reason=f"standalone Redis only: {marker.args[0]}"))


@pytest.fixture(scope="session")
def plain_redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A standalone server: $REDIS_URL when set, else a private embedded one in a temporary
    data dir."""
    url = os.environ.get("REDIS_URL")
    if url:
        yield url
        return
    server = embedded_redis.start(tmp_path_factory.mktemp("redis"), "everysec")
    yield server.url
    server.stop()


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    """A private 3-master Redis Cluster (each master a third of the slots)."""
    cluster = start_cluster(tmp_path_factory.mktemp("cluster"))
    yield cluster
    cluster.stop()


@pytest.fixture(scope="session")
def redis_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """The event store's URL: the standalone server, or on the cluster run the cluster (and
    REDIS_CLUSTER=1, so every client the code under test makes is a cluster client)."""
    if not ON_CLUSTER:
        yield request.getfixturevalue("plain_redis_url")
        return
    cluster: LocalCluster = request.getfixturevalue("redis_cluster")
    before = os.environ.get("REDIS_CLUSTER")
    os.environ["REDIS_CLUSTER"] = "1"
    yield cluster.url
    if before is None:
        os.environ.pop("REDIS_CLUSTER", None)
    else:
        os.environ["REDIS_CLUSTER"] = before


@pytest.fixture(scope="session")
def queue_redis_url(request: pytest.FixtureRequest) -> str | None:
    """Where the RQ queues live: None (the event store's server), or on the cluster run the
    standalone server (RQ does not run on Redis Cluster)."""
    return request.getfixturevalue("plain_redis_url") if ON_CLUSTER else None


@pytest.fixture(scope="session")
def redis_client(redis_url: str) -> Iterator[RedisClient]:
    """A client for the test server: shared, so tests use unique keys and never FLUSHALL."""
    client = connect(redis_url)
    yield client
    client.close()


@pytest.fixture
def store(redis_client: RedisClient) -> RedisEventStore:
    """A fresh RedisEventStore (empty hash cache) on the test server."""
    return RedisEventStore(redis_client)


@pytest.fixture
def game_id(redis_client: RedisClient) -> Iterator[str]:
    """A fresh, unused game id; its keys are deleted afterwards, so a shared server stays clean."""
    gid = f"test-{uuid.uuid4().hex}"
    yield gid
    redis_client.delete(*(f"{{g:{gid}}}:{part}" for part in ("log", "meta", "secret", "cmds",
                                                               "snap", "snaps", "archive")))
