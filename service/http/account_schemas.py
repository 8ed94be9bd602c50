"""Schemas of the account and session endpoints (service.http.account)."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from service.app import i18n
from service.auth import handles, passwords
from service.http.schemas import UnixMillis

_PASSWORD = {"validate": validate.Length(min=1, max=passwords.MAX_LENGTH * 2),
             "metadata": {"description": f"At least {passwords.MIN_LENGTH} characters, not a "
                                         "common password; never returned or logged"}}


class SignUpIn(ma.Schema):
    handle = fields.String(required=True, validate=validate.Length(min=1, max=64), metadata={
        "description": f"{handles.MIN_LENGTH}-{handles.MAX_LENGTH} letters and digits (any "
                       "one script, or Latin with Han and Hangul or kana), with . _ -; unique "
                       "ignoring case and width"})
    password = fields.String(**_PASSWORD)
    display_name = fields.String(validate=validate.Length(min=1, max=40), metadata={
        "description": "The name shown at the table (default: the handle); a guest keeps "
                       "theirs"})


class PasskeyOut(ma.Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    created = UnixMillis(required=True)
    last_used = UnixMillis(required=True, allow_none=True)


class AccountOut(ma.Schema):
    id = fields.String(required=True, metadata={"description": "The player id"})
    handle = fields.String(required=True, allow_none=True)
    name = fields.String(required=True, metadata={"description": "The display name"})
    has_password = fields.Boolean(required=True)
    passkeys = fields.List(fields.Nested(PasskeyOut), required=True)
    created = UnixMillis(required=True, allow_none=True)


class SessionOut(ma.Schema):
    player = fields.String(required=True)
    token_type = fields.String(required=True)
    access_token = fields.String(required=True, metadata={
        "description": "Bearer token for every other call, valid for expires_in seconds"})
    expires_in = fields.Integer(required=True)
    refresh_token = fields.String(required=True, metadata={
        "description": "Trade it once at /v1/sessions/refresh for a new pair; used twice, "
                       "it revokes the whole sign-in"})


class SignedUp(ma.Schema):
    account = fields.Nested(AccountOut, required=True)
    session = fields.Nested(SessionOut, required=True)


class PasswordIn(ma.Schema):
    current_password = fields.String(**{**_PASSWORD, "metadata": {
        "description": "Required when the account has a password"}})
    new_password = fields.String(required=True, **_PASSWORD)


class SignInIn(ma.Schema):
    handle = fields.String(required=True, validate=validate.Length(min=1, max=64))
    password = fields.String(required=True, **_PASSWORD)


class RefreshIn(ma.Schema):
    refresh_token = fields.String(required=True, validate=validate.Length(min=1, max=200))


class RevokedOut(ma.Schema):
    revoked = fields.Integer(required=True, metadata={"description": "Sessions revoked"})


class WebAuthnOptions(ma.Schema):
    challenge_id = fields.String(required=True)
    options = fields.Dict(required=True, metadata={
        "description": "PublicKeyCredentialCreationOptions or RequestOptions, as JSON "
                       "(PublicKeyCredential.parse...OptionsFromJSON reads them)"})


class PasskeyIn(ma.Schema):
    challenge_id = fields.String(required=True, validate=validate.Length(min=1, max=64))
    credential = fields.Dict(required=True, metadata={
        "description": "The browser's PublicKeyCredential, as its toJSON() gives it"})
    name = fields.String(validate=validate.Length(min=1, max=40))


class AccountEventOut(ma.Schema):
    id = fields.String(required=True)
    type = fields.String(required=True)
    data = fields.Dict(required=True)
    at = fields.Integer(required=True, metadata={"description": "Unix ms"})
    prev = fields.String(required=True, metadata={"description": "The hash of the event before"})
    hash = fields.String(required=True, metadata={
        "description": "SHA-256 of this event's canonical JSON with prev"})


class LocaleIn(ma.Schema):
    locale = fields.String(required=True, allow_none=True,
                           validate=validate.OneOf(i18n.SUPPORTED_LOCALES), metadata={
                               "description": "The language the service speaks to you in "
                                              "(problem details, notices); null: as your "
                                              "client's Accept-Language asks"})


class LocaleOut(ma.Schema):
    locale = fields.String(required=True, allow_none=True, metadata={
        "description": "The language you chose, or null"})
    supported = fields.List(fields.String(), required=True, metadata={
        "description": "The languages the service speaks; English is the fallback"})
