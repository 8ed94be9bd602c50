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
import http.client
import ipaddress
import json
import logging
import secrets
import socket
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlparse

from service.app.errors import BadRequest, NotFound
from service.app.inbox import KINDS

log = logging.getLogger(__name__)

PUSHED = KINDS  # every notice kind reaches webhooks (issue 26)
MAX_WEBHOOKS = 5  # per player
DELIVERIES_KEPT = 100  # per webhook (and push subscription), listed
DELIVERIES_SLACK = 20  # more kept until the record is cut back (_keep_latest)
RETRY_INTERVALS = (5, 30, 120, 600, 1800)  # seconds between attempts after a failure
TIMEOUT = 5.0  # seconds for the receiver to answer
UNREACHABLE = "no HTTP answer"  # last_error of any failure before the receiver answered
# Seconds an attempt may take in all, however slowly a receiver drips its answer (issue 23
# item 6): workers.jobs.deliver_webhook ends it there, as a failed attempt to retry.
DEADLINE = 10.0


def new_delivery(notice: dict[str, Any], owner: str, owner_id: str) -> dict[str, Any]:
    """A pending delivery of ``notice`` (with its id) to ``owner_id``, a "webhook" or a push
    "subscription"; its id names both, so one notice is delivered there once."""
    return {"id": f"{owner_id}-{notice['id']}", owner: owner_id, "kind": notice["kind"],
            "notice": notice, "status": "pending", "attempts": 0, "created": time.time(),
            "last_status": None, "last_error": None}


def schedule_retry(delivery: dict[str, Any], intervals: tuple[int, ...]) -> float | None:
    """After an attempt: the seconds until a pending delivery's next one (noted in it), or None
    when it is settled or, past its last interval, marked failed. Pushes share it (push.py)."""
    if delivery["status"] != "pending":
        return None
    if delivery["attempts"] > len(intervals):
        delivery["status"] = "failed"
        return None
    wait = float(intervals[delivery["attempts"] - 1])
    delivery["next_attempt"] = time.time() + wait
    return wait


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
                 retry_intervals: tuple[int, ...] = RETRY_INTERVALS, enqueue_many: Any = None):
        self.redis = client
        self.enqueue = enqueue  # enqueue(delivery job args) or None: no worker, no delivery
        # enqueue_many([delivery job args, ...]): a notice's deliveries in one round trip
        self.enqueue_many = enqueue_many
        self.allow_http = allow_http
        self.retry_intervals = retry_intervals

    # --- the player's side --------------------------------------------------------------------

    def register(self, player_id: str, url: str, kinds: list[str] | None) -> dict[str, Any]:
        """A new webhook; its signing secret is in this answer only."""
        self._check_url(url)
        kinds = sorted(set(kinds or PUSHED))
        unknown = set(kinds) - set(PUSHED)
        if unknown:
            raise BadRequest("unknown_notice_kind", "Webhooks carry {kinds}.",
                                                    params={"kinds": ', '.join(PUSHED)},
                             errors={"events": sorted(unknown)})
        if self.redis.hlen(_hooks_key(player_id)) >= MAX_WEBHOOKS:
            raise BadRequest("too_many_webhooks", "A player may have {max} webhooks.",
                                                  params={"max": MAX_WEBHOOKS})
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
            raise NotFound("webhook_not_found", "You have no webhook {webhook_id}.",
                                                params={"webhook_id": webhook_id})

    def deliveries(self, player_id: str, webhook_id: str) -> list[dict[str, Any]]:
        """The latest deliveries to one webhook, newest first, with their status."""
        self._hook(player_id, webhook_id)
        raw = self.redis.hvals(_deliveries_key(webhook_id))
        return sorted((json.loads(r) for r in raw), key=lambda d: d["created"],
                      reverse=True)[:DELIVERIES_KEPT]

    # --- the service's side -------------------------------------------------------------------

    def notify(self, player_id: str, notice: dict[str, Any],
               hooks: list[dict[str, Any]] | None = None) -> None:
        """Queue a delivery of ``notice`` to each of the player's webhooks that wants it
        (``hooks``: the player's webhooks, when the caller read them already)."""
        if not self.pushes(notice):
            return
        deliveries = [new_delivery(notice, "webhook", hook["id"])
                      for hook in (self.list(player_id) if hooks is None else hooks)
                      if notice["kind"] in hook["events"]]
        if not deliveries:
            return
        # Written, then queued, in a round trip each: this runs inline in whatever caused the
        # notice (a move's request, a bot's turn in the clocks' worker).
        save_deliveries(self.redis, deliveries, "webhook", _deliveries_key)
        queue_first_attempts([(player_id, d["webhook"], d["id"]) for d in deliveries],
                             self.enqueue_many, self.enqueue)

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
        headers = {
            "Content-Type": "application/json", "User-Agent": "Tablestream-Webhooks/1",
            "X-Tablestream-Event": delivery["kind"], "X-Tablestream-Delivery": delivery_id,
            "X-Tablestream-Timestamp": str(stamp),
            "X-Tablestream-Signature": sign(hook["secret"], stamp, body)}
        delivery["attempts"] += 1
        try:
            delivery["last_status"] = post(hook["url"], body, headers, self.allow_http)
            if 200 <= delivery["last_status"] < 300:
                delivery["status"], delivery["last_error"] = "delivered", None
            else:
                delivery["last_error"] = f"HTTP {delivery['last_status']}"
        except (OSError, http.client.HTTPException, ValueError) as exc:
            # One vague reason whatever went wrong (no address allowed, refused, timed out,
            # TLS): the difference would let a player map the server's network (issue 23 item 9).
            log.info("webhook %s delivery %s: %r", webhook_id, delivery_id, exc)
            delivery["last_status"], delivery["last_error"] = None, UNREACHABLE
        wait = schedule_retry(delivery, self.retry_intervals)
        self._save(delivery)
        return wait

    # --- helpers ------------------------------------------------------------------------------

    def _check_url(self, url: str) -> None:
        parsed = urlparse(url)
        schemes = ("https", "http") if self.allow_http else ("https",)
        if parsed.scheme not in schemes or not parsed.hostname:
            raise BadRequest("invalid_webhook_url", "A webhook URL must be an https:// URL.")
        try:
            parsed.port  # noqa: B018 -- raises on a port out of range
        except ValueError:
            raise BadRequest("invalid_webhook_url", "The webhook URL's port is not valid.") \
                from None
        if not self.allow_http and names_internal_host(parsed.hostname):
            # The server makes these requests: it must not be pointed at its own network.
            # Names are resolved and checked again at each delivery (DNS can change).
            raise BadRequest("invalid_webhook_url",
                             "A webhook URL must not name a private or loopback address.")

    def _hook(self, player_id: str, webhook_id: str,
              with_secret: bool = False) -> dict[str, Any]:
        raw = self.redis.hget(_hooks_key(player_id), webhook_id)
        if raw is None:
            raise NotFound("webhook_not_found", "You have no webhook {webhook_id}.",
                                                params={"webhook_id": webhook_id})
        hook = json.loads(raw)
        return hook if with_secret else _public(hook)

    def _save(self, delivery: dict[str, Any]) -> None:
        save_deliveries(self.redis, [delivery], "webhook", _deliveries_key)


def save_deliveries(client: Any, deliveries: list[dict[str, Any]], owner: str,
                    key_of: Callable[[str], str], only_new: bool = False) -> list[dict[str, Any]]:
    """Write the deliveries' records (each in ``key_of(delivery[owner])``, a hash of JSON by
    delivery id) in one round trip, or with ``only_new`` those not recorded yet (a notice goes
    once); the deliveries written. Webhooks and push subscriptions keep theirs so."""
    pipe = client.pipeline(transaction=False)  # on Cluster, records in any slot
    for delivery in deliveries:
        key = key_of(delivery[owner])
        write = pipe.hsetnx if only_new else pipe.hset
        write(key, delivery["id"], json.dumps(delivery))
        pipe.hlen(key)
    replies = pipe.execute()
    for delivery, length in zip(deliveries, replies[1::2], strict=True):
        _keep_latest(client, key_of(delivery[owner]), length)
    return [delivery for delivery, written in zip(deliveries, replies[0::2], strict=True)
            if written or not only_new]


def _keep_latest(client: Any, key: str, length: int) -> None:
    """A record of ``length`` deliveries cut back to its DELIVERIES_KEPT newest once it holds
    DELIVERIES_SLACK more: cutting it at every notice read, parsed and sorted its hundred
    deliveries each time, inline in the notice's maker."""
    if length <= DELIVERIES_KEPT + DELIVERIES_SLACK:
        return
    oldest = sorted(((json.loads(v)["created"], k) for k, v in
                     client.hgetall(key).items()))[:-DELIVERIES_KEPT]
    if oldest:
        client.hdel(key, *(k for _, k in oldest))


def queue_first_attempts(jobs: list[tuple[str, str, str]], enqueue_many: Any,
                         enqueue: Any) -> None:
    """Queue the first attempt of each delivery job (player, webhook or subscription,
    delivery): all in one go through ``enqueue_many`` when there is one, else one by one."""
    if not jobs:
        return
    if enqueue_many is not None:
        enqueue_many(jobs)
        return
    for job in jobs:
        enqueue(*job)


def _public(hook: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in hook.items() if k != "secret"}


# IPv6 prefixes that carry an IPv4 address in their last 32 bits: NAT64's well-known prefix
# (RFC 6052; a NAT64 gateway turns it into a connection to that IPv4 address).
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
# Prefixes ipaddress counts as global that a webhook has no business reaching: IETF protocol
# assignments (192.0.0.0/24 but its two anycast /32s are "global") and the deprecated 6to4 relay.
_NOT_RECEIVERS = (ipaddress.ip_network("192.0.0.0/24"), ipaddress.ip_network("192.88.99.0/24"))


def is_forbidden_address(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Whether a webhook may not connect to ``address``: anything but a public unicast address
    (loopback, private, link-local, CGNAT, reserved, documentation, multicast, unspecified,
    Teredo), and an IPv6 address whose embedded IPv4 (mapped, 6to4, NAT64) is one of those."""
    if isinstance(address, ipaddress.IPv6Address):
        nat64 = address in _NAT64
        embedded = address.ipv4_mapped or address.sixtofour \
            or (ipaddress.IPv4Address(int(address) & 0xFFFFFFFF) if nat64 else None)
        if embedded is not None and is_forbidden_address(embedded):
            return True
        if nat64:
            return False  # a public IPv4 address through NAT64 (ipaddress calls ::/8 reserved)
    return not address.is_global or address.is_multicast or address.is_reserved \
        or address.is_unspecified or any(address in net for net in _NOT_RECEIVERS
                                         if net.version == address.version)


def _literal_address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """``host`` as the address the resolver reads it as (``127.1``, ``2130706433``,
    ``0x7f000001`` and ``0177.0.0.1`` are all 127.0.0.1), or None for a name."""
    try:
        infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM,
                                   flags=socket.AI_NUMERICHOST)
    except (socket.gaierror, UnicodeError):
        return None
    return ipaddress.ip_address(infos[0][4][0].split("%")[0])


def names_internal_host(host: str) -> bool:
    """Whether a webhook URL's host is plainly internal: an address a webhook may not reach in
    any of its spellings, ``localhost``, a local suffix, or a name of one label (an /etc/hosts
    or search-domain name: a public receiver has a dotted name)."""
    host = host.rstrip(".").lower()
    address = _literal_address(host)
    if address is not None:
        return is_forbidden_address(address)
    return "." not in host or host == "localhost" \
        or host.endswith((".localhost", ".internal", ".local", ".home.arpa", ".arpa"))


def resolve(host: str, port: int, allow_internal: bool = False) -> list[str]:
    """The addresses to connect to for ``host``, every one of them checked: none when any of
    them is forbidden (a name resolving to a public and a private address is refused whole)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    addresses = list(dict.fromkeys(info[4][0] for info in infos))
    if not allow_internal:
        for text in addresses:
            if is_forbidden_address(ipaddress.ip_address(text.split("%")[0])):
                raise ForbiddenAddress(host)
    if not addresses:
        raise ForbiddenAddress(host)
    return addresses


class ForbiddenAddress(OSError):
    """A webhook's host resolved to an address the server may not connect to."""


def post(url: str, body: bytes, headers: dict[str, str], allow_internal: bool = False) -> int:
    """POST ``body`` to ``url`` and return the HTTP status. The host is resolved once, every
    address checked, and the connection made to a checked address (a second lookup could
    answer differently: DNS rebinding); TLS's SNI and certificate check and the Host header
    still use the name. Redirects are answers, never followed (they could lead anywhere)."""
    parsed = urlparse(url)
    host = parsed.hostname or ""
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    addresses = resolve(host, port, allow_internal)
    connection_class = http.client.HTTPSConnection if parsed.scheme == "https" \
        else http.client.HTTPConnection
    connection = connection_class(host, port, timeout=TIMEOUT)
    connection._create_connection = _pinned(addresses)  # type: ignore[attr-defined]
    path = (parsed.path or "/") + (f"?{parsed.query}" if parsed.query else "")
    try:
        connection.request("POST", path, body=body, headers=headers)
        return connection.getresponse().status
    finally:
        connection.close()


def _pinned(addresses: list[str]) -> Any:
    """A ``socket.create_connection`` for http.client that connects to ``addresses`` in turn,
    never to what the name it was given resolves to now."""
    def connect(address: tuple[str, int], timeout: Any = None, source: Any = None) -> Any:
        failure: OSError | None = None
        for ip in addresses:
            try:
                return socket.create_connection((ip, address[1]), timeout, source)
            except OSError as exc:
                failure = exc
        raise failure or ForbiddenAddress(address[0])
    return connect
