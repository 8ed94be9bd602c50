"""Settings from the environment, read once at start-up."""

from __future__ import annotations

import os
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Config:
    redis_url: str | None = None  # None: the embedded Redis under data_dir
    queue_redis_url: str | None = None  # None: the event store's server
    data_dir: str = "var"
    rate_limit_per_second: int = 50  # commands per player per second; 0 turns it off
    sse_heartbeat_seconds: float = 15.0
    workers_enabled: bool = True
    cors_origins: tuple[str, ...] = ()  # browser origins allowed to call the API; "*" for any
    access_log: bool = True  # one JSON line per request on stderr
    webhook_allow_http: bool = False  # http:// and private addresses (local receivers, tests)
    webhook_retry_seconds: tuple[int, ...] = ()  # () = service.webhooks.RETRY_INTERVALS
    extra: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_env(cls) -> Config:
        return cls(redis_url=os.environ.get("REDIS_URL") or None,
                   queue_redis_url=os.environ.get("QUEUE_REDIS_URL") or None,
                   data_dir=os.environ.get("TABLESTREAM_DATA", "var"),
                   rate_limit_per_second=int(os.environ.get("RATE_LIMIT_PER_SECOND", "50")),
                   workers_enabled=os.environ.get("TABLESTREAM_WORKERS", "1") != "0",
                   cors_origins=tuple(origin.strip() for origin in
                                      os.environ.get("CORS_ORIGINS", "").split(",")
                                      if origin.strip()),
                   access_log=os.environ.get("ACCESS_LOG", "1") != "0",
                   webhook_allow_http=os.environ.get("WEBHOOK_ALLOW_HTTP", "0") == "1",
                   webhook_retry_seconds=tuple(int(s) for s in os.environ.get(
                       "WEBHOOK_RETRY_SECONDS", "").split(",") if s.strip()))
