"""The HTTP API: ``create_app`` wires flask-smorest blueprints over the application service."""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Callable
from inspect import iscoroutinefunction, isfunction
from pathlib import Path
from typing import Any

import flask_swagger_ui
from flask import Blueprint as FlaskBlueprint
from flask import Flask, Response, current_app, request

from service import web
from service.app.accounts import Accounts
from service.app.application import GameService
from service.app.inbox import build_inbox
from service.app.limiter import BotGames, Quotas, RateLimiter, ReadBudget, StreamSlots
from service.app.lobby import Lobby
from service.app.ratings import Ratings
from service.auth.service import AuthService
from service.http import (
    account,
    audit,
    commands,
    events_feed,
    games,
    health,
    i18n,
    me,
    observability,
    players,
    profiles,
    replay,
    undo,
)
from service.http.blueprint import check_game_id
from service.http.connection_limits import ConnectionLimits
from service.http.context import (
    Tablestream,
    refuse_token_in_url,
    release_stream_slot,
    take_stream_slot,
)
from service.http.early_refusal import EarlyRefusal
from service.http.errors import ProblemApi, limit_body
from service.runtime.config import Config
from service.runtime.fanout import Fanout

API_VERSION = "1.0.0"
DOCS_PREFIX = "/v1"

BLUEPRINTS = [players.blp, games.blp, commands.blp, events_feed.blp, replay.blp, undo.blp,
              audit.blp, me.blp, account.blp, account.sessions_blp, profiles.blp, health.blp]

# Headers a browser client may read from a cross-origin answer (CORS hides the rest).
EXPOSED_HEADERS = ["ETag", "Idempotent-Replayed", "Retry-After", "Location",
                   observability.REQUEST_ID_HEADER]


class App(Flask):
    """Flask, asking once per function whether it is a coroutine function: ``ensure_sync`` asks
    it of every hook, view and decorator on every request (ten ``inspect`` calls a move)."""

    _SYNC_CACHE_SIZE = 4096  # functions: the app's hooks, views and wrappers are far fewer

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._is_coroutine: dict[Callable[..., Any], bool] = {}

    def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
        # A view's method comes bound to a new view object each request: ask of its function.
        key = getattr(func, "__func__", func)
        known = self._is_coroutine.get(key)
        if known is None:
            known = iscoroutinefunction(func)
            if isfunction(key) and len(self._is_coroutine) < self._SYNC_CACHE_SIZE:
                self._is_coroutine[key] = known
        return self.async_to_sync(func) if known else func


def create_app(config: Config | None = None, followups: Any = None,
               redis_client: Any = None, **service_options: Any) -> Flask:
    """The Flask app over one Redis (the embedded one unless ``config.redis_url`` is set)."""
    from events.redis_store import RedisEventStore, blocking_client, connect, side_client

    config = config or Config.from_env()
    if redis_client is None:
        redis_client = connect(config.redis_url or _embedded_url(config))
    app = App("tablestream")
    app.config.update(API_TITLE="Tablestream", API_VERSION=API_VERSION, OPENAPI_VERSION="3.1.0",
                      JSON_SORT_KEYS=False, API_SPEC_OPTIONS=_spec_options(), **_docs_config())
    observability.install(app, enabled=config.access_log)
    i18n.install(app)
    # Werkzeug refuses a longer body (413) when it is read, chunked or not; limit_body refuses
    # a declared Content-Length at once, before authentication or any handler.
    app.config["MAX_CONTENT_LENGTH"] = config.max_body_bytes
    app.before_request(limit_body)
    if config.cors_origins:
        from flask_cors import CORS

        origins = "*" if "*" in config.cors_origins else list(config.cors_origins)
        CORS(app, origins=origins, expose_headers=EXPOSED_HEADERS, max_age=600,
             allow_headers=["Authorization", "Content-Type", "If-None-Match", "Last-Event-ID",
                            observability.REQUEST_ID_HEADER])
    # One pool of blocking connections for the live reads of this process (game events and
    # players' notices, one read per followed stream: service.runtime.fanout), apart from the pool
    # moves use (issue 9 item 1).
    blocking = blocking_client(redis_client)
    store = RedisEventStore(redis_client, blocking)
    lobby = Lobby(redis_client)
    if followups is None and config.workers_enabled:
        followups = _default_followups(config, redis_client)
    inbox = service_options.pop("inbox", None) or build_inbox(redis_client, followups, config,
                                                                  blocking)
    service = GameService(store, followups=followups, lobby=lobby, inbox=inbox,
                          **service_options)
    accounts = Accounts(redis_client, side=side_client(redis_client))
    app.extensions["tablestream"] = Tablestream(config, service, accounts, lobby,
                                                RateLimiter(config.rate_limit_per_second),
                                                Quotas.from_config(config, redis_client),
                                                Fanout(int(config.sse_heartbeat_seconds * 1000)),
                                                StreamSlots.from_config(config, redis_client),
                                                ReadBudget.from_config(config, redis_client),
                                                BotGames.from_config(config, redis_client,
                                                                     lobby),
                                                AuthService(redis_client, accounts, config),
                                                Ratings(redis_client, config.ratings_namespace))
    if config.trusted_proxies > 0:
        from werkzeug.middleware.proxy_fix import ProxyFix

        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=config.trusted_proxies)  # type: ignore[method-assign]
    else:  # the connection's address is the caller's: the web worker may refuse it early
        app.extensions["tablestream.early_refusal"] = EarlyRefusal(
            app, app.extensions["tablestream"].streams)
    app.extensions["tablestream.connection_limits"] = ConnectionLimits(app, config)
    app.before_request(refuse_token_in_url)
    app.before_request(take_stream_slot)
    app.teardown_request(release_stream_slot)
    app.url_value_preprocessor(check_game_id)
    api = ProblemApi(app)
    api.spec.components.security_scheme("bearer", {"type": "http", "scheme": "bearer"})
    for blueprint in BLUEPRINTS:
        api.register_blueprint(blueprint)
    app.extensions["tablestream.api"] = api
    app.register_blueprint(docs_assets)
    app.after_request(docs_policy)
    app.register_blueprint(web.blp)
    app.add_url_rule("/metrics", "metrics", _metrics)
    return app


def _metrics() -> Response:
    """Prometheus metrics (text exposition format); not part of the REST contract."""
    from service.runtime.metrics import exposition

    body, content_type = exposition(current_app.extensions["tablestream"].service.followups)
    return Response(body, content_type=content_type)


# Swagger UI's files come from the installed flask-swagger-ui package: no CDN, so the reference
# works offline and behind a strict content policy.
docs_assets = FlaskBlueprint("docs_assets", __name__, url_prefix=f"{DOCS_PREFIX}/docs/assets",
                             static_folder=str(Path(flask_swagger_ui.__file__).parent / "dist"),
                             static_url_path="/static")


# The reference page's one inline script (flask-smorest's template) is allowed by its hash, not
# by 'unsafe-inline'; Swagger UI sets style attributes, hence 'unsafe-inline' for styles only.
# frame-ancestors 'none' as on /play/ (issue 23 item 16): no page may frame it (clickjacking).
_DOCS_POLICY = ("default-src 'none'; script-src 'self'{scripts}; "
                "style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; "
                "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
_INLINE_SCRIPT = re.compile(rb"<script>(.*?)</script>", re.DOTALL)


def docs_policy(response: Response) -> Response:
    """A content security policy on the browsable reference and its assets."""
    if request.path.startswith(f"{DOCS_PREFIX}/docs"):
        body = b"" if response.direct_passthrough else response.get_data()
        hashes = "".join(
            " 'sha256-" + base64.b64encode(hashlib.sha256(script).digest()).decode() + "'"
            for script in _INLINE_SCRIPT.findall(body))
        response.headers["Content-Security-Policy"] = _DOCS_POLICY.format(scripts=hashes)
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
    return response


def _docs_config() -> dict[str, Any]:
    """The OpenAPI document at /v1/openapi.json and a browsable reference at /v1/docs."""
    return {"OPENAPI_URL_PREFIX": DOCS_PREFIX, "OPENAPI_JSON_PATH": "openapi.json",
            "OPENAPI_SWAGGER_UI_PATH": "docs",
            "OPENAPI_SWAGGER_UI_URL": f"{DOCS_PREFIX}/docs/assets/static/"}


def _spec_options() -> dict[str, Any]:
    # Security is declared per operation (service.http.contract), not globally.
    return {"info": {"license": {"name": "Apache-2.0", "identifier": "Apache-2.0"},
                     "description": "Turn-based card and board games over REST, event-sourced "
                                    "on Redis Streams. Errors are application/problem+json "
                                    "with a stable `code`. Every time is in Unix "
                                    "milliseconds; every seat is an integer."}}


def _embedded_url(config: Config) -> str:
    from events.embedded_redis import redis_url

    return redis_url()


def _default_followups(config: Config, redis_client: Any) -> Any:
    try:
        from workers.scheduling import JobScheduler
    except ModuleNotFoundError:
        return None
    return JobScheduler.from_config(config, redis_client)
