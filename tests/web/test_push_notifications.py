"""The installable web app (issue 26): a manifest, and a service worker that shows a Web Push
notice as a notification and takes the page to the game when it is tapped. Chromium delivers
the push to the service worker through CDP (ServiceWorker.deliverPushMessage)."""

from __future__ import annotations

import base64
import json
import time

import pytest
import requests

from tests.web.conftest import PHONE

pytestmark = pytest.mark.e2e

NOTICE = {"kind": "your_turn", "game_id": "g0123456789a", "game": "loot", "version": 7,
          "seat": 0, "since": 7, "id": "1-0"}
MESSAGE = {"title": "Your turn", "body": "loot game g0123456789a",
           "url": "/play/#/games/g0123456789a", "notice": NOTICE}


def test_the_page_is_an_installable_app(site):
    manifest = requests.get(f"{site}/play/manifest.json", timeout=10).json()
    assert manifest["start_url"] == "/play/" and manifest["display"] == "standalone"
    assert requests.get(f"{site}/play/{manifest['icons'][0]['src']}", timeout=10).ok
    page = requests.get(f"{site}/play/", timeout=10).text
    assert '<link rel="manifest" href="manifest.json">' in page


def test_a_push_shows_a_notification_that_opens_the_game_on_a_tap(browser, site):
    context = browser.new_context(viewport=PHONE, base_url=site, permissions=["notifications"])
    try:
        page = context.new_page()
        cdp = context.new_cdp_session(page)
        registrations: dict[str, str] = {}
        cdp.on("ServiceWorker.workerRegistrationUpdated", lambda update: registrations.update(
            {r["scopeURL"]: r["registrationId"] for r in update["registrations"]}))
        cdp.send("ServiceWorker.enable")
        page.goto("/play/")
        page.evaluate("navigator.serviceWorker.ready.then(() => true)")
        deadline = time.monotonic() + 10
        while f"{site}/play/" not in registrations and time.monotonic() < deadline:
            page.wait_for_timeout(50)
        cdp.send("ServiceWorker.deliverPushMessage", {
            "origin": site, "registrationId": registrations[f"{site}/play/"],
            "data": json.dumps(MESSAGE)})
        shown = page.wait_for_function("""async () => {
            const registration = await navigator.serviceWorker.ready;
            const shown = await registration.getNotifications();
            return shown.length ? shown.map((n) => ({title: n.title, body: n.body,
                                                     tag: n.tag, data: n.data})) : null;
        }""").json_value()
        assert shown == [{"title": "Your turn", "body": "loot game g0123456789a",
                          "tag": "g0123456789a:your_turn",
                          "data": {"url": "/play/#/games/g0123456789a"}}]
        # A tap: the worker's notificationclick, as the system would fire it.
        [worker] = [w for w in context.service_workers if w.url.endswith("/play/sw.js")]
        worker.evaluate("""async () => {
            const [notification] = await self.registration.getNotifications();
            self.dispatchEvent(new NotificationEvent('notificationclick', {notification}));
        }""")
        page.wait_for_url(f"{site}/play/#/games/g0123456789a")
        assert page.evaluate("""navigator.serviceWorker.ready.then(
            (registration) => registration.getNotifications()).then((n) => n.length)""") == 0
    finally:
        context.close()


# What the browser's push service would answer. Chromium's is Google's, which a test machine
# cannot reach, so the page's pushManager.subscribe is stood in for; all the button does with
# it (permission, the server's key, the POST) is real. A P-256 point, base64url, as browsers give.
SUBSCRIPTION = {"endpoint": "https://push.example.net/send/ep-1234", "expirationTime": None,
                "keys": {"p256dh": "BL618nHPXEbeBYLgnlCSX4hmzzN5iwQS-PyGMJYFiaHvFiFm5LHN7aT2KYSX7l"
                                   "wofvc45Poii3k4KOq-Qudy8GQ",
                         "auth": "dGVzdC1hdXRoLXNlY3JldA"}}
STAND_IN = """(subscription) => {
  window.subscribedWith = [];
  PushManager.prototype.subscribe = async function (options) {
    window.subscribedWith.push({userVisibleOnly: options.userVisibleOnly,
                                key: Array.from(new Uint8Array(options.applicationServerKey))});
    return {endpoint: subscription.endpoint, toJSON: () => subscription};
  };
}"""


def test_notify_me_subscribes_this_browser_to_pushes(browser, site):
    context = browser.new_context(viewport=PHONE, base_url=site, permissions=["notifications"])
    try:
        context.add_init_script(f"({STAND_IN})({json.dumps(SUBSCRIPTION)})")
        page = context.new_page()
        page.goto("/play/")
        page.get_by_label("Your name").fill("Nora")
        page.get_by_role("button", name="Sign in").click()
        page.get_by_role("heading", name="New game").wait_for()
        page.get_by_role("button", name="Notify me").click()
        page.get_by_role("button", name="Notifications on").wait_for()
        # Subscribed with the server's VAPID key, for notifications the user sees.
        token = page.evaluate("localStorage.getItem('tablestream.token')")
        headers = {"Authorization": f"Bearer {token}"}
        key = requests.get(f"{site}/v1/me/push-key", headers=headers, timeout=10).json()
        [used] = page.evaluate("window.subscribedWith")
        padded = key["public_key"] + "=" * (-len(key["public_key"]) % 4)
        assert used == {"userVisibleOnly": True,
                        "key": list(base64.urlsafe_b64decode(padded))}
        # And the server has this browser's subscription, for every notice kind.
        [subscription] = requests.get(f"{site}/v1/me/push-subscriptions", headers=headers,
                                      timeout=10).json()
        assert subscription["endpoint"] == SUBSCRIPTION["endpoint"]
        assert "your_turn" in subscription["events"]
    finally:
        context.close()
