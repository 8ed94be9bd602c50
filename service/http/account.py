"""Accounts and app sessions (issue 25): sign up (or turn a guest into an account), sign in
with a password or a passkey, refresh, sign out, sign out everywhere, passkeys, the account's
own event stream."""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import request, url_for
from flask.views import MethodView

from service.app import i18n
from service.http.account_schemas import (
    AccountEventOut,
    AccountOut,
    LocaleIn,
    LocaleOut,
    PasskeyIn,
    PasskeyOut,
    PasswordIn,
    RefreshIn,
    RevokedOut,
    SessionOut,
    SignedUp,
    SignInIn,
    SignUpIn,
    WebAuthnOptions,
)
from service.http.blueprint import Blueprint
from service.http.context import client_address, ctx, current_player, optional_player
from service.http.i18n import refresh_locale

blp = Blueprint("account", __name__, url_prefix="/v1/account",
                description="Your account: handle, password, passkeys")
sessions_blp = Blueprint("sessions", __name__, url_prefix="/v1/sessions",
                         description="Signing in and out (access and refresh tokens)")


def relying_party() -> tuple[str, str]:
    """The WebAuthn relying party: the host the page was loaded from, and the page's origin.
    A browser only lets a page use passkeys of its own host (localhost counts as secure)."""
    origin = request.headers.get("Origin") or request.host_url.rstrip("/")
    return urlsplit(request.host_url).hostname or "localhost", origin


@blp.route("")
class Account(MethodView):
    @blp.arguments(SignUpIn())
    @blp.response(201, SignedUp)
    @blp.errors(400, 401, 409, 429)
    def post(self, body):
        """Sign up with a handle (and a password, or add a passkey next); called with a guest's
        token, the guest becomes the account and keeps their games, notices and webhooks."""
        tablestream = ctx()
        guest = optional_player()
        if guest is None:
            tablestream.quotas.players.check(client_address())
        account, session = tablestream.auth.sign_up(body["handle"], body.get("password"),
                                                    body.get("display_name"), guest)
        return {"account": account, "session": session}, 201, {
            "Location": url_for("account.Account")}

    @blp.response(200, AccountOut)
    @blp.errors(401)
    def get(self):
        """Your account: handle, display name, whether it has a password, its passkeys."""
        return ctx().auth.account(current_player()["id"])


@blp.route("/locale")
class AccountLocale(MethodView):
    @blp.response(200, LocaleOut)
    @blp.errors(401)
    def get(self):
        """The language you chose for what the service says to you, if any."""
        return _locale_out(ctx().accounts.locale(current_player()["id"]))

    @blp.arguments(LocaleIn())
    @blp.response(200, LocaleOut)
    @blp.errors(400, 401)
    def put(self, body):
        """Choose the language the service speaks to you in, over Accept-Language (any token
        holder, guest or account); null forgets the choice."""
        tablestream = ctx()
        player_id = current_player()["id"]
        tablestream.accounts.set_locale(player_id, body["locale"])
        if body["locale"] is not None:
            # This answer already speaks it (Flask-Babel chose the locale before the change).
            refresh_locale()
        return _locale_out(body["locale"])


def _locale_out(locale: str | None) -> dict[str, object]:
    return {"locale": locale, "supported": list(i18n.SUPPORTED_LOCALES)}


@blp.route("/password")
class Password(MethodView):
    @blp.arguments(PasswordIn())
    @blp.response(200, SessionOut)
    @blp.errors(400, 401, 404)
    def put(self, body):
        """Set or change your password: every session is signed out; a new one is returned."""
        return ctx().auth.change_password(current_player()["id"], body.get("current_password"),
                                          body["new_password"])


@blp.route("/passkeys/options")
class PasskeyOptions(MethodView):
    @blp.response(200, WebAuthnOptions)
    @blp.errors(400, 401, 404)
    def post(self):
        """Start registering a passkey: options for navigator.credentials.create."""
        rp_id, origin = relying_party()
        return ctx().auth.passkey_options(current_player(), rp_id, origin)


@blp.route("/passkeys")
class Passkeys(MethodView):
    @blp.arguments(PasskeyIn())
    @blp.response(201, PasskeyOut)
    @blp.errors(400, 401)
    def post(self, body):
        """Finish registering a passkey with the browser's answer to the options."""
        record = ctx().auth.add_passkey(current_player()["id"], body["challenge_id"],
                                        body["credential"], body.get("name"))
        return record, 201, {"Location": url_for("account.Account")}


@blp.route("/passkeys/<passkey_id>")
class Passkey(MethodView):
    @blp.response(204)
    @blp.errors(401, 404)
    def delete(self, passkey_id):
        """Remove one of your passkeys."""
        ctx().auth.remove_passkey(current_player()["id"], passkey_id)


@blp.route("/events")
class AccountEvents(MethodView):
    @blp.response(200, AccountEventOut(many=True))
    @blp.errors(401)
    def get(self):
        """Your account's latest events (sign-ins, passkeys, password changes, revocations),
        hash-chained."""
        return ctx().auth.events(current_player()["id"])


@sessions_blp.route("")
class Sessions(MethodView):
    @sessions_blp.arguments(SignInIn())
    @sessions_blp.response(201, SessionOut)
    @sessions_blp.errors(400, 401, 429)
    def post(self, body):
        """Sign in with your handle and password (attempts are limited per handle and per
        address)."""
        return ctx().auth.sign_in(body["handle"], body["password"], client_address()), 201


@sessions_blp.route("/refresh")
class Refresh(MethodView):
    @sessions_blp.arguments(RefreshIn())
    @sessions_blp.response(200, SessionOut)
    @sessions_blp.errors(400, 401)
    def post(self, body):
        """Trade a refresh token for a new access and refresh token (the old one retires)."""
        return ctx().auth.refresh(body["refresh_token"])


@sessions_blp.route("/sign-out")
class SignOut(MethodView):
    @sessions_blp.arguments(RefreshIn())
    @sessions_blp.response(204)
    @sessions_blp.errors(400, 401)
    def post(self, body):
        """Sign out: the refresh token and its access token stop working."""
        ctx().auth.sign_out(body["refresh_token"])


@sessions_blp.route("/revoke-all")
class RevokeAll(MethodView):
    @sessions_blp.response(200, RevokedOut)
    @sessions_blp.errors(401)
    def post(self):
        """Sign out everywhere: every session of yours stops (personal tokens stay)."""
        return {"revoked": ctx().auth.sign_out_everywhere(current_player()["id"])}


@sessions_blp.route("/passkey/options")
class PasskeySignInOptions(MethodView):
    @sessions_blp.response(200, WebAuthnOptions)
    @sessions_blp.errors(400, 429)
    def post(self):
        """Start signing in with a passkey: options for navigator.credentials.get."""
        rp_id, origin = relying_party()
        return ctx().auth.passkey_sign_in_options(rp_id, origin, client_address())


@sessions_blp.route("/passkey")
class PasskeySignIn(MethodView):
    @sessions_blp.arguments(PasskeyIn())
    @sessions_blp.response(201, SessionOut)
    @sessions_blp.errors(400, 401)
    def post(self, body):
        """Finish signing in with a passkey (the browser's answer to the options)."""
        return ctx().auth.passkey_sign_in(body["challenge_id"], body["credential"]), 201
