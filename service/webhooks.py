"""Webhooks (issue 14): a player's HTTPS callbacks, told of every notice (game started, your turn,
undo asked, clock warning, game over: issue 26) by an RQ job, signed with HMAC-SHA256, retried
with backoff, with each delivery's status kept for the player to read.

A delivery is POSTed as JSON with these headers:
- ``X-Tablestream-Event``: the notice kind; ``X-Tablestream-Delivery``: the delivery id (the same
  on every retry, so a receiver can drop a repeat);
- ``X-Tablestream-Timestamp``: Unix seconds; ``X-Tablestream-Signature``: ``sha256=`` and the hex
  HMAC-SHA256, keyed by the webhook's secret, of ``<timestamp>.<body>``. A receiver recomputes it
  and rejects an old timestamp, so a captured delivery cannot be replayed later.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import logging
import secrets
import time
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlparse

from service.errors import BadRequest, NotFound
from service.inbox import KINDS

log = logging.getLogger(__name__)

PUSHED = KINDS  # every notice kind reaches webhooks (issue 26)
MAX_WEBHOOKS = 5  # per player
DELIVERIES_KEPT = 100  # per webhook
RETRY_INTERVALS = (5, 30, 120, 600, 1800)  # seconds between attempts after a failure
TIMEOUT = 5.0  # seconds for the receiver to answer


def sign(secret: str, timestamp: int, body: bytes) -> str:
    """The ``X-Tablestream-Signature`` value for ``body`` sent at ``timestamp``."""
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return "sha256=" + mac.hexdigest()


def _hooks_key(player_id: str) -> str:
    return f"webhooks:{player_id}"


def _deliveries_key(webhook_id: str) -> str:
    return f"webhooks:deliveries:{webhook_id}"


class Webhooks:
    """Registration, listing and delivery records in Redis; delivery jobs on the RQ queue."""

    def __init__(self, client: Any, enqueue: Any = None, allow_http: bool = False,
                 retry_intervals: tuple[int, ...] = RETRY_INTERVALS):
        self.redis = client
        self.enqueue = enqueue  # enqueue(delivery job args) or None: no worker, no delivery
        self.allow_http = allow_http
        self.retry_intervals = retry_intervals

    # --- the player's side --------------------------------------------------------------------

    def register(self, player_id: str, url: str, kinds: list[str] | None) -> dict[str, Any]:
        """A new webhook; its signing secret is in this answer only."""
        self._check_url(url)
        kinds = sorted(set(kinds or PUSHED))
        unknown = set(kinds) - set(PUSHED)
        if unknown:
            raise BadRequest("unknown_notice_kind", f"Webhooks carry {', '.join(PUSHED)}.",
                             errors={"events": sorted(unknown)})
        if self.redis.hlen(_hooks_key(player_id)) >= MAX_WEBHOOKS:
            raise BadRequest("too_many_webhooks", f"A player may have {MAX_WEBHOOKS} webhooks.")
        hook = {"id": "wh_" + secrets.token_hex(8), "url": url, "events": kinds,
                "secret": secrets.token_urlsafe(32), "created": int(time.time())}
        self.redis.hset(_hooks_key(player_id), hook["id"], json.dumps(hook))
        return hook

    def list(self, player_id: str) -> list[dict[str, Any]]:
        return self.parse(self.redis.hvals(_hooks_key(player_id)))

    @staticmethod
    def parse(raws: list[Any]) -> list[dict[str, Any]]:
        """The webhooks in an HVALS reply of ``hooks_key``, oldest first, without secrets."""
        hooks = [json.loads(raw) for raw in raws]
        return sorted((_public(hook) for hook in hooks), key=lambda h: h["created"])

    @staticmethod
    def hooks_key(player_id: str) -> str:
        return _hooks_key(player_id)

    def pushes(self, notice: dict[str, Any]) -> bool:
        """Whether ``notice`` may go to webhooks at all (its kind, and a queue to send it)."""
        return notice["kind"] in PUSHED and self.enqueue is not None

    def delete(self, player_id: str, webhook_id: str) -> None:
        if not self.redis.hdel(_hooks_key(player_id), webhook_id):
            raise NotFound("webhook_not_found", f"You have no webhook {webhook_id}.")

    def deliveries(self, player_id: str, webhook_id: str) -> list[dict[str, Any]]:
        """The latest deliveries to one webhook, newest first, with their status."""
        self._hook(player_id, webhook_id)
        raw = self.redis.hvals(_deliveries_key(webhook_id))
        return sorted((json.loads(r) for r in raw), key=lambda d: d["created"], reverse=True)

    # --- the service's side -------------------------------------------------------------------

    def notify(self, player_id: str, notice: dict[str, Any],
               hooks: list[dict[str, Any]] | None = None) -> None:
        """Queue a delivery of ``notice`` to each of the player's webhooks that wants it
        (``hooks``: the player's webhooks, when the caller read them already)."""
        if not self.pushes(notice):
            return
        for hook in self.list(player_id) if hooks is None else hooks:
            if notice["kind"] not in hook["events"]:
                continue
            delivery = {"id": f"{hook['id']}-{notice['id']}", "webhook": hook["id"],
                        "kind": notice["kind"], "notice": notice, "status": "pending",
                        "attempts": 0, "created": time.time(), "last_status": None,
                        "last_error": None}
            self._save(delivery)
            self.enqueue(player_id, hook["id"], delivery["id"])

    def deliver(self, player_id: str, webhook_id: str, delivery_id: str,
                now: float | None = None) -> float | None:
        """Attempt one delivery: None when done (delivered, failed for good, or gone), else
        the seconds to wait before the next attempt."""
        try:
            hook = self._hook(player_id, webhook_id, with_secret=True)
        except NotFound:
            return None  # the webhook was deleted meanwhile
        raw = self.redis.hget(_deliveries_key(webhook_id), delivery_id)
        if raw is None:
            return None
        delivery = json.loads(raw)
        if delivery["status"] != "pending":
            return None  # a repeated job: this delivery is settled
        body = json.dumps(delivery["notice"], separators=(",", ":")).encode()
        stamp = int(now if now is not None else time.time())
        request = urllib.request.Request(hook["url"], data=body, method="POST", headers={
            "Content-Type": "application/json", "User-Agent": "Tablestream-Webhooks/1",
            "X-Tablestream-Event": delivery["kind"], "X-Tablestream-Delivery": delivery_id,
            "X-Tablestream-Timestamp": str(stamp),
            "X-Tablestream-Signature": sign(hook["secret"], stamp, body)})
        delivery["attempts"] += 1
        try:
            with _OPENER.open(request, timeout=TIMEOUT) as answer:
                delivery["last_status"] = answer.status
            delivery["status"], delivery["last_error"] = "delivered", None
        except urllib.error.HTTPError as exc:
            delivery["last_status"], delivery["last_error"] = exc.code, f"HTTP {exc.code}"
        except (urllib.error.URLError, OSError) as exc:
            delivery["last_error"] = str(getattr(exc, "reason", exc))[:200]
        wait = None
        if delivery["status"] == "pending":
            if delivery["attempts"] > len(self.retry_intervals):
                delivery["status"] = "failed"
            else:
                wait = float(self.retry_intervals[delivery["attempts"] - 1])
                delivery["next_attempt"] = time.time() + wait
        self._save(delivery)
        return wait

    # --- helpers ------------------------------------------------------------------------------

    def _check_url(self, url: str) -> None:
        parsed = urlparse(url)
        schemes = ("https", "http") if self.allow_http else ("https",)
        if parsed.scheme not in schemes or not parsed.hostname:
            raise BadRequest("invalid_webhook_url", "A webhook URL must be an https:// URL.")
        if not self.allow_http and _is_internal(parsed.hostname):
            # The server makes these requests: it must not be pointed at its own network.
            raise BadRequest("invalid_webhook_url",
                             "A webhook URL must not name a private or loopback address.")

    def _hook(self, player_id: str, webhook_id: str,
              with_secret: bool = False) -> dict[str, Any]:
        raw = self.redis.hget(_hooks_key(player_id), webhook_id)
        if raw is None:
            raise NotFound("webhook_not_found", f"You have no webhook {webhook_id}.")
        hook = json.loads(raw)
        return hook if with_secret else _public(hook)

    def _save(self, delivery: dict[str, Any]) -> None:
        key = _deliveries_key(delivery["webhook"])
        self.redis.hset(key, delivery["id"], json.dumps(delivery))
        if self.redis.hlen(key) > DELIVERIES_KEPT:
            oldest = sorted(((json.loads(v)["created"], k) for k, v in
                             self.redis.hgetall(key).items()))[:-DELIVERIES_KEPT]
            self.redis.hdel(key, *(k for _, k in oldest))


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """A redirect is an answer (3xx, retried), never followed: following one could lead the
    server to an address the URL check refused."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_OPENER = urllib.request.build_opener(_NoRedirects)


def _public(hook: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in hook.items() if k != "secret"}


def _is_internal(host: str) -> bool:
    if host in ("localhost",) or host.endswith((".localhost", ".internal", ".local")):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False  # a name: resolved at delivery time (operators should egress-filter)
    return address.is_private or address.is_loopback or address.is_link_local \
        or address.is_reserved or address.is_multicast or address.is_unspecified
