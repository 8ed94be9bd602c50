"""Accounts people keep (issue 25): handles, passwords, sessions, guests, brute force, the
account stream. Every call is a real HTTP request to the app over the test Redis."""

from __future__ import annotations

import itertools
import secrets
import unicodedata

import pytest

from service.auth import account_log, passwords

PASSWORD = "a long walk to the lighthouse"


def digits() -> str:
    """A suffix that keeps handles unique on the shared test server (digits: in every script)."""
    return str(secrets.randbelow(10**8)).zfill(8)


def address() -> str:
    """A loopback address of its own, so no test meets another's per-address count."""
    return "127." + ".".join(str(secrets.randbelow(254) + 1) for _ in range(3))


def sign_up(api, handle: str, password: str | None = PASSWORD, headers=None, **extra):
    body = {"handle": handle, **({"password": password} if password else {}), **extra}
    return api.client.post("/v1/account", json=body, headers=headers or {})


def bearer(session: dict) -> dict[str, str]:
    return {"Authorization": f"Bearer {session['access_token']}"}


def signed_up(api, handle: str, **extra) -> dict:
    response = sign_up(api, handle, **extra)
    assert response.status_code == 201, response.json
    return response.json


def sign_in(api, handle: str, password: str = PASSWORD, at: str | None = None):
    return api.client.post("/v1/sessions", json={"handle": handle, "password": password},
                           environ_base={"REMOTE_ADDR": at or address()})


# --- handles ------------------------------------------------------------------------------------

def test_a_handle_differing_only_in_case_is_taken(api):
    n = digits()
    signed_up(api, f"Mina{n}")
    response = sign_up(api, f"mina{n}")
    assert response.status_code == 409 and response.json["code"] == "handle_taken"


def test_a_fullwidth_handle_is_the_same_handle_after_nfkc(api):
    n = digits()
    signed_up(api, f"Mina{n}")
    response = sign_up(api, f"\uff2d\uff49\uff4e\uff41{n}")  # fullwidth "Mina"
    assert response.status_code == 409 and response.json["code"] == "handle_taken"


def test_korean_handles_work_and_collide_like_any_other(api):
    n = digits()
    account = signed_up(api, f"김민아{n}", display_name="민아")["account"]
    assert account["handle"] == f"김민아{n}" and account["name"] == "민아"
    # Hangul as conjoining jamo is the same handle once NFKC composes it.
    jamo = unicodedata.normalize("NFD", f"김민아{n}")
    assert jamo != f"김민아{n}"
    response = sign_up(api, jamo)
    assert response.status_code == 409 and response.json["code"] == "handle_taken"


def test_a_handle_mixing_latin_and_cyrillic_is_refused(api):
    response = sign_up(api, "p\u0430ypal")  # a Cyrillic "a" among Latin letters
    assert response.status_code == 400 and response.json["code"] == "handle_mixed_scripts"


def test_a_handle_that_looks_like_a_taken_one_is_refused(api):
    n = digits()
    signed_up(api, f"paypal{n}")
    for lookalike in (f"paypa1{n}", f"\u0440\u0430\u0443\u0440\u0430\u04cf{n}", f"pay_pal{n}"):
        response = sign_up(api, lookalike)
        assert response.status_code == 409, lookalike
        assert response.json["code"] == "handle_confusable"


@pytest.mark.parametrize(("handle", "code"), [("ab", "handle_length"),
                                               ("mina kim", "handle_characters"),
                                               ("mina\u202e", "handle_characters"),
                                               ("-mina", "handle_characters"),
                                               ("mina\u0663", "handle_characters")])
def test_a_malformed_handle_is_refused_with_its_code(api, handle, code):
    response = sign_up(api, handle)
    assert response.status_code == 400 and response.json["code"] == code


def test_latin_with_hangul_is_one_of_the_allowed_mixes(api):
    n = digits()
    assert signed_up(api, f"Mina김{n}")["account"]["handle"] == f"Mina김{n}"


# --- passwords ----------------------------------------------------------------------------------

@pytest.mark.parametrize(("password", "code"), [("short", "password_too_short"),
                                                 ("password123", "password_too_common"),
                                                 ("QWERTYUIOP", "password_too_common"),
                                                 ("I am {handle}!", "password_too_common")])
def test_a_weak_password_is_refused_and_makes_no_account(api, password, code):
    n = digits()
    response = sign_up(api, f"minako{n}", password.format(handle=f"Minako{n}"))
    assert response.status_code == 400 and response.json["code"] == code
    assert sign_up(api, f"minako{n}").status_code == 201  # the handle was not taken


def test_signing_in_with_the_password_gives_a_session_that_works(api):
    n = digits()
    player = signed_up(api, f"Mina{n}")["account"]["id"]
    response = sign_in(api, f"MINA{n}")
    assert response.status_code == 201
    me = api.client.get("/v1/me", headers=bearer(response.json))
    assert me.status_code == 200 and me.json["id"] == player


def test_a_wrong_password_and_an_unknown_handle_get_the_same_answer(api):
    n = digits()
    signed_up(api, f"Mina{n}")
    wrong = sign_in(api, f"Mina{n}", "not the password at all")
    unknown = sign_in(api, f"nobody-here{n}", "not the password at all")
    assert wrong.status_code == unknown.status_code == 401
    assert wrong.json == unknown.json
    assert wrong.json["code"] == "invalid_credentials"


def test_an_unknown_handle_costs_a_password_hash_too(api, monkeypatch):
    n = digits()
    from argon2 import PasswordHasher

    verified = []

    class Spy(PasswordHasher):
        def verify(self, stored, given):
            verified.append(stored)
            return super().verify(stored, given)

    monkeypatch.setattr(passwords, "_HASHER", Spy())
    sign_in(api, f"nobody-here{n}", "not the password at all")
    assert verified == [passwords._DUMMY_HASH]


def test_a_hash_made_with_old_parameters_is_replaced_at_sign_in(api, monkeypatch):
    from argon2 import PasswordHasher

    n = digits()
    weak = PasswordHasher(time_cost=1, memory_cost=8 * 1024, parallelism=1)
    monkeypatch.setattr(passwords, "_HASHER", weak)
    signed_up(api, f"Mina{n}")
    monkeypatch.setattr(passwords, "_HASHER", PasswordHasher())
    player = sign_in(api, f"Mina{n}").json["player"]
    stored = api.app.extensions["tablestream"].auth.redis.hget(f"{{acct:{player}}}", "password")
    assert not passwords.needs_rehash(stored if isinstance(stored, str) else stored.decode())
    assert sign_in(api, f"Mina{n}").status_code == 201
    kinds = [e["type"] for e in api.app.extensions["tablestream"].auth.events(player)]
    assert "password_rehashed" in kinds


def test_changing_the_password_signs_out_every_session_and_keeps_personal_tokens(api):
    n = digits()
    guest = api.player(f"mina{n}")
    created = signed_up(api, f"Mina{n}", headers=guest)
    other = sign_in(api, f"Mina{n}").json
    response = api.client.put("/v1/account/password", headers=bearer(created["session"]),
                              json={"current_password": PASSWORD,
                                    "new_password": "another walk to the sea"})
    assert response.status_code == 200
    for old in (created["session"], other):
        assert api.client.get("/v1/me", headers=bearer(old)).status_code == 401
    assert api.client.get("/v1/me", headers=bearer(response.json)).status_code == 200
    assert api.client.get("/v1/me", headers=guest).status_code == 200  # the personal token
    assert sign_in(api, f"Mina{n}").status_code == 401
    assert sign_in(api, f"Mina{n}", "another walk to the sea").status_code == 201


def test_a_password_change_needs_the_current_password(api):
    n = digits()
    session = signed_up(api, f"Mina{n}")["session"]
    response = api.client.put("/v1/account/password", headers=bearer(session),
                              json={"current_password": "wrong wrong wrong",
                                    "new_password": "another walk to the sea"})
    assert response.status_code == 401 and response.json["code"] == "invalid_credentials"


# --- sessions -----------------------------------------------------------------------------------

def refresh(api, token: str):
    return api.client.post("/v1/sessions/refresh", json={"refresh_token": token})


def test_a_refresh_token_gives_a_new_pair_and_retires_the_old_access_token(api):
    n = digits()
    first = signed_up(api, f"Mina{n}")["session"]
    second = refresh(api, first["refresh_token"])
    assert second.status_code == 200
    assert second.json["refresh_token"] != first["refresh_token"]
    assert api.client.get("/v1/me", headers=bearer(second.json)).status_code == 200
    assert api.client.get("/v1/me", headers=bearer(first)).status_code == 401
    third = refresh(api, second.json["refresh_token"])
    assert third.status_code == 200


def test_a_reused_refresh_token_revokes_the_whole_family(api):
    n = digits()
    first = signed_up(api, f"Mina{n}")["session"]
    second = refresh(api, first["refresh_token"]).json
    reused = refresh(api, first["refresh_token"])
    assert reused.status_code == 401 and reused.json["code"] == "refresh_token_reused"
    # The thief's and the owner's tokens of that sign-in alike stop working.
    assert api.client.get("/v1/me", headers=bearer(second)).status_code == 401
    again = refresh(api, second["refresh_token"])
    assert again.status_code == 401 and again.json["code"] == "invalid_refresh_token"


def test_reuse_revokes_only_its_own_family(api):
    n = digits()
    first = signed_up(api, f"Mina{n}")["session"]
    other = sign_in(api, f"Mina{n}").json
    refresh(api, first["refresh_token"])
    refresh(api, first["refresh_token"])
    assert api.client.get("/v1/me", headers=bearer(other)).status_code == 200


@pytest.mark.parametrize("token", ["nonsense", "fam_0123456789abcdef.secret", "fam_{x}.y"])
def test_an_unknown_refresh_token_is_refused(api, token):
    response = refresh(api, token)
    assert response.status_code == 401 and response.json["code"] == "invalid_refresh_token"


def test_signing_out_stops_the_access_and_the_refresh_token(api):
    n = digits()
    session = signed_up(api, f"Mina{n}")["session"]
    out = api.client.post("/v1/sessions/sign-out", json={"refresh_token":
                                                          session["refresh_token"]})
    assert out.status_code == 204
    assert api.client.get("/v1/me", headers=bearer(session)).status_code == 401
    assert refresh(api, session["refresh_token"]).status_code == 401
    again = api.client.post("/v1/sessions/sign-out", json={"refresh_token":
                                                            session["refresh_token"]})
    assert again.status_code == 204


def test_signing_out_everywhere_revokes_every_session_but_not_personal_tokens(api):
    n = digits()
    guest = api.player(f"mina{n}")
    sessions = [signed_up(api, f"Mina{n}", headers=guest)["session"],
                sign_in(api, f"Mina{n}").json, sign_in(api, f"Mina{n}").json]
    response = api.client.post("/v1/sessions/revoke-all", headers=bearer(sessions[1]))
    assert response.status_code == 200 and response.json == {"revoked": 3}
    for session in sessions:
        assert api.client.get("/v1/me", headers=bearer(session)).status_code == 401
        assert refresh(api, session["refresh_token"]).status_code == 401
    assert api.client.get("/v1/me", headers=guest).status_code == 200


# --- guests -------------------------------------------------------------------------------------

def test_a_guest_turns_into_an_account_and_keeps_games_inbox_and_webhooks(make_app):
    n = digits()
    from tests.service.conftest import Api

    api = Api(make_app({"webhook_allow_http": True}))
    guest = api.player(f"Mina{n}")
    game_id = api.create(guest, "loot", 2)
    hook = api.client.post("/v1/me/webhooks", headers=guest,
                           json={"url": "http://127.0.0.1:9/hook"}).json
    before = api.client.get("/v1/me", headers=guest).json
    created = signed_up(api, f"mina{n}", headers=guest)
    assert created["account"]["id"] == before["id"] and created["account"]["name"] == f"Mina{n}"
    session = sign_in(api, f"Mina{n}").json
    games = api.client.get("/v1/me/games", headers=bearer(session)).json
    assert [g["id"] for g in games] == [game_id]
    hooks = api.client.get("/v1/me/webhooks", headers=bearer(session)).json
    assert [h["id"] for h in hooks] == [hook["id"]]
    assert api.client.get("/v1/me/events/stream", headers=bearer(session),
                          buffered=False).status_code == 200
    again = sign_up(api, f"other-name{n}", headers=guest)
    assert again.status_code == 409 and again.json["code"] == "already_an_account"


def test_guests_keep_playing_without_an_account(api):
    n = digits()
    guest = api.player(f"ann{n}")
    assert api.client.get("/v1/me", headers=guest).status_code == 200
    response = api.client.get("/v1/account", headers=guest)
    assert response.status_code == 200 and response.json["handle"] is None


# --- brute force --------------------------------------------------------------------------------

def test_sign_in_attempts_are_limited_per_handle(make_app):
    n = digits()
    from tests.service.conftest import Api

    api = Api(make_app({"sign_ins_per_handle": 3, "sign_ins_per_address": 100}))
    signed_up(api, f"Mina{n}")
    for _ in range(3):
        assert sign_in(api, f"Mina{n}", "guess number one!").status_code == 401
    refused = sign_in(api, f"mina{n}", PASSWORD)  # the right one, too late, from elsewhere
    assert refused.status_code == 429 and refused.json["code"] == "rate_limited"
    assert int(refused.headers["Retry-After"]) > 0
    assert sign_in(api, f"someone-else{n}", "guess").status_code == 401


def test_sign_in_attempts_are_limited_per_address(make_app):
    n = digits()
    from tests.service.conftest import Api

    api = Api(make_app({"sign_ins_per_handle": 100, "sign_ins_per_address": 3}))
    here = address()
    for handle in (f"ann{n}", f"bob{n}", f"cyd{n}"):
        assert sign_in(api, handle, "guess", here).status_code == 401
    assert sign_in(api, f"dan{n}", "guess", here).status_code == 429
    assert sign_in(api, f"dan{n}", "guess").status_code == 401


def test_passkey_sign_in_options_are_limited_per_address(make_app):
    from tests.service.conftest import Api

    api = Api(make_app({"sign_ins_per_address": 2}))
    here = {"REMOTE_ADDR": address()}
    for _ in range(2):
        response = api.client.post("/v1/sessions/passkey/options", environ_base=here)
        assert response.status_code == 200 and response.json["options"]["challenge"]
    refused = api.client.post("/v1/sessions/passkey/options", environ_base=here)
    assert refused.status_code == 429 and refused.json["code"] == "rate_limited"


def test_guessing_the_current_password_counts_against_the_handle(make_app):
    from tests.service.conftest import Api

    api = Api(make_app({"sign_ins_per_handle": 2}))
    n = digits()
    session = signed_up(api, f"Mina{n}")["session"]
    codes = [api.client.put("/v1/account/password", headers=bearer(session),
                            json={"current_password": f"guess number {i}",
                                  "new_password": "another walk to the sea"}).status_code
             for i in range(3)]
    assert codes == [401, 401, 429]


def test_production_settings_limit_sign_ins():
    from service.runtime.config import Config

    assert Config().sign_ins_per_handle == 10 and Config().sign_ins_per_address == 30


# --- the account stream -------------------------------------------------------------------------

def test_account_events_are_recorded_in_a_hash_chain(api):
    n = digits()
    session = signed_up(api, f"Mina{n}")["session"]
    api.client.post("/v1/sessions/revoke-all", headers=bearer(session))
    session = sign_in(api, f"Mina{n}").json
    events = api.client.get("/v1/account/events", headers=bearer(session)).json
    assert [e["type"] for e in events] == ["account_created", "signed_in", "tokens_revoked",
                                           "signed_in"]
    assert events[0]["prev"] == account_log.GENESIS
    assert all(b["prev"] == a["hash"] for a, b in itertools.pairwise(events))
    auth = api.app.extensions["tablestream"].auth
    assert auth.log.verify(session["player"])


def test_a_forged_account_event_fails_verification(api):
    n = digits()
    session = signed_up(api, f"Mina{n}")["session"]
    auth = api.app.extensions["tablestream"].auth
    assert auth.log.verify(session["player"])
    auth.redis.xadd(account_log.stream_key(session["player"]),
                    {"type": "password_changed", "data": "{}", "at": 1, "prev": "0" * 64,
                     "hash": "0" * 64})
    assert not auth.log.verify(session["player"])
