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
    # Creations and disputes per minute (0 turns one off), counted in Redis across processes:
    # players per client address, games and disputes per player (issue 9 items 4 and 9).
    players_per_minute: int = 10
    games_per_minute: int = 10
    disputes_per_minute: int = 3
    # Sign-in attempts with a password per 15 minutes (0 turns one off), counted in Redis: per
    # handle (guessing one account's password) and per client address (trying many handles).
    sign_ins_per_handle: int = 10
    sign_ins_per_address: int = 30
    # Reverse proxies in front that append to X-Forwarded-For; 0: the connection's address is
    # the client's, and the header is ignored (anyone can send it).
    trusted_proxies: int = 0
    unlisted_games: bool = False  # games kept for tests and benchmarks (tally) over HTTP
    webhook_allow_http: bool = False  # http:// and private addresses (local receivers, tests)
    webhook_retry_seconds: tuple[int, ...] = ()  # () = service.webhooks.RETRY_INTERVALS
    max_body_bytes: int = 64 * 1024  # larger request bodies are refused (413) unread
    ratings_namespace: str = "ratings"  # the ratings' Redis keys (tests use one each)
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
                   players_per_minute=_int("RATE_LIMIT_PLAYERS_PER_MINUTE", 10),
                   games_per_minute=_int("RATE_LIMIT_GAMES_PER_MINUTE", 10),
                   disputes_per_minute=_int("RATE_LIMIT_DISPUTES_PER_MINUTE", 3),
                   sign_ins_per_handle=_int("RATE_LIMIT_SIGN_INS_PER_HANDLE", 10),
                   sign_ins_per_address=_int("RATE_LIMIT_SIGN_INS_PER_ADDRESS", 30),
                   trusted_proxies=_int("TRUSTED_PROXIES", 0),
                   unlisted_games=os.environ.get("UNLISTED_GAMES", "0") == "1",
                   max_body_bytes=int(os.environ.get("MAX_BODY_BYTES", str(64 * 1024))),
                   webhook_allow_http=os.environ.get("WEBHOOK_ALLOW_HTTP", "0") == "1",
                   webhook_retry_seconds=tuple(int(s) for s in os.environ.get(
                       "WEBHOOK_RETRY_SECONDS", "").split(",") if s.strip()))


def _int(name: str, default: int) -> int:
    return int(os.environ.get(name, str(default)))
