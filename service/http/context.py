"""Per-app objects (service, accounts, lobby) and the caller's identity, for the handlers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask import current_app, g, request

from service.accounts import Accounts
from service.application import GameService
from service.config import Config
from service.errors import BadRequest
from service.fanout import Fanout
from service.http.limiter import Quotas
from service.lobby import Lobby


@dataclass
class Tablestream:
    config: Config
    service: GameService
    accounts: Accounts
    lobby: Lobby
    limiter: Any
    quotas: Quotas  # players, games and disputes per minute
    fanout: Fanout  # this process's shared live reads, behind every SSE stream
    auth: Any = None  # service.auth.service.AuthService: accounts, sessions, passkeys
    ratings: Any = None  # service.ratings.Ratings: ratings, profiles, leaderboards


def ctx() -> Tablestream:
    return current_app.extensions["tablestream"]


# The only endpoints that take the token in their URL (``?access_token=``): the live event
# streams (a game's, and a player's notices), because a browser's EventSource cannot set
# headers. A URL ends up in logs, proxies and browser history, so everywhere else the token
# goes in the Authorization header alone (issue 9 item 10).
URL_TOKEN_ENDPOINTS = frozenset({"events.EventStream", "me.MyNotices"})


def bearer_token(from_url: bool = False) -> str | None:
    header = request.headers.get("Authorization", "")
    if header.lower().startswith("bearer "):
        return header[7:].strip()
    return request.args.get("access_token") if from_url else None


def refuse_token_in_url() -> None:
    """Before every request: ``access_token`` in the URL of any other endpoint is a 400, so a
    client learns to stop putting its token where logs keep it."""
    # No query string, no token in it: its parse into ``args`` is spared (every move).
    if request.environ.get("QUERY_STRING") and "access_token" in request.args \
            and request.endpoint not in URL_TOKEN_ENDPOINTS:
        raise BadRequest("token_in_url",
                         "Send the token as 'Authorization: Bearer <token>'; only the event "
                         "streams accept access_token in their URL.")


def current_player(from_url: bool = False, tablestream: Tablestream | None = None
                   ) -> dict[str, Any]:
    """The authenticated caller (401 problem when the token is missing or wrong)."""
    player = (tablestream or ctx()).accounts.authenticate(bearer_token(from_url))
    g.player_id = player["id"]  # for the access log
    return player


def optional_player(from_url: bool = False) -> dict[str, Any] | None:
    return current_player(from_url) if bearer_token(from_url) else None


def client_address() -> str:
    """The caller's address: the connection's, or X-Forwarded-For's as far as TRUSTED_PROXIES
    lets ProxyFix believe it."""
    return request.remote_addr or "unknown"
