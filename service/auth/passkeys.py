"""Passkeys (WebAuthn, py_webauthn): registering one on an account and signing in with one.

Each ceremony is two calls: options (a fresh challenge, kept in Redis for CHALLENGE_SECONDS and
usable once) and the browser's answer, verified against that challenge, the relying party id
(the host the page was served from) and the page's origin. Passkeys are discoverable (resident)
credentials whose user handle is the player id, so signing in needs no handle typed. An account
holds up to MAX_PASSKEYS; only their public keys are kept."""

from __future__ import annotations

import json
import secrets
import time
from typing import Any

import webauthn
from webauthn.helpers import bytes_to_base64url, options_to_json_dict
from webauthn.helpers.exceptions import InvalidAuthenticationResponse, InvalidRegistrationResponse
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from service.app.errors import BadRequest, Unauthorized

RP_NAME = "Tablestream"
CHALLENGE_SECONDS = 300
MAX_PASSKEYS = 10


def _challenge_key(challenge_id: str) -> str:
    return f"webauthn:challenge:{challenge_id}"


def _passkeys_key(player_id: str) -> str:
    return f"{{acct:{player_id}}}:passkeys"


def _owner_key(credential_id: str) -> str:
    return f"passkeys:{credential_id}"


class Passkeys:
    def __init__(self, client: Any):
        self.redis = client

    def registration_options(self, player: dict[str, Any], handle: str, rp_id: str,
                             origin: str) -> dict[str, Any]:
        """Options for ``navigator.credentials.create`` and the id of their challenge."""
        existing = self.list(player["id"])
        if len(existing) >= MAX_PASSKEYS:
            raise BadRequest("too_many_passkeys",
                             "An account holds {max} passkeys; remove one first.",
                             params={"max": MAX_PASSKEYS})
        options = webauthn.generate_registration_options(
            rp_id=rp_id, rp_name=RP_NAME, user_name=handle, user_id=player["id"].encode(),
            user_display_name=player["name"],
            authenticator_selection=AuthenticatorSelectionCriteria(
                resident_key=ResidentKeyRequirement.REQUIRED,
                user_verification=UserVerificationRequirement.PREFERRED),
            exclude_credentials=[PublicKeyCredentialDescriptor(id=_bytes(p["id"]))
                                 for p in existing])
        return self._remember(options, "register", rp_id, origin, player["id"])

    def register(self, player_id: str, challenge_id: str, credential: dict[str, Any],
                 name: str | None = None) -> dict[str, Any]:
        """Verify the browser's new credential and keep its public key; the passkey's record."""
        challenge = self._take(challenge_id, "register")
        if challenge["player"] != player_id:
            raise BadRequest("invalid_challenge", "That challenge is not yours.")
        try:
            verified = webauthn.verify_registration_response(
                credential=credential, expected_challenge=_bytes(challenge["challenge"]),
                expected_rp_id=challenge["rp_id"], expected_origin=challenge["origin"])
        except (InvalidRegistrationResponse, ValueError, KeyError, TypeError) as exc:
            raise BadRequest("passkey_not_verified",
                             "The passkey could not be verified: {reason}",
                             params={"reason": exc}) from None
        credential_id = bytes_to_base64url(verified.credential_id)
        if not self.redis.set(_owner_key(credential_id), player_id, nx=True):
            raise BadRequest("passkey_exists", "That passkey is registered already.")
        record = {"id": credential_id, "name": (name or "Passkey")[:40],
                  "created": int(time.time()), "last_used": None,
                  "public_key": bytes_to_base64url(verified.credential_public_key),
                  "sign_count": verified.sign_count}
        self.redis.hset(_passkeys_key(player_id), credential_id, json.dumps(record))
        return public(record)

    def sign_in_options(self, rp_id: str, origin: str) -> dict[str, Any]:
        """Options for ``navigator.credentials.get`` (any of the site's passkeys)."""
        options = webauthn.generate_authentication_options(
            rp_id=rp_id, user_verification=UserVerificationRequirement.PREFERRED)
        return self._remember(options, "sign_in", rp_id, origin, None)

    def sign_in(self, challenge_id: str, credential: dict[str, Any]) -> str:
        """The player whose passkey signed the challenge (Unauthorized otherwise)."""
        challenge = self._take(challenge_id, "sign_in")
        refused = Unauthorized("passkey_not_verified", "The passkey could not be verified.")
        credential_id = credential.get("id") if isinstance(credential, dict) else None
        owner = self.redis.get(_owner_key(credential_id)) if isinstance(credential_id, str) \
            else None
        if owner is None:
            raise refused
        player_id = _text(owner)
        raw = self.redis.hget(_passkeys_key(player_id), credential_id)
        if raw is None:
            raise refused
        record = json.loads(raw)
        try:
            verified = webauthn.verify_authentication_response(
                credential=credential, expected_challenge=_bytes(challenge["challenge"]),
                expected_rp_id=challenge["rp_id"], expected_origin=challenge["origin"],
                credential_public_key=_bytes(record["public_key"]),
                credential_current_sign_count=record["sign_count"])
        except (InvalidAuthenticationResponse, ValueError, KeyError, TypeError):
            raise refused from None
        record.update(sign_count=verified.new_sign_count, last_used=int(time.time()))
        self.redis.hset(_passkeys_key(player_id), credential_id, json.dumps(record))
        return player_id

    def list(self, player_id: str) -> list[dict[str, Any]]:
        records = [json.loads(raw) for raw in self.redis.hvals(_passkeys_key(player_id))]
        return [public(r) for r in sorted(records, key=lambda r: r["created"])]

    def remove(self, player_id: str, credential_id: str) -> bool:
        if not self.redis.hdel(_passkeys_key(player_id), credential_id):
            return False
        self.redis.delete(_owner_key(credential_id))
        return True

    def _remember(self, options: Any, kind: str, rp_id: str, origin: str,
                  player_id: str | None) -> dict[str, Any]:
        challenge_id = secrets.token_urlsafe(16)
        self.redis.set(_challenge_key(challenge_id), json.dumps({
            "kind": kind, "challenge": bytes_to_base64url(options.challenge), "rp_id": rp_id,
            "origin": origin, "player": player_id}), ex=CHALLENGE_SECONDS)
        return {"challenge_id": challenge_id, "options": options_to_json_dict(options)}

    def _take(self, challenge_id: str, kind: str) -> dict[str, Any]:
        """The challenge, deleted as it is read: each is answered once."""
        raw = self.redis.getdel(_challenge_key(challenge_id))
        challenge = json.loads(raw) if raw else None
        if challenge is None or challenge["kind"] != kind:
            raise BadRequest("invalid_challenge",
                             "That challenge is unknown, used or expired; ask for new options.")
        return challenge


def public(record: dict[str, Any]) -> dict[str, Any]:
    return {k: record[k] for k in ("id", "name", "created", "last_used")}


def _bytes(text: str) -> bytes:
    return webauthn.base64url_to_bytes(text)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
