"""Players and their bearer tokens. Tokens are stored only as SHA-256 hashes."""

from __future__ import annotations

import hashlib
import secrets
import time
from typing import Any

import redis

from service.errors import BadRequest, Unauthorized

ROLES = frozenset({"auditor"})


def _token_key(token: str) -> str:
    return "tokens:" + hashlib.sha256(token.encode()).hexdigest()


TOKEN_CACHE_SECONDS = 30.0


class Accounts:
    def __init__(self, client: redis.Redis):
        self.redis = client
        # token hash -> (player, cached at): saves two round trips per request; a revoked
        # token stops working within TOKEN_CACHE_SECONDS.
        self._tokens: dict[str, tuple[dict[str, Any], float]] = {}

    def create(self, name: str, roles: list[str] | None = None) -> tuple[dict[str, Any], str]:
        """A new player and their bearer token (shown once, stored hashed)."""
        roles = sorted(set(roles or []))
        unknown = set(roles) - ROLES
        if unknown:
            raise BadRequest("unknown_role", f"Unknown roles: {sorted(unknown)}.")
        player_id = "p_" + secrets.token_hex(8)
        token = secrets.token_urlsafe(32)
        player = {"id": player_id, "name": name, "roles": ",".join(roles),
                  "created": str(int(time.time()))}
        pipe = self.redis.pipeline(transaction=False)
        pipe.hset(f"players:{player_id}", mapping=player)
        pipe.set(_token_key(token), player_id)
        pipe.execute()
        return self._decode(player), token

    def authenticate(self, token: str | None) -> dict[str, Any]:
        """The player a bearer token belongs to (Unauthorized when missing or unknown)."""
        if not token:
            raise Unauthorized("missing_token", "Send 'Authorization: Bearer <token>'.")
        key = _token_key(token)
        cached = self._tokens.get(key)
        if cached and time.monotonic() - cached[1] < TOKEN_CACHE_SECONDS:
            return cached[0]
        player_id = self.redis.get(key)
        if player_id is None:
            raise Unauthorized("invalid_token", "The bearer token is not valid.")
        player = self.get(_text(player_id))
        if len(self._tokens) > 100_000:
            self._tokens.clear()
        self._tokens[key] = (player, time.monotonic())
        return player

    def get(self, player_id: str) -> dict[str, Any]:
        raw = self.redis.hgetall(f"players:{player_id}")
        if not raw:
            raise Unauthorized("invalid_token", "The bearer token is not valid.")
        return self._decode({_text(k): _text(v) for k, v in raw.items()})

    def names(self, player_ids: list[str]) -> dict[str, str]:
        pipe = self.redis.pipeline(transaction=False)
        for pid in player_ids:
            pipe.hget(f"players:{pid}", "name")
        names = pipe.execute()
        return {pid: _text(name) if name else pid
                for pid, name in zip(player_ids, names, strict=True)}

    @staticmethod
    def _decode(player: dict[str, str]) -> dict[str, Any]:
        roles = [r for r in player.get("roles", "").split(",") if r]
        return {"id": player["id"], "name": player["name"], "roles": roles}


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
