"""Web Push (issue 26): a player's browsers and apps told of their notices through their push
services (RFC 8030), each message encrypted to the subscription's keys (RFC 8291,
``aes128gcm``) and signed with the server's VAPID key (RFC 8292), by an RQ job that retries
with backoff, as webhooks are (service/app/webhooks.py). A push service that answers 404 or 410
says the subscription is gone: it is dropped.

The VAPID key pair is made once and kept in Redis (``push:vapid``) for every process, unless
$VAPID_PRIVATE_KEY names a PEM file; browsers subscribe with its public key
(``GET /v1/push/vapid-key``).
"""

from __future__ import annotations

import base64
import json
import logging
import secrets
import time
from typing import Any
from urllib.parse import urlparse

import requests

from games.core import N_, Text
from service.app import i18n
from service.app.errors import BadRequest, NotFound
from service.app.webhooks import (
    DELIVERIES_KEPT,
    UNREACHABLE,
    names_internal_host,
    new_delivery,
    queue_first_attempts,
    resolve,
    save_deliveries,
    schedule_retry,
)

log = logging.getLogger(__name__)

# What becomes a push (issue 26): your turn, clock running out, game started and finished,
# takeback asked, dispute ruled.
PUSHED = ("game_started", "your_turn", "clock_warning", "game_over", "undo_asked",
          "dispute_ruled")
MAX_SUBSCRIPTIONS = 10  # per player: a phone, a laptop...
RETRY_INTERVALS = (5, 30, 120, 600, 1800)  # seconds between attempts after a failure
TIMEOUT = 5.0
TTL = 24 * 3600  # how long a push service keeps a message for a device that is offline
GONE = (404, 410)  # RFC 8030 §7.3: the subscription expired or was unsubscribed
VAPID_KEY = "push:vapid"
SUBJECT = "mailto:admin@tablestream.invalid"

TITLES = {"game_started": N_("Your game started"), "your_turn": N_("Your turn"),
          "clock_warning": N_("Your clock is running out"), "game_over": N_("Game over"),
          "undo_asked": N_("A takeback is asked"), "dispute_ruled": N_("Your dispute was ruled")}


def _subs_key(player_id: str) -> str:
    return f"push:subscriptions:{player_id}"


def _deliveries_key(subscription_id: str) -> str:
    return f"push:deliveries:{subscription_id}"


def payload(notice: dict[str, Any], locale: str = i18n.DEFAULT_LOCALE) -> dict[str, Any]:
    """What the service worker gets: a title and text to show (in ``locale``), the page to
    open on a tap, and the notice itself."""
    game = notice.get("game", "")
    shown = game if locale == i18n.DEFAULT_LOCALE else i18n.game_title(game, locale)
    return {"title": i18n.say(TITLES.get(notice["kind"], notice["kind"]), locale),
            "body": i18n.say(Text("{game} game {game_id}", game=shown,
                                  game_id=notice["game_id"]), locale),
            "url": f"/play/#/games/{notice['game_id']}", "notice": notice}


class PushSubscriptions:
    """Subscriptions and delivery records in Redis; delivery jobs on the RQ queue."""

    def __init__(self, client: Any, enqueue: Any = None, allow_http: bool = False,
                 retry_intervals: tuple[int, ...] = RETRY_INTERVALS,
                 private_key_file: str | None = None, subject: str = SUBJECT,
                 enqueue_many: Any = None):
        self.redis = client
        self.enqueue = enqueue  # enqueue(player, subscription, delivery[, delay]) or None
        # enqueue_many([(player, subscription, delivery), ...]): first attempts in one go
        self.enqueue_many = enqueue_many
        self.allow_http = allow_http  # loopback push services: tests and local development
        self.retry_intervals = retry_intervals
        self.private_key_file = private_key_file
        self.subject = subject
        self._vapid: Any = None  # py_vapid.Vapid, loaded on first use

    # --- keys ---------------------------------------------------------------------------------

    def vapid(self) -> Any:
        """The server's VAPID key (made once, shared by every process through Redis)."""
        # Imported here: pywebpush brings aiohttp, which an API process needs only to push.
        from py_vapid import Vapid

        if self._vapid is None:
            if self.private_key_file:
                self._vapid = Vapid.from_file(self.private_key_file)
            else:
                made = Vapid()
                made.generate_keys()
                self.redis.set(VAPID_KEY, made.private_pem().decode(), nx=True)
                pem = self.redis.get(VAPID_KEY)
                self._vapid = Vapid.from_pem(pem.encode() if isinstance(pem, str) else pem)
        return self._vapid

    def public_key(self) -> str:
        """The VAPID public key as browsers take it (``applicationServerKey``): the
        uncompressed P-256 point, base64url without padding."""
        from cryptography.hazmat.primitives import serialization

        raw = self.vapid().public_key.public_bytes(serialization.Encoding.X962,
                                                   serialization.PublicFormat.UncompressedPoint)
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    def _locale(self, player_id: str, record: dict[str, Any]) -> str:
        """The language of a push: the player's choice (service.app.accounts), else the one the
        subscription was made in, else English."""
        chosen = self.redis.hget(f"players:{player_id}", "locale")
        chosen = chosen.decode() if isinstance(chosen, bytes) else chosen
        for locale in (chosen, record.get("locale")):
            if locale in i18n.SUPPORTED_LOCALES:
                return locale
        return i18n.DEFAULT_LOCALE

    # --- the player's side --------------------------------------------------------------------

    def register(self, player_id: str, endpoint: str, p256dh: str, auth: str,
                 kinds: list[str] | None, locale: str | None = None) -> dict[str, Any]:
        """A new subscription (a browser's PushSubscription.toJSON()); its pushes are worded
        in the player's chosen language, else in ``locale`` (the subscribing request's)."""
        self._check_endpoint(endpoint)
        kinds = sorted(set(kinds or PUSHED))
        unknown = set(kinds) - set(PUSHED)
        if unknown:
            raise BadRequest("unknown_notice_kind", "Pushes carry {kinds}.",
                                                    params={"kinds": ', '.join(PUSHED)},
                             errors={"events": sorted(unknown)})
        for existing in self.list(player_id):
            if existing["endpoint"] == endpoint:  # the same browser subscribing again
                self.redis.hdel(_subs_key(player_id), existing["id"])
        if self.redis.hlen(_subs_key(player_id)) >= MAX_SUBSCRIPTIONS:
            raise BadRequest("too_many_push_subscriptions",
                             "A player may have {max} push subscriptions.",
                             params={"max": MAX_SUBSCRIPTIONS})
        record = {"id": "ps_" + secrets.token_hex(8), "endpoint": endpoint,
                  "keys": {"p256dh": p256dh, "auth": auth}, "events": kinds,
                  "created": time.time(), "locale": locale}
        self.redis.hset(_subs_key(player_id), record["id"], json.dumps(record))
        return record

    def list(self, player_id: str) -> list[dict[str, Any]]:
        """The player's subscriptions, oldest first."""
        return self.parse(self.redis.hvals(_subs_key(player_id)))

    @staticmethod
    def parse(raws: list[Any]) -> list[dict[str, Any]]:
        """The subscriptions in an HVALS reply of ``subscriptions_key``, oldest first."""
        records = [json.loads(raw) for raw in raws]
        return sorted(records, key=lambda r: (r["created"], r["id"]))

    @staticmethod
    def subscriptions_key(player_id: str) -> str:
        """The hash of a player's subscriptions (read along with an append's notices)."""
        return _subs_key(player_id)

    def delete(self, player_id: str, subscription_id: str) -> None:
        if not self.redis.hdel(_subs_key(player_id), subscription_id):
            raise NotFound("push_subscription_not_found",
                           "You have no push subscription {subscription_id}.",
                           params={"subscription_id": subscription_id})
        self.redis.delete(_deliveries_key(subscription_id))

    def deliveries(self, player_id: str, subscription_id: str) -> list[dict[str, Any]]:
        """The latest deliveries to one subscription, newest first, with their status."""
        self._subscription(player_id, subscription_id)
        raw = self.redis.hvals(_deliveries_key(subscription_id))
        return sorted((json.loads(r) for r in raw), key=lambda d: d["created"],
                      reverse=True)[:DELIVERIES_KEPT]

    # --- the service's side -------------------------------------------------------------------

    def pushes(self, notice: dict[str, Any]) -> bool:
        return notice["kind"] in PUSHED and self.enqueue is not None

    def notify(self, player_id: str, notice: dict[str, Any],
               records: list[dict[str, Any]] | None = None) -> int:
        """Queue a push of ``notice`` (with its id) to each subscription that wants it (of
        ``records``, the player's subscriptions when already read); how many were queued."""
        if not self.pushes(notice):
            return 0
        deliveries = [new_delivery(notice, "subscription", record["id"])
                      for record in (self.list(player_id) if records is None else records)
                      if notice["kind"] in record["events"]]
        if not deliveries:
            return 0
        # Written, then queued, in a round trip each, as webhooks' are: this runs inline in
        # whatever caused the notice (a move's request, a bot's turn in the clocks' worker).
        fresh = save_deliveries(self.redis, deliveries, "subscription", _deliveries_key,
                                only_new=True)
        queue_first_attempts([(player_id, d["subscription"], d["id"]) for d in fresh],
                             self.enqueue_many, self.enqueue)
        return len(fresh)

    def deliver(self, player_id: str, subscription_id: str, delivery_id: str) -> float | None:
        """Attempt one push: None when done (delivered, failed for good, or the subscription
        gone), else the seconds to wait before the next attempt."""
        try:
            record = self._subscription(player_id, subscription_id)
        except NotFound:
            return None
        raw = self.redis.hget(_deliveries_key(subscription_id), delivery_id)
        if raw is None:
            return None
        delivery = json.loads(raw)
        if delivery["status"] != "pending":
            return None  # a repeated job: settled already
        from pywebpush import WebPushException, webpush

        delivery["attempts"] += 1
        try:
            self._check_endpoint(record["endpoint"])
            self._check_addresses(record["endpoint"])
            answer = webpush({"endpoint": record["endpoint"], "keys": record["keys"]},
                             data=json.dumps(payload(delivery["notice"],
                                                     self._locale(player_id, record))),
                             vapid_private_key=self.vapid(),
                             vapid_claims={"sub": self.subject}, timeout=TIMEOUT, ttl=TTL,
                             requests_session=_NO_REDIRECTS)
            delivery["last_status"] = getattr(answer, "status_code", None)
            delivery["status"], delivery["last_error"] = "delivered", None
        except WebPushException as exc:
            status = exc.response.status_code if exc.response is not None else None
            delivery["last_status"], delivery["last_error"] = status, str(exc)[:200]
            if status in GONE:
                # The push service forgot this subscription: so do we (issue 26).
                self.redis.hdel(_subs_key(player_id), subscription_id)
                self.redis.delete(_deliveries_key(subscription_id))
                log.info("push subscription %s is gone (%s): dropped", subscription_id,
                         status)
                return None
        except (requests.RequestException, OSError) as exc:
            # One vague error for any failure before an answer, as webhooks record (issue 23
            # item 9): "refused" against "timed out" would make pushes a port scanner.
            log.info("push %s to subscription %s failed: %s", delivery_id, subscription_id, exc)
            delivery["last_error"] = UNREACHABLE
        except BadRequest as exc:
            delivery["last_error"] = exc.detail
        wait = schedule_retry(delivery, self.retry_intervals)
        self.redis.hset(_deliveries_key(subscription_id), delivery_id, json.dumps(delivery))
        return wait

    # --- helpers ------------------------------------------------------------------------------

    def _check_endpoint(self, endpoint: str) -> None:
        """The same outbound-address rule as webhooks: https, and no private or loopback
        address unless local receivers are allowed."""
        parsed = urlparse(endpoint)
        schemes = ("https", "http") if self.allow_http else ("https",)
        if parsed.scheme not in schemes or not parsed.hostname:
            raise BadRequest("invalid_push_endpoint", "A push endpoint must be an https:// URL.")
        if not self.allow_http and names_internal_host(parsed.hostname):
            raise BadRequest("invalid_push_endpoint",
                             "A push endpoint must not name a private or loopback address.")

    def _check_addresses(self, endpoint: str) -> None:
        """At delivery: every address the endpoint's name resolves to now must be one a push
        may reach (webhooks.resolve; raises ForbiddenAddress, an OSError), so a name that
        later points inside is refused (issue 23 item 9)."""
        parsed = urlparse(endpoint)
        port = parsed.port or (443 if parsed.scheme == "https" else 80)
        resolve(parsed.hostname or "", port, allow_internal=self.allow_http)

    def _subscription(self, player_id: str, subscription_id: str) -> dict[str, Any]:
        raw = self.redis.hget(_subs_key(player_id), subscription_id)
        if raw is None:
            raise NotFound("push_subscription_not_found",
                           "You have no push subscription {subscription_id}.",
                           params={"subscription_id": subscription_id})
        return json.loads(raw)


class _NoRedirectSession(requests.Session):
    """A redirect is an answer, never followed (it could lead to an address the check
    refused)."""

    def __init__(self) -> None:
        super().__init__()
        self.max_redirects = 0


_NO_REDIRECTS = _NoRedirectSession()
