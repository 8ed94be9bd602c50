"""The log as the caller may see it: pages by version, and live server-sent events."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from contextlib import closing

import redis
from flask import Response, stream_with_context
from flask.views import MethodView

from events.store import StoredEvent
from service.app.lobby import WATCH_SECONDS
from service.http import wire
from service.http.blueprint import Blueprint, sse_event_schema
from service.http.context import bearer_token, charge_read, ctx, hold_stream, optional_player
from service.http.errors import end_on_outage
from service.http.games import game_wire
from service.http.i18n import current_locale
from service.http.long_reads import LONG_READS
from service.http.paging import NEXT_LINK, next_link
from service.http.schemas import EventPage, EventsQuery, StreamHeaders, StreamQuery
from service.http.stream_auth import TOKEN_ENDED, TokenWatch
from service.runtime import metrics
from service.runtime.fanout import Batch
from service.runtime.shared_bytes import SharedBytes

log = logging.getLogger(__name__)
# What every stream writes alike: one object each, so the worker frames it once (SharedBytes).
CONNECTED = SharedBytes(b": connected\n\n")
KEEP_ALIVE = SharedBytes(b": keep-alive\n\n")

blp = Blueprint("events", __name__, url_prefix="/v1/games", description="The event log")


@blp.route("/<game_id>/events")
class Events(MethodView):
    @blp.arguments(EventsQuery(), location="query")
    @blp.response(200, EventPage, headers={"Link": NEXT_LINK})
    @blp.errors(400, 401, 404, 429)
    def get(self, query, game_id):
        """Page through the log from version `from` (or `after`), redacted for the caller;
        with `wait`, a long poll."""
        tablestream = ctx()
        service = tablestream.service
        projection = service.projection(game_id)
        # Paid for by the events it returns, before any is read (issue 23 item 5).
        last = min(query.get("to") or projection.version, projection.version,
                   query["from_"] + query["limit"] - 1)
        charge_read(last - query["from_"] + 1)
        viewer = service.viewer_for(projection, optional_player())
        first = max(query["after"] + 1 if "after" in query else query["from_"], 1)
        wait = min(query["wait"], tablestream.config.long_poll_max_seconds)
        if wait > 0 and first > projection.version and projection.status != "finished":
            # Nothing new yet: wait on the process's shared feed of the game, as a stream
            # would (issue 26), then answer with whatever came.
            _wait_for_events(service, game_id, first - 1, projection.version, wait)
            projection = service.projection(game_id)
        end = min(query.get("to") or projection.version, projection.version)
        last = min(end, first + query["limit"] - 1)
        following = last + 1 if first <= last < end else None
        # Made once per version, reader and range; bytes kept for the next who asks.
        body = LONG_READS.encoded(
            ("events", game_id, projection.version, viewer, first, last), last - first + 1,
            lambda: wire.dumps(wire.event_page_out({
                "game": projection.data["game"], "version": projection.version,
                "events": service.events_page(game_id, viewer, first, last, last - first + 1),
                "next": following})))
        return wire.encoded_answer(body, 200, next_link("from", following and str(following)))


def _wait_for_events(service, game_id: str, after: int, end: int, seconds: float) -> None:
    """Return once the game has events after ``after``, or after ``seconds``."""
    store = service.store
    batches = ctx().fanout.follow(
        ("game", game_id), after, read=lambda v: store.read(game_id, v + 1),
        wait=lambda v, block_ms: store.wait(game_id, v, block_ms),
        position_of=_version, order=int, heartbeat=seconds, end=end)
    with closing(batches):
        next(batches, None)  # a batch, or None after ``seconds`` without one


@blp.route("/<game_id>/events/stream")
class EventStream(MethodView):
    @blp.arguments(StreamQuery(), location="query")
    @blp.arguments(StreamHeaders(), location="headers")
    @blp.doc(responses={"200": {"description": "A text/event-stream of events; each `id` is "
                                "the event's version, resumable with Last-Event-ID",
                                "content": {"text/event-stream": {"schema": sse_event_schema(
                                    "the event's version", "the event's type",
                                    "the event (`EventOut`)")}}}})
    @blp.errors(400, 401, 404, 429)
    def get(self, query, headers, game_id):
        """Follow the log live as server-sent events, resuming after Last-Event-ID."""
        tablestream = ctx()
        service = tablestream.service
        # The one endpoint taking ?access_token=: EventSource cannot set headers.
        anonymous = bearer_token(from_url=True) is None
        projection = _projection(tablestream, game_id, anonymous)
        player = None if anonymous else optional_player(from_url=True)
        viewer = service.viewer_for(projection, player)
        after = headers.get("last_event_id", query.get("last_event_id"))
        after = projection.version if after is None else after
        charge_read(projection.version - after, tablestream)  # the backlog it sends first
        heartbeat = tablestream.config.sse_heartbeat_seconds
        finished = projection.status == "finished" and after >= projection.version
        views = _views(game_id, player) if query.get("views") else None
        watch = TokenWatch(tablestream.accounts, bearer_token(from_url=True),
                           player["id"] if player else None, heartbeat)
        # A stream without a token is paced: a spectator's crowd is written a game's moves
        # together, at most once a pace (service.runtime.fanout).
        pace = tablestream.config.tokenless_push_ms / 1000 if anonymous else 0.0
        stream = _stream(service, projection.game, game_id, viewer, after, projection.version,
                         watch, finished, views, projection.status == "finished", pace)
        # One of the caller's stream slots until it ends (issue 23 item 4).
        stream = hold_stream(stream)
        return Response(stream_with_context(stream), mimetype="text/event-stream",
                        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


def _projection(tablestream, game_id: str, anonymous: bool):
    """The game as a new stream needs it. A crowd of spectators arriving at once (a popular
    game, everyone reconnecting after a restart) would queue for the pool with a read each: a
    spectator joining a game this process already follows reads nothing when the cached
    projection has caught up with the live feed, and otherwise shares a read already under
    way. (Anything newer reaches them from the feed.) A signed-in caller's seat is always read
    fresh, so a seat just left or taken is never misread."""
    service = tablestream.service
    if not anonymous:
        return service.projection(game_id)
    fanout = tablestream.fanout
    live = fanout.position(("game", game_id))
    cached = service.cached_projection(game_id)
    if live is not None and cached is not None and cached.version >= live:
        return cached
    return fanout.shared(("projection", game_id), lambda: service.projection(game_id))


def _stream(service, game, game_id: str, viewer, after: int, end: int, watch: TokenWatch,
            finished: bool, views: Callable[[Batch], bytes] | None = None,
            game_over: bool = False, pace: float = 0.0) -> Iterator[bytes]:
    yield CONNECTED
    if finished:
        return
    if game_over:
        # A finished game gets no more moves (and may be archived, with no stream to block
        # on): the rest of its log, up to its last event, then the end; no shared feed.
        events = service.store.read(game_id, after + 1)
        text, _ = _sse_events(service, game, events, viewer)
        yield text + (views(Batch(events)) if views is not None and events else b"")
        return
    metrics.SSE_CONNECTIONS.inc()
    try:
        yield from end_on_outage(_follow(service, game, game_id, viewer, after, end, watch,
                                         views, pace), f"stream of game {game_id}")
    finally:
        metrics.SSE_CONNECTIONS.dec()


def _follow(service, game, game_id: str, viewer, after: int, end: int, watch: TokenWatch,
            views: Callable[[Batch], bytes] | None = None, pace: float = 0.0) -> Iterator[bytes]:
    """The caller's events after ``after`` from the process's shared feed of the game
    (service.runtime.fanout), written at most once a ``pace`` (seconds; 0: each batch as it
    comes); ``end`` is the game's version as the caller found it. Ends when the caller's token
    stops working (service.http.stream_auth)."""
    store = service.store
    batches = ctx().fanout.follow(
        ("game", game_id), after, read=lambda v: store.read(game_id, v + 1),
        wait=lambda v, block_ms: store.wait(game_id, v, block_ms),
        position_of=_version, order=int, heartbeat=watch.wake, end=end, pace=pace)
    presence = Presence(ctx().lobby, game_id) if isinstance(viewer, int) else None
    with closing(batches):
        for batch in batches:
            if watch.ended():
                yield TOKEN_ENDED
                return
            if batch is None:
                if presence is not None:
                    presence.renew()
                if watch.keep_alive_due():
                    yield KEEP_ALIVE
                continue
            watch.wrote_now()
            text, over = _rendered(service, game, batch, viewer)
            if views is not None:
                # ?views=true: the caller's picture after these events (view, pending, its legal
                # commands), so a seat learns of another's move and its own choices without a
                # GET.
                text += views(batch)
            yield text  # one write a batch: with 1,000 subscribers the writes are the cost
            if over:
                return
            if presence is not None:
                # After the push, not before: the renewal's round trip waits its turn for a
                # Redis connection, which at 1,024 games is a second behind the moves.
                presence.renew()


class Presence:
    """A seated player's open stream marks the game watched (service.app.lobby), renewed twice a
    WATCH_SECONDS, so the sweeper does not hand an idle game to bots while they are connected
    (issue 23 item 17). Best effort: a failed write costs no stream."""

    def __init__(self, lobby, game_id: str):
        self.lobby = lobby
        self.game_id = game_id
        self.renewed = float("-inf")

    def renew(self) -> None:
        now = time.monotonic()
        if now - self.renewed < WATCH_SECONDS / 2:
            return
        self.renewed = now
        try:
            self.lobby.watching(self.game_id)
        except redis.RedisError:
            log.warning("could not mark game %s watched", self.game_id, exc_info=True)


def _rendered(service, game, batch: Batch, viewer) -> tuple[bytes, bool]:
    """``batch`` as ``viewer`` may see it, as server-sent events, and whether the game's end
    was among them. Redacted and encoded once per viewer (seat, spectator, auditor) for every
    subscriber of this process, which all write the very same bytes; the key is the viewer
    itself, so no one gets another seat's rendering. A joined batch (a paced stream's) is the
    renderings of its parts."""
    texts: list[bytes] = []
    for part in batch.parts:
        text, over = part.once(("events", viewer),
                               lambda p=part: _sse_events(service, game, p.items, viewer))
        texts.append(text)
        if over:
            break
    return (texts[0] if len(texts) == 1 else b"".join(texts)), over


def _sse_events(service, game, events: list[StoredEvent], viewer) -> tuple[SharedBytes, bool]:
    """``events`` as ``viewer`` may see them, as server-sent events (UTF-8), up to the game's
    last (``seed_revealed``); whether that one was among them."""
    lines = []
    for event in events:
        # EventOut's wire form, encoded as a move's answer encodes it (service.http.wire).
        body = wire.dumps(wire.event_out(service.public_event(game, event, viewer)))
        lines.append(b"id: %d\nevent: %s\ndata: %s\n\n" % (event.version, event.type.encode(),
                                                             body))
        if event.type == "seed_revealed":
            return SharedBytes(b"".join(lines)), True  # the game is over, its end sent
    return SharedBytes(b"".join(lines)), False


def _version(event: StoredEvent) -> int:
    return event.version


def _views(game_id: str, player) -> Callable[[Batch], bytes]:
    """The caller's picture after a batch, as an SSE ``game`` event: the projection is read
    once per batch and the picture made once per viewer, for all the subscribers sharing it."""
    service = ctx().service

    def picture(joined: Batch) -> bytes:
        # A joined batch is folded part by part, as every subscriber of each part folds it; the
        # picture is the one after its last part.
        for part in joined.parts:
            projection = part.once("projection", lambda p=part: service.projection_through(
                game_id, p.items))
        last = joined.parts[-1]
        viewer = service.viewer_for(projection, player)  # a player who sat down since sees it
        # Once per viewer and language: prompt labels and sentences are in the reader's words.
        return last.once(("view", viewer, current_locale()), lambda: (
            # The same wire form as GET (times in Unix ms, seats as integers), not the raw body.
            b"event: game\ndata: "
            + wire.dumps(game_wire(game_id, player, projection)) + b"\n\n"))

    return picture
