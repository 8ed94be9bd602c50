"""Settings from the environment, read once at start-up."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

# gevent greenlets (connections) per API process: `tablestream serve` passes it to gunicorn as
# --worker-connections, and the stream caps below leave part of it to plain requests.
WORKER_CONNECTIONS = 2000


@dataclass(frozen=True)
class Config:
    redis_url: str | None = None  # None: the embedded Redis under data_dir
    queue_redis_url: str | None = None  # None: the event store's server
    data_dir: str = "var"
    rate_limit_per_second: int = 50  # commands per player per second; 0 turns it off
    sse_heartbeat_seconds: float = 15.0
    long_poll_max_seconds: float = 25.0  # the longest ?wait= of a long poll (issue 26)
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
    test_options: bool = False  # test-only game options (Mag Blast's stacked deal) over HTTP
    webhook_allow_http: bool = False  # http:// and private addresses (local receivers, tests)
    webhook_retry_seconds: tuple[int, ...] = ()  # () = service.app.webhooks.RETRY_INTERVALS
    max_body_bytes: int = 64 * 1024  # larger request bodies are refused (413) unread
    # Connections one client address may hold open at once, per API process (the web worker
    # refuses the next with 429; off behind TRUSTED_PROXIES, where the address is a proxy's),
    # and the seconds a request's body may take to arrive once its headers are in (408).
    connections_per_address: int = WORKER_CONNECTIONS // 4
    request_body_seconds: float = 10.0
    # The seconds one write of an answer may take (a page, a stream's push) before the
    # connection is closed: a client that stops reading would otherwise hold it for ever.
    response_write_seconds: float = 60.0
    # One player cannot slow down another (issue 23; 0 turns a limit off). Live streams open at
    # once: per address without a token and per player (fleet-wide, in Redis), and per API
    # process, of which tokenless streams may take only part (the rest is the reserve of
    # signed-in players); both leave 200 of WORKER_CONNECTIONS to plain requests.
    streams_per_address: int = 20
    streams_per_player: int = 10
    streams_per_process: int = WORKER_CONNECTIONS - 200
    anonymous_streams_per_process: int = WORKER_CONNECTIONS // 2
    # A live stream without a token (a spectator's) is written at most once this many ms: the
    # moves made meanwhile go in its next write, together (0: each as it comes).
    tokenless_push_ms: int = 100
    # Reads by cost (1 unit + 1 per event a read returns or folds), per second and burst: per
    # address without a token, per signed-in player (service/app/limiter.py, ReadBudget).
    read_units_per_second: int = 1000
    read_units_burst: int = 3000
    player_read_units_per_second: int = 2000
    player_read_units_burst: int = 6000
    # Bots: the longest think time a seat may ask for (the API takes up to 5000 ms), and how
    # many bot-only games one player may have running at once.
    max_think_ms: int = 2000
    bot_games_per_player: int = 2
    vapid_private_key_file: str | None = None  # Web Push's key (None: made once, in Redis)
    ratings_namespace: str = "ratings"  # the ratings' Redis keys (tests use one each)
    extra: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_env(cls) -> Config:
        return cls(redis_url=os.environ.get("REDIS_URL") or None,
                   queue_redis_url=os.environ.get("QUEUE_REDIS_URL") or None,
                   data_dir=os.environ.get("TABLESTREAM_DATA", "var"),
                   rate_limit_per_second=int(os.environ.get("RATE_LIMIT_PER_SECOND", "50")),
                   long_poll_max_seconds=float(os.environ.get("LONG_POLL_MAX_SECONDS", "25")),
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
                   test_options=os.environ.get("TEST_OPTIONS", "0") == "1",
                   max_body_bytes=int(os.environ.get("MAX_BODY_BYTES", str(64 * 1024))),
                   connections_per_address=_int("CONNECTIONS_PER_ADDRESS",
                                                cls.connections_per_address),
                   request_body_seconds=float(os.environ.get("REQUEST_BODY_SECONDS",
                                                             cls.request_body_seconds)),
                   response_write_seconds=float(os.environ.get(
                       "RESPONSE_WRITE_SECONDS", cls.response_write_seconds)),
                   webhook_allow_http=os.environ.get("WEBHOOK_ALLOW_HTTP", "0") == "1",
                   streams_per_address=_int("STREAMS_PER_ADDRESS", cls.streams_per_address),
                   streams_per_player=_int("STREAMS_PER_PLAYER", cls.streams_per_player),
                   streams_per_process=_int("STREAMS_PER_PROCESS", cls.streams_per_process),
                   anonymous_streams_per_process=_int("ANONYMOUS_STREAMS_PER_PROCESS",
                                                      cls.anonymous_streams_per_process),
                   tokenless_push_ms=_int("TOKENLESS_PUSH_MS", cls.tokenless_push_ms),
                   read_units_per_second=_int("READ_UNITS_PER_SECOND",
                                              cls.read_units_per_second),
                   read_units_burst=_int("READ_UNITS_BURST", cls.read_units_burst),
                   player_read_units_per_second=_int("PLAYER_READ_UNITS_PER_SECOND",
                                                     cls.player_read_units_per_second),
                   player_read_units_burst=_int("PLAYER_READ_UNITS_BURST",
                                                cls.player_read_units_burst),
                   max_think_ms=_int("MAX_THINK_MS", cls.max_think_ms),
                   bot_games_per_player=_int("BOT_GAMES_PER_PLAYER", cls.bot_games_per_player),
                   vapid_private_key_file=os.environ.get("VAPID_PRIVATE_KEY") or None,
                   webhook_retry_seconds=tuple(int(s) for s in os.environ.get(
                       "WEBHOOK_RETRY_SECONDS", "").split(",") if s.strip()))


def _int(name: str, default: int) -> int:
    return int(os.environ.get(name, str(default)))
