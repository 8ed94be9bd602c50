"""What the web worker (service.runtime.gunicorn_worker) refuses itself, before gunicorn parses a
request or the app sees one: a connection from an address that already holds its share of the
process's connections, and a request whose body does not arrive in time (issue 23: one player
cannot slow down another).

A process serves WORKER_CONNECTIONS connections at once, each a greenlet. One address that
opened 4,100 connections, sent the headers of a POST and then its body a byte every 5 s held
every one of them: other players' requests waited in the kernel's queue until it let go (a
bystander's GET timed out after 10 s, the next took 9.7 s). Now:

- an address (an IPv6 one: its /64) holds at most ``connections_per_address`` connections
  of a process at once (a quarter of them by default); the next is answered 429
  ``too_many_connections`` with Retry-After and closed, unread. Behind proxies
  (``TRUSTED_PROXIES``) every connection comes from a proxy's address, so there is no such
  cap then: the proxy's own limits apply;
- a request's body (up to ``max_body_bytes``; a longer one is refused unread, 413) is read
  whole within ``request_body_seconds`` of its headers, before the app runs; when it is late
  the answer is 408 ``request_timeout`` and the connection closes. Headers already have to come
  within gunicorn's keep-alive time (2 s);
- a write of an answer (a whole page, a stream's push) must be taken by the client within
  ``response_write_seconds``, or the connection is closed: a client that opened a busy game's
  stream and never read it held its connection (and 2 MB of the kernel's buffers) for ever.
"""

from __future__ import annotations

from flask import Flask

from service.app import i18n
from service.app.errors import RateLimited, RequestTimedOut
from service.app.limiter import limited_address
from service.http.early_refusal import WholeAnswers, head_locale
from service.runtime import metrics
from service.runtime.config import Config

RETRY_AFTER = 10  # s a refused connection is told to wait (as a refused stream is)


class ConnectionLimits:
    """The worker's limits and its answers, in the app's words and the caller's language."""

    def __init__(self, app: Flask, config: Config):
        # Behind proxies the connection's address is a proxy's: capping it would cap everyone.
        self.per_address = 0 if config.trusted_proxies > 0 else config.connections_per_address
        self.body_seconds = config.request_body_seconds
        self.max_body = config.max_body_bytes
        self.write_seconds = config.response_write_seconds
        self._answers = WholeAnswers(app)
        self._too_many = RateLimited(
            "too_many_connections",
            "At most {limit} open connections from one address; close one first.",
            {"limit": self.per_address}, retry_after=RETRY_AFTER)
        self._late = RequestTimedOut(
            "request_timeout", "The request body did not arrive within {seconds} s.",
            {"seconds": f"{self.body_seconds:g}"})

    @staticmethod
    def counted_as(address: str) -> str:
        """What the cap counts a connection from ``address`` as: an IPv6 address by its /64,
        as every per-address limit does (service.app.limiter.limited_address)."""
        return limited_address(address)

    def too_many(self, head: bytes) -> bytes:
        """The 429 for a connection over its address's share (``head``: its first bytes, for
        the language)."""
        metrics.WORKER_REFUSALS.labels("too_many_connections").inc()
        return self._answers.get("too_many", self._too_many, head_locale(head))

    def late_body(self, accept_language: str | None) -> bytes:
        """The 408 for a request whose body did not come within ``body_seconds``."""
        metrics.WORKER_REFUSALS.labels("request_timeout").inc()
        return self._answers.get("late", self._late,
                                 i18n.negotiate(accept_language) or i18n.DEFAULT_LOCALE)

    def answer_not_read(self) -> None:
        """Count a connection closed because its client did not read its answer in time."""
        metrics.WORKER_REFUSALS.labels("answer_not_read").inc()
