"""Sessions for apps (issue 25): signing in gives a short-lived access token and a refresh
token; each refresh gives a new pair and retires the refresh token used (rotation). A retired
refresh token presented again means it was copied: the whole family (every token descended from
that sign-in) is revoked at once (OAuth 2.0 Security BCP, RFC 9700 §4.14.2).

An access token is a bearer token like a personal one (service.app.accounts, ``tokens:<sha256>``)
that Redis expires after ACCESS_SECONDS; a refresh token is ``<family id>.<secret>`` and only
its SHA-256 is kept, in the family's hash. Personal tokens (``/v1/me/tokens``) are apart and
stay for scripts and bots."""

from __future__ import annotations

import hashlib
import secrets
import time
from typing import Any

from service.app.accounts import Accounts
from service.app.errors import Unauthorized

ACCESS_SECONDS = 15 * 60
REFRESH_SECONDS = 30 * 24 * 3600  # a family's whole life: rotation does not extend it

# Rotate: the presented refresh hash (ARGV[1]) is the family's current one -> the new one
# (ARGV[2]) and the new access key (ARGV[3]) take its place, and the old access key is returned
# to be deleted. A retired one -> the family is deleted ("reuse"). KEYS: the family's hash and
# its set of retired hashes, in one cluster slot.
_ROTATE_LUA = """
local current = redis.call('HGET', KEYS[1], 'current')
if not current then return {'gone'} end
local player = redis.call('HGET', KEYS[1], 'player')
local access = redis.call('HGET', KEYS[1], 'access')
if current == ARGV[1] then
  redis.call('SADD', KEYS[2], current)
  redis.call('PEXPIRE', KEYS[2], redis.call('PTTL', KEYS[1]))
  redis.call('HSET', KEYS[1], 'current', ARGV[2], 'access', ARGV[3])
  return {'rotated', player, access}
end
if redis.call('SISMEMBER', KEYS[2], ARGV[1]) == 1 then
  redis.call('DEL', KEYS[1], KEYS[2])
  return {'reused', player, access}
end
return {'unknown'}
"""


class RefreshReused(Unauthorized):
    """A retired refresh token came back: its family is revoked (``player_id`` for the log,
    never in the answer)."""

    def __init__(self, player_id: str):
        super().__init__("refresh_token_reused",
                         "This refresh token was used before: every token of its sign-in is "
                         "revoked. Sign in again.")
        self.player_id = player_id


def _family_key(family: str) -> str:
    return f"{{sess:{family}}}"


def _retired_key(family: str) -> str:
    return f"{{sess:{family}}}:retired"


def _families_key(player_id: str) -> str:
    return f"players:{player_id}:sessions"


def _sha(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def _split(refresh_token: str) -> tuple[str, str]:
    family, _, secret = refresh_token.partition(".")
    if not family.startswith("fam_") or not secret or "{" in family or "}" in family:
        raise Unauthorized("invalid_refresh_token", "The refresh token is not valid.")
    return family, secret


class Sessions:
    def __init__(self, client: Any, accounts: Accounts):
        self.redis = client
        self.accounts = accounts
        self._rotate = client.register_script(_ROTATE_LUA)

    def open(self, player_id: str) -> dict[str, Any]:
        """A new family for the player: its first access and refresh tokens."""
        family = "fam_" + secrets.token_hex(8)
        secret = secrets.token_urlsafe(32)
        access, access_key = self.accounts.store_access_token(player_id, ACCESS_SECONDS)
        pipe = self.redis.pipeline(transaction=False)  # keys in different cluster slots
        pipe.hset(_family_key(family), mapping={"player": player_id, "current": _sha(secret),
                                                "access": access_key,
                                                "created": int(time.time())})
        pipe.expire(_family_key(family), REFRESH_SECONDS)
        pipe.sadd(_families_key(player_id), family)
        pipe.execute()
        return _answer(player_id, family, access, secret)

    def refresh(self, refresh_token: str) -> dict[str, Any]:
        """A new pair for a current refresh token. A retired one revokes its
        family and answers ``refresh_token_reused``; an unknown one ``invalid_refresh_token``."""
        family, secret = _split(refresh_token)
        new_secret = secrets.token_urlsafe(32)
        new_access = secrets.token_urlsafe(32)
        new_key = self.accounts.token_key(new_access)
        outcome, *rest = [_text(x) for x in self._rotate(
            keys=[_family_key(family), _retired_key(family)],
            args=[_sha(secret), _sha(new_secret), new_key])]
        if outcome == "reused":
            player_id, access_key = rest
            self.accounts.drop_token_keys([access_key])
            self.redis.srem(_families_key(player_id), family)
            raise RefreshReused(player_id)
        if outcome != "rotated":
            raise Unauthorized("invalid_refresh_token", "The refresh token is not valid.")
        player_id, old_key = rest
        self.accounts.drop_token_keys([old_key])
        self.accounts.store_access_key(new_key, player_id, ACCESS_SECONDS)
        if self.redis.hget(_family_key(family), "access") is None:
            # Revoked between the rotation and now: the new access token must not outlive it.
            self.accounts.drop_token_keys([new_key])
            raise Unauthorized("invalid_refresh_token", "The refresh token is not valid.")
        return _answer(player_id, family, new_access, new_secret)

    def close(self, refresh_token: str) -> str | None:
        """Sign out: revoke the refresh token's family (and its access token); its player, or
        None when it was no live token (signing out twice is no error)."""
        family, _secret = _split(refresh_token)
        record = self.redis.hgetall(_family_key(family))
        if not record or _text(record.get(b"current", record.get("current", ""))) != \
                _sha(_secret):
            return None
        player_id = _text(record.get(b"player", record.get("player")))
        self._revoke(player_id, [family])
        return player_id

    def close_all(self, player_id: str) -> int:
        """Revoke every session of the player ("sign out everywhere"); how many."""
        families = [_text(f) for f in self.redis.smembers(_families_key(player_id))]
        self._revoke(player_id, families)
        return len(families)

    def _revoke(self, player_id: str, families: list[str]) -> None:
        if not families:
            return
        pipe = self.redis.pipeline(transaction=False)
        for family in families:
            pipe.hget(_family_key(family), "access")
        access_keys = [_text(k) for k in pipe.execute() if k]
        pipe = self.redis.pipeline(transaction=False)
        for family in families:
            pipe.delete(_family_key(family))
            pipe.delete(_retired_key(family))
        pipe.srem(_families_key(player_id), *families)
        pipe.execute()
        self.accounts.drop_token_keys(access_keys)


def _answer(player_id: str, family: str, access: str, secret: str) -> dict[str, Any]:
    return {"player": player_id, "token_type": "Bearer", "access_token": access,
            "expires_in": ACCESS_SECONDS, "refresh_token": f"{family}.{secret}"}


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
