"""``AuthService``: signing up (or a guest turning into an account), signing in with a password
or a passkey, sessions, password changes, and the account stream. The HTTP layer
(service.http.account) calls it; it imports no Flask."""

from __future__ import annotations

import hashlib
import time
from typing import Any

from service.app.accounts import Accounts
from service.app.errors import BadRequest, Conflict, NotFound, Unauthorized
from service.app.limiter import WindowLimiter
from service.auth import handles, passwords
from service.auth.account_log import AccountLog
from service.auth.passkeys import Passkeys
from service.auth.sessions import RefreshReused, Sessions

SIGN_IN_PERIOD = 15 * 60  # seconds over which sign-in attempts are counted


def _account_key(player_id: str) -> str:
    return f"{{acct:{player_id}}}"


def _handle_key(folded: str) -> str:
    return "handles:" + hashlib.sha256(folded.encode()).hexdigest()


def _skeleton_key(skeleton: str) -> str:
    return "handles:skeleton:" + hashlib.sha256(skeleton.encode()).hexdigest()


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class AuthService:
    def __init__(self, client: Any, accounts: Accounts, config: Any):
        self.redis = client
        self.accounts = accounts
        self.sessions = Sessions(client, accounts)
        self.passkeys = Passkeys(client)
        self.log = AccountLog(client)
        # Brute force (issue 25): attempts per handle and per address, refused or not.
        self.per_handle = WindowLimiter(client, "sign-in-handle", config.sign_ins_per_handle,
                                        "sign-in attempts for one handle", SIGN_IN_PERIOD)
        self.per_address = WindowLimiter(client, "sign-in-address", config.sign_ins_per_address,
                                         "sign-in attempts from one address", SIGN_IN_PERIOD)
        # Each passkey sign-in's options keep a challenge in Redis for a while: bounded too.
        self.ceremonies = WindowLimiter(client, "passkey-options", config.sign_ins_per_address,
                                        "passkey sign-ins from one address", 60)

    # --- accounts -----------------------------------------------------------------------------

    def sign_up(self, handle: str, password: str | None, display_name: str | None,
                guest: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        """A new account (or ``guest`` turned into one, keeping its id and so its games, inbox
        and webhooks) and its first session."""
        shown = handles.check(handle)
        if password is not None:
            passwords.check_new(password, shown)
        if guest is not None and self.redis.hexists(_account_key(guest["id"]), "handle"):
            raise Conflict("already_an_account", "You have an account already.")
        digest = passwords.hash_password(password) if password is not None else None
        player = guest or self.accounts.create(display_name or shown, token=False)[0]
        self._claim(shown, player["id"])
        record = {"handle": shown, "created": int(time.time())}
        if digest:
            record["password"] = digest
        self.redis.hset(_account_key(player["id"]), mapping=record)
        self.log.append(player["id"], "account_created", handle=shown, guest=guest is not None,
                        password=digest is not None)
        return self.account(player["id"]), self._open(player["id"], "sign_up")

    def _claim(self, shown: str, player_id: str) -> None:
        """Take the handle (its folded form and its look-alike skeleton) for the player."""
        folded_key = _handle_key(handles.fold(shown))
        if not self.redis.set(folded_key, player_id, nx=True):
            raise Conflict("handle_taken", "That handle is taken (handles ignore case and "
                                           "width).")
        if not self.redis.set(_skeleton_key(handles.skeleton(shown)), player_id, nx=True):
            self.redis.delete(folded_key)
            raise Conflict("handle_confusable", "That handle looks like one taken already; "
                                                "choose another.")

    def account(self, player_id: str) -> dict[str, Any]:
        """The account as its owner sees it (never a password or its hash)."""
        record = {_text(k): _text(v) for k, v in
                  self.redis.hgetall(_account_key(player_id)).items()}
        player = self.accounts.get(player_id)
        return {"id": player_id, "handle": record.get("handle"), "name": player["name"],
                "has_password": "password" in record, "passkeys": self.passkeys.list(player_id),
                "created": int(record["created"]) if "created" in record else None}

    def player_of(self, handle: str) -> str | None:
        """The player id holding ``handle`` (compared folded), or None."""
        owner = self.redis.get(_handle_key(handles.fold(handle)))
        return _text(owner) if owner else None

    def handle_of(self, player_id: str) -> str | None:
        handle = self.redis.hget(_account_key(player_id), "handle")
        return _text(handle) if handle else None

    # --- passwords ----------------------------------------------------------------------------

    def sign_in(self, handle: str, password: str, address: str) -> dict[str, Any]:
        """A session for the right handle and password. An unknown handle and a wrong password
        get the same answer after the same work (a dummy hash is verified)."""
        folded = handles.fold(handle)
        self.per_address.check(address)
        self.per_handle.check(hashlib.sha256(folded.encode()).hexdigest())
        player_id = self.player_of(handle)
        stored = self.redis.hget(_account_key(player_id), "password") if player_id else None
        stored_hash = _text(stored) if stored else None
        matched = passwords.verify(stored_hash, password)  # always: the same work either way
        if not matched or player_id is None or stored_hash is None:
            raise Unauthorized("invalid_credentials", "The handle or the password is wrong.")
        if passwords.needs_rehash(stored_hash):
            # argon2-cffi's recommended parameters changed since: hash again with today's.
            self.redis.hset(_account_key(player_id), "password", passwords.hash_password(password))
            self.log.append(player_id, "password_rehashed")
        return self._open(player_id, "password")

    def change_password(self, player_id: str, current: str | None, new: str) -> dict[str, Any]:
        """Set or change the password; every session is revoked, and a new one returned."""
        stored = self.redis.hget(_account_key(player_id), "password")
        handle = self.handle_of(player_id)
        if handle is None:
            raise NotFound("no_account", "Sign up first: a guest has no password.")
        if stored is not None:
            # A stolen access token must not become a way to guess the password either.
            self.per_handle.check(hashlib.sha256(handles.fold(handle).encode()).hexdigest())
        if stored is not None and (current is None or not passwords.verify(_text(stored),
                                                                            current)):
            raise Unauthorized("invalid_credentials", "The current password is wrong.")
        passwords.check_new(new, handle)
        self.redis.hset(_account_key(player_id), "password", passwords.hash_password(new))
        self.log.append(player_id, "password_changed" if stored else "password_set")
        self.sign_out_everywhere(player_id, "password_changed")
        return self._open(player_id, "password_changed")

    # --- sessions -----------------------------------------------------------------------------

    def _open(self, player_id: str, how: str) -> dict[str, Any]:
        session = self.sessions.open(player_id)
        self.log.append(player_id, "signed_in", method=how)
        return session

    def refresh(self, refresh_token: str) -> dict[str, Any]:
        try:
            return self.sessions.refresh(refresh_token)
        except RefreshReused as reused:
            self.log.append(reused.player_id, "tokens_revoked", reason="refresh_token_reused",
                            sessions=1)
            raise

    def sign_out(self, refresh_token: str) -> None:
        player_id = self.sessions.close(refresh_token)
        if player_id:
            self.log.append(player_id, "signed_out")

    def sign_out_everywhere(self, player_id: str, reason: str = "sign_out_everywhere") -> int:
        count = self.sessions.close_all(player_id)
        self.log.append(player_id, "tokens_revoked", reason=reason, sessions=count)
        return count

    # --- passkeys -----------------------------------------------------------------------------

    def passkey_options(self, player: dict[str, Any], rp_id: str, origin: str
                        ) -> dict[str, Any]:
        handle = self.handle_of(player["id"])
        if handle is None:
            raise NotFound("no_account", "Sign up first: a passkey belongs to an account.")
        return self.passkeys.registration_options(player, handle, rp_id, origin)

    def add_passkey(self, player_id: str, challenge_id: str, credential: dict[str, Any],
                    name: str | None) -> dict[str, Any]:
        record = self.passkeys.register(player_id, challenge_id, credential, name)
        self.log.append(player_id, "passkey_added", passkey=record["id"], name=record["name"])
        return record

    def remove_passkey(self, player_id: str, credential_id: str) -> None:
        if not self.passkeys.remove(player_id, credential_id):
            raise NotFound("passkey_not_found", "You have no such passkey.")
        self.log.append(player_id, "passkey_removed", passkey=credential_id)

    def passkey_sign_in_options(self, rp_id: str, origin: str, address: str
                                ) -> dict[str, Any]:
        self.ceremonies.check(address)
        return self.passkeys.sign_in_options(rp_id, origin)

    def passkey_sign_in(self, challenge_id: str, credential: dict[str, Any]) -> dict[str, Any]:
        if not isinstance(credential, dict):
            raise BadRequest("passkey_not_verified", "The credential is not a WebAuthn answer.")
        return self._open(self.passkeys.sign_in(challenge_id, credential), "passkey")

    def events(self, player_id: str) -> list[dict[str, Any]]:
        return self.log.read(player_id)
