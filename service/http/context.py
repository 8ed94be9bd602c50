"""Per-app objects (service, accounts, lobby) and the caller's identity, for the handlers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask import current_app, g, request

from service.accounts import Accounts
from service.application import GameService
from service.config import Config
from service.lobby import Lobby


@dataclass
class Tablestream:
    config: Config
    service: GameService
    accounts: Accounts
    lobby: Lobby
    limiter: Any


def ctx() -> Tablestream:
    return current_app.extensions["tablestream"]


def bearer_token() -> str | None:
    header = request.headers.get("Authorization", "")
    if header.lower().startswith("bearer "):
        return header[7:].strip()
    return request.args.get("access_token")


def current_player() -> dict[str, Any]:
    """The authenticated caller (401 problem when the token is missing or wrong)."""
    player = ctx().accounts.authenticate(bearer_token())
    g.player_id = player["id"]  # for the access log
    return player


def optional_player() -> dict[str, Any] | None:
    return current_player() if bearer_token() else None
