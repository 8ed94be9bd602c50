"""Players and their bearer tokens. Tokens are stored only as SHA-256 hashes."""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
import threading
import time
import unicodedata
from typing import Any

import redis

from service.app.errors import BadRequest, NotFound, Unauthorized

log = logging.getLogger(__name__)

ROLES = frozenset({"auditor"})


def _token_key(token: str) -> str:
    return "tokens:" + hashlib.sha256(token.encode()).hexdigest()


# A token revoked on another API process keeps working here at most this long; the process
# that revokes it forgets it at once.
TOKEN_CACHE_SECONDS = 10.0
# When one token's check is due, every token in use that was checked at least this long ago is
# checked again in the same round trip: with many players, a process then re-checks its tokens
# a few at a time in one pipeline every few seconds, not one round trip per token and request.
# (A quarter of the cache's life: a stream's check wants its token checked within half of it.)
TOKEN_RECHECK_SECONDS = TOKEN_CACHE_SECONDS / 4
# A background re-check starts at most this often (each covers every token then half-way due).
REFRESH_SPACING_SECONDS = 1.0
# How long a caller whose token is due waits for the re-check under way (it waits for a Redis
# connection like any request) before checking its token alone.
RECHECK_WAIT_SECONDS = 10.0
MAX_TOKENS = 20  # per player
MAX_NAME_LENGTH = 40
# Characters a name may not hold (issue 23 item 15), by Unicode category: control (NUL, CR, LF),
# format (the bidi overrides and isolates, zero-width joiners), line and paragraph separators,
# surrogates, private use and unassigned: they break log lines and terminals, or make a name
# read differently from what it is (an RTL override turns "ann" into someone else's look).
_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def normalised_name(name: str) -> str:
    """``name`` in NFKC form without surrounding spaces; refused when blank, too long, or
    holding a control, format or bidi character."""
    name = unicodedata.normalize("NFKC", name).strip()
    if not name:
        raise BadRequest("invalid_name", "A name needs at least one visible character.")
    refused = sorted({f"U+{ord(c):04X}" for c in name
                      if unicodedata.category(c) in _REFUSED_CATEGORIES})
    if refused:
        raise BadRequest("invalid_name", "A name may not hold control, format or "
                         "bidirectional-override characters.", errors={"name": refused})
    if len(name) > MAX_NAME_LENGTH:
        raise BadRequest("invalid_name", "A name has at most {max} characters.",
                                         params={"max": MAX_NAME_LENGTH})
    return name


def _tokens_key(player_id: str) -> str:
    return f"players:{player_id}:tokens"


def _public_token(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k not in ("hash", "issued_ns")}


class Accounts:
    def __init__(self, client: redis.Redis, side: redis.Redis | None = None):
        self.redis = client
        # Token re-checks go through ``side`` (events.redis_store.side_client): they never wait
        # behind the moves in flight for the ordinary pool.
        self.side = side or client
        # token hash -> (player, cached at): saves two round trips per request; a revoked
        # token stops working within TOKEN_CACHE_SECONDS.
        self._tokens: dict[str, tuple[dict[str, Any], float]] = {}
        self._used: dict[str, float] = {}  # token hash -> last used (monotonic)
        self._recheck_under_way: threading.Event | None = None  # set when it is done
        self._refreshed_at = float("-inf")  # when the last background re-check started
        self._names: dict[str, str] = {}
        self._players: dict[str, dict[str, Any]] = {}
        self._locales: dict[str, tuple[str | None, float]] = {}  # player -> (locale, read at)

    def create(self, name: str, roles: list[str] | None = None,
               token: bool = True) -> tuple[dict[str, Any], str | None]:
        """A new player and their bearer token (shown once, stored hashed; none when
        ``token`` is False: an account signing up gets session tokens instead)."""
        name = normalised_name(name)
        roles = sorted(set(roles or []))
        unknown = set(roles) - ROLES
        if unknown:
            raise BadRequest("unknown_role", "Unknown roles: {roles}.",
                                             params={"roles": sorted(unknown)})
        player_id = "p_" + secrets.token_hex(8)
        player = {"id": player_id, "name": name, "roles": ",".join(roles),
                  "created": str(int(time.time()))}
        self.redis.hset(f"players:{player_id}", mapping=player)
        if not token:
            return self._decode(player), None
        _, secret = self.issue_token(player_id, "default")
        return self._decode(player), secret

    # --- short-lived access tokens of app sessions (service.auth.sessions) ----------------------

    @staticmethod
    def token_key(token: str) -> str:
        return _token_key(token)

    def store_access_token(self, player_id: str, seconds: int) -> tuple[str, str]:
        """A new bearer token that Redis forgets after ``seconds``; the token and its key.
        Not among the player's listed tokens: its session owns it."""
        token = secrets.token_urlsafe(32)
        key = _token_key(token)
        self.store_access_key(key, player_id, seconds)
        return token, key

    def store_access_key(self, key: str, player_id: str, seconds: int) -> None:
        self.redis.set(key, player_id, ex=seconds)

    def drop_token_keys(self, keys: list[str]) -> None:
        """Revoke tokens by their keys at once, here and (within TOKEN_CACHE_SECONDS) on every
        other process."""
        if not keys:
            return
        pipe = self.redis.pipeline(transaction=False)  # keys in different cluster slots
        for key in keys:
            pipe.delete(key)
        pipe.execute()
        for key in keys:
            self._tokens.pop(key, None)
            self._used.pop(key, None)

    # --- tokens: several named ones per player, listed, revoked, rotated, optionally expiring

    def issue_token(self, player_id: str, name: str,
                    expires_in: int | None = None) -> tuple[dict[str, Any], str]:
        """A new bearer token for the player: its record, and the token (shown this once)."""
        if self.redis.hlen(_tokens_key(player_id)) >= MAX_TOKENS:
            raise BadRequest("too_many_tokens",
                             "A player may hold {max} tokens; revoke one first.",
                             params={"max": MAX_TOKENS})
        token = secrets.token_urlsafe(32)
        now = int(time.time())
        record = {"id": "tok_" + secrets.token_hex(6), "name": name, "created": now,
                  "expires_at": now + expires_in if expires_in else None,
                  "hash": _token_key(token), "issued_ns": time.time_ns()}
        pipe = self.redis.pipeline(transaction=False)  # keys in different cluster slots
        # Redis expires the token itself, so an expired token is gone on every process at once.
        pipe.set(record["hash"], player_id, ex=expires_in or None)
        pipe.hset(_tokens_key(player_id), record["id"], json.dumps(record))
        pipe.execute()
        return _public_token(record), token

    def tokens(self, player_id: str) -> list[dict[str, Any]]:
        """The player's tokens (never the tokens themselves), oldest first; expired ones are
        dropped from the list as it is read."""
        now = time.time()
        records = [json.loads(raw) for raw in self.redis.hvals(_tokens_key(player_id))]
        expired = [r["id"] for r in records if r["expires_at"] and r["expires_at"] <= now]
        if expired:
            self.redis.hdel(_tokens_key(player_id), *expired)
        live = [r for r in records if r["id"] not in expired]
        return [_public_token(r) for r in sorted(live, key=lambda r: r.get("issued_ns", 0))]

    def revoke_token(self, player_id: str, token_id: str) -> dict[str, Any]:
        """Revoke one of the player's tokens at once; the revoked record."""
        raw = self.redis.hget(_tokens_key(player_id), token_id)
        if raw is None:
            raise NotFound("token_not_found", "You have no token {token_id}.",
                                              params={"token_id": token_id})
        record = json.loads(raw)
        pipe = self.redis.pipeline(transaction=False)  # keys in different cluster slots
        pipe.delete(record["hash"])
        pipe.hdel(_tokens_key(player_id), token_id)
        pipe.execute()
        self._tokens.pop(record["hash"], None)
        self._used.pop(record["hash"], None)
        return _public_token(record)

    def rotate_token(self, player_id: str, token_id: str) -> tuple[dict[str, Any], str]:
        """Replace a token by a new one with the same name and lifetime; the old one stops."""
        raw = self.redis.hget(_tokens_key(player_id), token_id)
        if raw is None:
            raise NotFound("token_not_found", "You have no token {token_id}.",
                                              params={"token_id": token_id})
        old = json.loads(raw)
        lifetime = old["expires_at"] - old["created"] if old["expires_at"] else None
        self.revoke_token(player_id, token_id)
        return self.issue_token(player_id, old["name"], lifetime)

    def authenticate(self, token: str | None,
                     max_age: float = TOKEN_CACHE_SECONDS) -> dict[str, Any]:
        """The player a bearer token belongs to (Unauthorized when missing or unknown), from
        this process's cache when it was checked in Redis less than ``max_age`` seconds ago."""
        if not token:
            raise Unauthorized("missing_token", "Send 'Authorization: Bearer <token>'.")
        key = _token_key(token)
        cached = self._tokens.get(key)
        now = time.monotonic()
        if cached:
            self._used[key] = now
            fresh_for = min(max_age, TOKEN_CACHE_SECONDS)
            if now - cached[1] < fresh_for:
                if now - cached[1] >= fresh_for / 2:
                    self._refresh_ahead(now)
                return cached[0]
            self._recheck_or_wait(now)
            cached = self._tokens.get(key)
            if cached and now - cached[1] < fresh_for:
                return cached[0]
        player_id = self.redis.get(key)
        if player_id is None:
            raise Unauthorized("invalid_token", "The bearer token is not valid.")
        player = self._player(_text(player_id))
        if len(self._tokens) > 100_000:
            self._tokens.clear()
            self._used.clear()
        self._tokens[key] = (player, now)
        return player

    def _refresh_ahead(self, now: float) -> None:
        """Re-check the tokens half-way due in the background, while their cache still
        answers: nobody waits for it. At 1,024 games a process's streams came due together and
        each waited for the re-check, queued for a Redis connection behind every move in
        flight (a second or more when saturated), before writing its push (issue 29)."""
        if (self._recheck_under_way is not None
                or now - self._refreshed_at < REFRESH_SPACING_SECONDS):
            return
        self._refreshed_at = now
        done = self._recheck_under_way = threading.Event()  # before the thread: one at a time
        threading.Thread(target=self._recheck_quietly, args=(now, done), daemon=True,
                         name="token re-check").start()

    def _recheck_quietly(self, now: float, done: threading.Event) -> None:
        """A background re-check: on a Redis error the tokens stay as they were, and a caller
        whose token comes due checks it as before."""
        try:
            self._recheck(now, done)
        except redis.RedisError:
            log.warning("background re-check of tokens failed", exc_info=True)

    def _recheck_or_wait(self, now: float) -> None:
        """Re-check the tokens due, or wait for the re-check under way, whose answer covers
        every token due when it began. At 1,024 games a process's streams come due together,
        and while one re-check waited its turn for a Redis connection, up to a hundred callers
        a second each sent a GET of their own and queued for a connection too."""
        under_way = self._recheck_under_way
        if under_way is None:
            self._recheck(now, threading.Event())
        else:
            under_way.wait(RECHECK_WAIT_SECONDS)  # then a token it did not cover goes alone

    def _recheck(self, now: float, done: threading.Event) -> None:
        """Check again, in one pipeline, every cached token used since its last check that is
        at least TOKEN_RECHECK_SECONDS old (a due one among them): keep those still pointing at
        their player as checked ``now`` (before the read), forget the others. One at a time:
        callers whose token is due meanwhile wait for ``done`` (``_recheck_or_wait``). The languages
        of their players read here before go in the same round trip, so a player's request
        does not read it again in line."""
        due = [key for key, (_, checked) in list(self._tokens.items())
               if now - checked >= TOKEN_RECHECK_SECONDS and self._used.get(key, 0.0) > checked]
        owners = {cached[0]["id"] for key in due if (cached := self._tokens.get(key))}
        speakers = [player_id for player_id in owners if player_id in self._locales]
        self._recheck_under_way = done
        try:
            pipe = self.side.pipeline(transaction=False)  # on Cluster, keys in any slot
            for key in due:
                pipe.get(key)
            for player_id in speakers:
                pipe.hget(f"players:{player_id}", "locale")
            found = pipe.execute()
            self._checked(due, found[:len(due)], now)
            self._locales_read(speakers, found[len(due):], now)
        finally:
            self._recheck_under_way = None
            done.set()

    def _checked(self, due: list[str], found: list[Any], now: float) -> None:
        """Keep the tokens re-checked ``now`` that still point at their player; forget the
        others."""
        for key, player_id in zip(due, found, strict=True):
            cached = self._tokens.get(key)
            if cached is None:
                continue  # revoked here meanwhile
            if player_id is not None and _text(player_id) == cached[0]["id"]:
                self._tokens[key] = (cached[0], now)
            else:
                self._tokens.pop(key, None)
                self._used.pop(key, None)

    def _player(self, player_id: str) -> dict[str, Any]:
        """A player's record, read once a process: it never changes after ``create``, so a
        token's re-check (every TOKEN_CACHE_SECONDS) costs one round trip, not two."""
        player = self._players.get(player_id)
        if player is None:
            player = self.get(player_id)
            if len(self._players) > 100_000:
                self._players.clear()
            self._players[player_id] = player
        return player

    def get(self, player_id: str) -> dict[str, Any]:
        raw = self.redis.hgetall(f"players:{player_id}")
        if not raw:
            raise Unauthorized("invalid_token", "The bearer token is not valid.")
        return self._decode({_text(k): _text(v) for k, v in raw.items()})

    # --- the player's language (issue 28) --------------------------------------------------

    def locale(self, player_id: str) -> str | None:
        """The language the player chose for what the service says (None: none chosen), from
        this process's cache when read less than TOKEN_CACHE_SECONDS ago: a change made on
        another process is seen within that time, and each answer costs no round trip."""
        now = time.monotonic()
        cached = self._locales.get(player_id)
        if cached is not None and now - cached[1] < TOKEN_CACHE_SECONDS:
            return cached[0]
        raw = self.redis.hget(f"players:{player_id}", "locale")
        chosen = _text(raw) if raw else None
        if len(self._locales) > 100_000:
            self._locales.clear()
        self._locales[player_id] = (chosen, now)
        return chosen

    def _locales_read(self, player_ids: list[str], found: list[Any], now: float) -> None:
        """Keep the languages read ``now`` (a change made here since stays)."""
        for player_id, raw in zip(player_ids, found, strict=True):
            cached = self._locales.get(player_id)
            if cached is not None and cached[1] <= now:
                self._locales[player_id] = (_text(raw) if raw else None, now)

    def set_locale(self, player_id: str, locale: str | None) -> None:
        """Choose (or, with None, forget) the player's language; ``locale`` is a supported one."""
        if locale is None:
            self.redis.hdel(f"players:{player_id}", "locale")
        else:
            self.redis.hset(f"players:{player_id}", "locale", locale)
        self._locales[player_id] = (locale, time.monotonic())

    def names(self, player_ids: list[str]) -> dict[str, str]:
        """Players' names; a name never changes, so each is read from Redis once a process."""
        missing = [pid for pid in player_ids if pid not in self._names]
        if missing:
            pipe = self.redis.pipeline(transaction=False)
            for pid in missing:
                pipe.hget(f"players:{pid}", "name")
            for pid, name in zip(missing, pipe.execute(), strict=True):
                if name:
                    if len(self._names) > 100_000:
                        self._names.clear()
                    self._names[pid] = _text(name)
        return {pid: self._names.get(pid, pid) for pid in player_ids}

    @staticmethod
    def _decode(player: dict[str, str]) -> dict[str, Any]:
        roles = [r for r in player.get("roles", "").split(",") if r]
        return {"id": player["id"], "name": player["name"], "roles": roles}


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
