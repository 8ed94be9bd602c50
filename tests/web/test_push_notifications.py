"""The installable web app (issue 26): a manifest, and a service worker that shows a Web Push
notice as a notification and takes the page to the game when it is tapped. Chromium delivers
the push to the service worker through CDP (ServiceWorker.deliverPushMessage)."""

from __future__ import annotations

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
