"""Shared fixtures: a real Redis server for store, service and worker tests (STYLE.md rule 7)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest

from events import embedded_redis
from events.redis_store import RedisClient, RedisEventStore, connect


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """$REDIS_URL when set, else a private embedded server in a temporary data dir."""
    url = os.environ.get("REDIS_URL")
    if url:
        yield url
        return
    server = embedded_redis.start(tmp_path_factory.mktemp("redis"), "everysec")
    yield server.url
    server.stop()


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
