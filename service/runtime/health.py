"""Liveness and readiness, for load balancers and orchestrators (no Flask here)."""

from __future__ import annotations

import logging
import time
import uuid
from typing import Any

log = logging.getLogger(__name__)

# An RQ worker beats every few seconds while idle (its default worker_ttl is 420 s, the
# heartbeat much more often); a minute without one means no bot or clock is being served.
WORKER_HEARTBEAT_MAX_AGE = 60.0


def readiness(redis_client: Any, followups: Any) -> dict[str, str]:
    """Each check by name: "ok", or what is wrong. Ready means every check is "ok"."""
    return {"store": _store_writable(redis_client), "worker": _worker_seen(followups)}


def is_ready(checks: dict[str, str]) -> bool:
    return all(value in ("ok", "disabled") for value in checks.values())


def _store_writable(redis_client: Any) -> str:
    # A write, not a PING: a Redis whose disk is full answers PING but refuses writes.
    key = f"readyz:{uuid.uuid4().hex}"
    try:
        redis_client.set(key, str(time.time()), ex=10)
        redis_client.delete(key)
    except Exception as exc:  # any failure means not ready; the detail says which
        return f"unavailable: {type(exc).__name__}"
    return "ok"


def _worker_seen(followups: Any) -> str:
    connection = getattr(followups, "connection", None)
    if connection is None:
        return "disabled"  # this API issues no jobs (TABLESTREAM_WORKERS=0): nothing to wait for
    from workers.scheduling import worker_heartbeat_age

    try:
        age = worker_heartbeat_age(connection, getattr(followups.queue, "name", None))
    except Exception as exc:
        return f"unavailable: {type(exc).__name__}"
    if age is None:
        return "no worker has registered"
    if age > WORKER_HEARTBEAT_MAX_AGE:
        return f"last worker heartbeat {age:.0f}s ago"
    return "ok"
