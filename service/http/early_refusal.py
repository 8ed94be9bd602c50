"""Live streams (and long polls) without a token refused from a connection's first bytes, before
gunicorn parses the request or Flask builds one (issue 23 items 4 and 8).

4,000 tokenless streams opened from one address in 3 s were each answered 429
``too_many_streams`` without a Redis round trip, yet every refusal still cost an API process
about 0.6 ms of CPU: gunicorn's parser, Flask's request, the error handler, the after-request
hooks. On two cores that burst, with the abuser's own connects, tripled a bystander's move p99.
The web worker (service.runtime.gunicorn_worker) peeks at each new connection's first bytes and
asks ``EarlyRefusal.answer``: when they are a whole ``GET`` of a game's event stream (or a long
poll of its events, ``wait`` set, which holds a stream slot as long) with no token (neither
``access_token`` in the URL nor an ``Authorization`` header) and this process would refuse it
now without asking Redis (the address was refused a moment ago, or the process's tokenless
streams are all taken), the worker reads the request, sends the same 429 problem the app sends
(Retry-After, in the caller's Accept-Language) and closes. Anything else, or bytes not all there
yet, is parsed and answered as usual.

Behind proxies (``TRUSTED_PROXIES``) the connection's address is a proxy's, not the caller's:
there is no early refusal then (``create_app`` installs none).
"""

from __future__ import annotations

import re
import threading
from typing import Any
from urllib.parse import parse_qsl

from flask import Flask

from service.app import i18n
from service.app.limiter import StreamSlots, limited_address
from service.http.context import waits
from service.http.i18n import content_language
from service.runtime import metrics

# A game's live stream, or its events read as a long poll, as ``events_feed`` routes them (the
# game id as check_game_id allows it).
STREAM_REQUEST = re.compile(rb"GET /v1/games/[A-Za-z0-9_-]{1,64}/events(/stream)?(\?[^ \r\n]*)? "
                            rb"HTTP/1\.[01]\r\n")
ROUTES = {True: "/v1/games/<game_id>/events/stream", False: "/v1/games/<game_id>/events"}
HEAD_END = b"\r\n\r\n"
_TOKEN_FIELDS = (b"\r\nauthorization:", b"\r\ncontent-length:", b"\r\ntransfer-encoding:")
_ACCEPT_LANGUAGE = re.compile(rb"\r\naccept-language:[ \t]*([^\r\n]*)", re.IGNORECASE)


class EarlyRefusal:
    """Answers, as whole HTTP responses, for tokenless streams this process refuses now."""

    def __init__(self, app: Flask, slots: StreamSlots):
        self._slots = slots
        self._answers = WholeAnswers(app)

    def answer(self, address: str, head: bytes) -> tuple[int, bytes] | None:
        """For a connection from ``address`` whose first bytes are ``head``: how many of them
        are the request and the whole answer to send before closing, when it is a stream (or a
        long poll, which holds a stream slot as long) without a token that this process
        refuses now; None for anything else."""
        match = STREAM_REQUEST.match(head)
        if match is None:
            return None
        end = head.find(HEAD_END)
        if end < 0:
            return None  # not all there yet: gunicorn reads the rest
        fields = head[match.end() - 2:end].lower()
        stream, query = match.group(1) is not None, (match.group(2) or b"?")[1:]
        if b"access_token=" in query or any(name in fields for name in _TOKEN_FIELDS):
            return None  # a token (a player's own slots), or a body: the app decides
        if not stream and not _waits_in(query):
            return None  # a plain read of the events: it holds no stream slot
        refusal = self._slots.tokenless_refusal(limited_address(address))
        if refusal is None:
            return None
        metrics.EARLY_REFUSALS.inc()
        metrics.REQUESTS.labels("GET", ROUTES[stream], "429").inc()
        answer = self._answers.get(str(refusal.detail), refusal, head_locale(head))
        return end + len(HEAD_END), answer


class WholeAnswers:
    """The app's own answers to the web worker's refusals (problem+json, as its error handlers
    make them), each a whole HTTP/1.1 response that closes the connection, made once per key
    and language."""

    def __init__(self, app: Flask):
        self._app = app
        self._made: dict[tuple[str, str], bytes] = {}
        self._lock = threading.Lock()

    def get(self, key: str, error: Exception, locale: str) -> bytes:
        """The answer to ``error`` (known by ``key``) in ``locale``."""
        answer = self._made.get((key, locale))
        if answer is None:
            with self._lock:
                answer = self._made[(key, locale)] = self._make(error, locale)
        return answer

    def _make(self, error: Exception, locale: str) -> bytes:
        app = self._app
        # An app context of its own: a request being served here may have one pushed, whose
        # ``g`` holds that request's locale.
        with app.app_context(), app.test_request_context(headers={"Accept-Language": locale}):
            response: Any = content_language(app.make_response(app.handle_user_exception(error)))
            body = response.get_data()
            response.headers["Content-Length"] = str(len(body))
            response.headers["Connection"] = "close"
            head = [f"HTTP/1.1 {response.status}",
                    *(f"{name}: {value}" for name, value in response.headers.items())]
            return ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body


def head_locale(head: bytes) -> str:
    """The supported language a request's first bytes ask for (Accept-Language), else the
    default."""
    end = head.find(HEAD_END)
    language = _ACCEPT_LANGUAGE.search(head, 0, len(head) if end < 0 else end + 2)
    return i18n.negotiate(language.group(1).decode("latin-1") if language else None) \
        or i18n.DEFAULT_LOCALE


def _waits_in(query: bytes) -> bool:
    """Whether a query string asks for a long poll, its first ``wait`` read as the app reads
    it (service.http.context.waits)."""
    for name, value in parse_qsl(query.decode("latin-1"), keep_blank_values=True):
        if name == "wait":
            return waits(value)
    return False
