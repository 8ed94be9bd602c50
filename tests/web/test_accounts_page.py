"""Accounts on the web page (issue 25): a newcomer signs up with a passkey, signs out, signs
back in with it and finds their games; the same with a password, and a guest keeping their
games. Chromium's virtual authenticator (CDP WebAuthn) stands in for a phone or a security
key; the page is opened at localhost, the relying party id (an IP address cannot be one)."""

from __future__ import annotations

import hashlib
import secrets

import pytest
import redis

from tests.web.conftest import PHONE
from tests.web.driving import create_game, sign_in

pytestmark = pytest.mark.e2e

PASSWORD = "a long walk to the lighthouse"


@pytest.fixture
def local_page(browser, site):
    """A fresh page at http://localhost:PORT with a virtual passkey authenticator."""
    context = browser.new_context(viewport=PHONE, base_url=site.replace("127.0.0.1",
                                                                        "localhost"))
    context.set_default_timeout(30_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    cdp = context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    page.cdp, page.authenticator = cdp, add_authenticator(cdp)
    yield page
    assert errors == []
    context.close()


def add_authenticator(cdp) -> str:
    """A platform authenticator that keeps passkeys and approves every request at once."""
    return cdp.send("WebAuthn.addVirtualAuthenticator", {"options": {
        "protocol": "ctap2", "transport": "internal", "hasResidentKey": True,
        "hasUserVerification": True, "isUserVerified": True,
        "automaticPresenceSimulation": True}})["authenticatorId"]


def handle() -> str:
    return f"mina{secrets.randbelow(10**8):08d}"


def signed_in_as(page, name: str) -> None:
    page.get_by_text(f"Signed in as {name}").wait_for()


def sign_out(page) -> None:
    page.get_by_role("button", name="Sign out").click()
    page.get_by_label("Your name").wait_for()


def sign_up_with_password(page, name: str) -> None:
    page.goto("/")
    page.get_by_label("Choose a handle").fill(name)
    page.get_by_label("Password (or use a passkey)").fill(PASSWORD)
    page.get_by_role("button", name="Create account with password").click()
    signed_in_as(page, name)


def my_game_ids(page) -> list[str]:
    page.goto("/play/#/")
    page.locator("#my-games li[data-game]").first.wait_for()
    return page.locator("#my-games li[data-game]").evaluate_all(
        "rows => rows.map(row => row.dataset.game)")


def test_a_newcomer_signs_up_with_a_passkey_signs_out_and_back_in_and_finds_their_games(
        local_page):
    page, name = local_page, handle()
    page.goto("/")
    page.get_by_label("Choose a handle").fill(name)
    page.get_by_role("button", name="Create account with a passkey").click()
    signed_in_as(page, name)
    page.get_by_text("your passkey is saved").wait_for()
    credentials = page.cdp.send("WebAuthn.getCredentials",
                                {"authenticatorId": page.authenticator})["credentials"]
    assert len(credentials) == 1 and credentials[0]["isResidentCredential"]
    game_id = create_game(page, "loot", ["bot:basic"])
    sign_out(page)
    assert page.evaluate("localStorage.getItem('tablestream.refresh')") is None

    page.get_by_role("button", name="Continue with a passkey").click()
    signed_in_as(page, name)
    assert game_id in my_game_ids(page)
    page.get_by_role("link", name="Profile").click()
    page.get_by_role("heading", name=name).wait_for()
    page.get_by_role("heading", name="Recent games").wait_for()
    page.goto("/play/#/leaderboards/loot")
    page.get_by_role("heading", name="Leaderboard: loot").wait_for()
    page.goto(f"/play/#/players/{name}")
    page.get_by_role("heading", name="Your passkeys").wait_for()
    # A second passkey, on another device (a new authenticator), signs in as well.
    page.cdp.send("WebAuthn.removeVirtualAuthenticator", {"authenticatorId": page.authenticator})
    page.authenticator = add_authenticator(page.cdp)
    page.get_by_role("button", name="Add a passkey").click()
    page.locator("#passkeys li").nth(1).wait_for()
    sign_out(page)
    page.get_by_role("button", name="Continue with a passkey").click()
    signed_in_as(page, name)


def test_a_newcomer_signs_up_with_a_password_and_logs_back_in(local_page):
    page, name = local_page, handle()
    sign_up_with_password(page, name)
    game_id = create_game(page, "loot", ["bot:basic"])
    sign_out(page)
    page.get_by_label("Handle", exact=True).fill(name.upper())
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_role("button", name="Log in with password").click()
    signed_in_as(page, name)
    assert game_id in my_game_ids(page)


def test_an_open_game_keeps_its_live_stream_when_the_access_token_runs_out(local_page,
                                                                           redis_url):
    """The stream re-checks its token and ends when it ran out (issue 23 item 10); the page
    trades its refresh token for a new pair and opens the stream again with the new token."""
    page, name = local_page, handle()
    sign_up_with_password(page, name)
    game_id = create_game(page, "loot", ["bot:basic"])
    old = page.evaluate("localStorage.getItem('tablestream.token')")
    stream = f"/games/{game_id}/events/stream"

    def reopened(request) -> bool:
        return stream in request.url and old not in request.url

    # As if its 15 minutes were up: Redis forgets the access token.
    with page.expect_request(reopened, timeout=60_000):
        redis.Redis.from_url(redis_url).delete(
            "tokens:" + hashlib.sha256(old.encode()).hexdigest())
    new = page.evaluate("localStorage.getItem('tablestream.token')")
    assert new != old and new in page.evaluate("localStorage.getItem('tablestream.token')")
    signed_in_as(page, name)


def test_a_guest_keeps_their_games_by_creating_an_account(local_page):
    page, name = local_page, handle()
    sign_in(page, "Guest Mina")
    game_id = create_game(page, "loot", ["bot:basic"])
    page.goto("/play/#/")
    page.get_by_label("Choose a handle").fill(name)
    page.get_by_role("button", name="Create account with a passkey").click()
    page.get_by_role("link", name="Profile").wait_for()
    sign_out(page)
    page.get_by_role("button", name="Continue with a passkey").click()
    signed_in_as(page, "Guest Mina")
    assert game_id in my_game_ids(page)


def test_a_rated_game_shows_on_the_profile_chart_once_the_workers_fold_it(local_page):
    import random
    import time

    from tests.web.driving import play_to_end

    page, name = local_page, handle()
    sign_up_with_password(page, name)
    page.get_by_label("Game", exact=True).select_option("faker_blue")
    page.get_by_label("Players").select_option("2")
    page.get_by_label("Seat 2").select_option("bot:random")
    page.get_by_label("Rated game").check()
    page.get_by_role("button", name="Create game").click()
    page.wait_for_url("**/#/games/*")
    play_to_end(page, random.Random(7))
    # The workers fold a finished game about SETTLE_SECONDS after it ends, with their sweep.
    deadline = time.monotonic() + 90
    page.goto(f"/play/#/players/{name}")
    while True:
        page.reload()  # the same address again would not load the profile anew
        page.get_by_role("heading", name="Recent games").wait_for()
        if page.locator("svg.chart circle").count():
            break
        assert time.monotonic() < deadline, page.locator("main").inner_text()
        page.wait_for_timeout(2000)
    assert "1 rated game:" in page.locator("main").inner_text()
