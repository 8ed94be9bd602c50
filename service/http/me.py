"""The player's own: who they are, their games, one live stream of notices, their webhooks."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from contextlib import closing
from typing import Any

from flask import Response, request, stream_with_context, url_for
from flask.views import MethodView

from service.app.inbox import my_games, my_games_page, notice_order
from service.app.paging import MAYBE_NUMBER, NUMBER, decode_cursor, encode_cursor, page_by_key
from service.http import wire
from service.http.blueprint import Blueprint, sse_event_schema
from service.http.context import bearer_token, ctx, current_player, hold_stream
from service.http.errors import end_on_outage
from service.http.i18n import current_locale
from service.http.paging import ETAG_OF_LIST, NEXT_LINK, next_link, page_answer
from service.http.schemas import (
    DeliveryOut,
    MeStreamQuery,
    MyGame,
    MyGamesQuery,
    NoticePage,
    NoticesQuery,
    PageQuery,
    PlayerOut,
    PushDeliveryOut,
    PushSubscriptionIn,
    PushSubscriptionOut,
    TokenCreated,
    TokenIn,
    TokenOut,
    VapidKey,
    WebhookCreated,
    WebhookIn,
    WebhookOut,
    is_notice_id,
)
from service.http.stream_auth import TOKEN_ENDED, TokenWatch
from service.runtime import metrics

MY_GAME = MyGame(many=True)
# The lists as sent in a page's body (envelope=true).
DELIVERIES = DeliveryOut(many=True)
SUBSCRIPTIONS = PushSubscriptionOut(many=True)
PUSHES = PushDeliveryOut(many=True)
TOKENS = TokenOut(many=True)
# The shape of a /v1/me/games cursor by filter (service.app.inbox.my_games_page).
MY_GAMES_CURSORS = {"open": (NUMBER, str), "running": (NUMBER, str),
                    "my_turn": (bool, MAYBE_NUMBER, int, str)}

blp = Blueprint("me", __name__, url_prefix="/v1/me",
                description="Your account: games, notices, webhooks, tokens")



@blp.route("")
class Me(MethodView):
    @blp.response(200, PlayerOut)
    @blp.errors(401)
    def get(self):
        """Who you are."""
        return current_player()


@blp.route("/games")
class MyGames(MethodView):
    @blp.arguments(MyGamesQuery(), location="query")
    @blp.response(200, MyGame(many=True), headers={"ETag": ETAG_OF_LIST, "Link": NEXT_LINK})
    @blp.alt_response(304, description="Not modified since the ETag in If-None-Match")
    @blp.errors(400, 401)
    def get(self, query):
        """Your games, with your prompt and its deadline where one waits for you, a page at
        a time (`limit`, `cursor`; the next page's URL in `Link`, and in the body with
        `envelope`); an ETag for If-None-Match."""
        player = current_player()
        service = ctx().service
        if query["offset"]:  # the old way (deprecated): pages shift as games come and go
            rows, following = my_games(service, player["id"], query["filter"],
                                       query["limit"], query["offset"]), None
        else:
            shape = MY_GAMES_CURSORS.get(query["filter"], (int, NUMBER, str))
            rows, following = my_games_page(service, player["id"], query["filter"],
                                            query["limit"],
                                            decode_cursor(query.get("cursor"), shape))
        # The rows as sent (versions, prompts, deadlines) in the reader's language: any change
        # is another tag.
        tag = hashlib.sha256(wire.dumps([current_locale(), MY_GAME.dump(rows)])).hexdigest()[:32]
        headers = {"ETag": f'"{tag}"', "Vary": "Authorization"}
        if tag in request.if_none_match:  # werkzeug's ETags hold the tags unquoted
            return "", 304, {**headers, **next_link("cursor", following)}
        return page_answer(rows, MY_GAME, "cursor", following, query["envelope"], headers)


@blp.route("/events")
class MyNoticeList(MethodView):
    @blp.arguments(NoticesQuery(), location="query")
    @blp.response(200, NoticePage)
    @blp.errors(400, 401, 429)
    def get(self, query):
        """Your notices after `after`, oldest first; with `wait`, a long poll."""
        tablestream = ctx()
        player = current_player()
        inbox = tablestream.service.inbox
        after = query["after"]
        notices = inbox.read(player["id"], after, count=query["limit"])
        wait = min(query["wait"], tablestream.config.long_poll_max_seconds)
        if not notices and wait > 0:
            # The process's shared feed of the inbox, as the stream follows it (issue 26).
            batches = _feed(inbox, player["id"], after, wait)
            with closing(batches):
                batch = next(batches, None)
            notices = batch.items[:query["limit"]] if batch is not None else []
        last = notices[-1]["id"] if notices else after
        following = last if len(notices) >= query["limit"] else None
        return ({"notices": notices, "after": last, "next": following}, 200,
                next_link("after", following))


@blp.route("/events/stream")
class MyNotices(MethodView):
    @blp.arguments(MeStreamQuery(), location="query")
    @blp.doc(responses={"200": {
        "description": "A text/event-stream of notices (game_started, your_turn, undo_asked, "
                       "clock_warning, game_over) across all your games; each `id` resumes "
                       "with Last-Event-ID",
        "content": {"text/event-stream": {"schema": sse_event_schema(
            "the notice's id", "the notice's kind", "the notice (`NoticeOut`)")}}}})
    @blp.errors(400, 401, 429)
    def get(self, query):
        """Follow notices from all your games on one connection."""
        tablestream = ctx()
        player = current_player(from_url=True)  # EventSource cannot set headers
        header = request.headers.get("Last-Event-ID", "")
        after = header if is_notice_id(header) else query.get("last_event_id")
        if after is None:
            after = tablestream.service.inbox.latest(player["id"])  # from now on
        watch = TokenWatch(tablestream.accounts, bearer_token(from_url=True), player["id"],
                           tablestream.config.sse_heartbeat_seconds)
        stream = _follow(tablestream.service.inbox, player["id"], after, watch)
        stream = hold_stream(stream)  # issue 23 item 4
        return Response(stream_with_context(stream), mimetype="text/event-stream",
                        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


def _follow(inbox, player_id: str, after: str, watch: TokenWatch) -> Iterator[str | bytes]:
    yield ": connected\n\n"
    metrics.SSE_CONNECTIONS.inc()
    try:
        yield from end_on_outage(_notices(inbox, player_id, after, watch),
                                 f"notice stream of {player_id}")
    finally:
        metrics.SSE_CONNECTIONS.dec()


def _notices(inbox, player_id: str, after: str, watch: TokenWatch) -> Iterator[str | bytes]:
    """The player's notices from the process's shared feed of their inbox (service.runtime.fanout),
    until the token the stream was opened with stops working (service.http.stream_auth)."""
    batches = _feed(inbox, player_id, after, watch.wake)
    with closing(batches):
        for batch in batches:
            if watch.ended():
                yield TOKEN_ENDED
                return
            if batch is None:
                if watch.keep_alive_due():
                    yield ": keep-alive\n\n"
                continue
            watch.wrote_now()
            # A notice is addressed to one player: the text is the same for each of their
            # connections in this process, so it is made once.
            yield from batch.once("notices", lambda b=batch: [
                f"id: {n['id']}\nevent: {n['kind']}\ndata: {json.dumps(n)}\n\n"
                for n in b.items])


def _feed(inbox, player_id: str, after: str, heartbeat: float):
    """The player's notices after ``after`` in batches, None after ``heartbeat`` without any."""
    return ctx().fanout.follow(
        ("inbox", player_id), after, read=lambda last: inbox.read(player_id, last),
        wait=lambda last, block_ms: inbox.read(player_id, last, block_ms=block_ms),
        position_of=_notice_id, order=notice_order, heartbeat=heartbeat)


def _notice_id(notice: dict) -> str:
    return notice["id"]


@blp.route("/webhooks")
class Webhooks(MethodView):
    @blp.response(200, WebhookOut(many=True))
    @blp.errors(401)
    def get(self):
        """Your webhooks (their secrets are never shown again)."""
        return ctx().service.inbox.webhooks.list(current_player()["id"])

    @blp.arguments(WebhookIn())
    @blp.response(201, WebhookCreated)
    @blp.errors(400, 401)
    def post(self, body):
        """Register an HTTPS callback for your notices (every kind unless `events` says)."""
        player = current_player()
        hook = ctx().service.inbox.webhooks.register(player["id"], body["url"],
                                                     body.get("events"))
        return hook, 201, {"Location": url_for("me.Deliveries", webhook_id=hook["id"])}


@blp.route("/webhooks/<webhook_id>")
class Webhook(MethodView):
    @blp.response(204)
    @blp.errors(401, 404)
    def delete(self, webhook_id):
        """Remove a webhook; deliveries not yet made are dropped."""
        ctx().service.inbox.webhooks.delete(current_player()["id"], webhook_id)


@blp.route("/webhooks/<webhook_id>/deliveries")
class Deliveries(MethodView):
    @blp.arguments(PageQuery(), location="query")
    @blp.response(200, DeliveryOut(many=True), headers={"Link": NEXT_LINK})
    @blp.errors(400, 401, 404)
    def get(self, query, webhook_id):
        """The latest deliveries to a webhook, newest first: pending, delivered or failed."""
        deliveries = ctx().service.inbox.webhooks.deliveries(current_player()["id"], webhook_id)
        return _page(deliveries, lambda d: [-d["created"], d["id"]], query, DELIVERIES)


@blp.route("/push-subscriptions")
class PushSubscriptionList(MethodView):
    @blp.arguments(PageQuery(), location="query")
    @blp.response(200, PushSubscriptionOut(many=True), headers={"Link": NEXT_LINK})
    @blp.errors(400, 401)
    def get(self, query):
        """Your Web Push subscriptions (browsers and apps told of your notices)."""
        records = ctx().service.inbox.push.list(current_player()["id"])
        return _page(records, lambda r: [r["created"], r["id"]], query, SUBSCRIPTIONS)

    @blp.arguments(PushSubscriptionIn())
    @blp.response(201, PushSubscriptionOut)
    @blp.errors(400, 401)
    def post(self, body):
        """Subscribe a browser (its PushSubscription) to pushes of your notices."""
        player = current_player()
        record = ctx().service.inbox.push.register(
            player["id"], body["endpoint"], body["keys"]["p256dh"], body["keys"]["auth"],
            body.get("events"), current_locale())
        return record, 201, {"Location": url_for("me.PushDeliveries",
                                                 subscription_id=record["id"])}


@blp.route("/push-key")
class PushKey(MethodView):
    @blp.response(200, VapidKey)
    @blp.errors(401)
    def get(self):
        """The server's VAPID public key, to subscribe a browser with (applicationServerKey)."""
        current_player()
        return {"public_key": ctx().service.inbox.push.public_key()}


@blp.route("/push-subscriptions/<subscription_id>")
class PushSubscription(MethodView):
    @blp.response(204)
    @blp.errors(401, 404)
    def delete(self, subscription_id):
        """Remove a push subscription; pushes not yet sent are dropped."""
        ctx().service.inbox.push.delete(current_player()["id"], subscription_id)


@blp.route("/push-subscriptions/<subscription_id>/deliveries")
class PushDeliveries(MethodView):
    @blp.arguments(PageQuery(), location="query")
    @blp.response(200, PushDeliveryOut(many=True), headers={"Link": NEXT_LINK})
    @blp.errors(400, 401, 404)
    def get(self, query, subscription_id):
        """The latest pushes to a subscription, newest first: pending, delivered or failed."""
        deliveries = ctx().service.inbox.push.deliveries(current_player()["id"],
                                                         subscription_id)
        return _page(deliveries, lambda d: [-d["created"], d["id"]], query, PUSHES)


@blp.route("/tokens")
class Tokens(MethodView):
    @blp.arguments(PageQuery(), location="query")
    @blp.response(200, TokenOut(many=True), headers={"Link": NEXT_LINK})
    @blp.errors(400, 401)
    def get(self, query):
        """Your bearer tokens (names and dates; a token itself is shown only when made)."""
        tokens = ctx().accounts.tokens(current_player()["id"])  # in the order issued
        after = decode_cursor(query.get("cursor"), (NUMBER, str))
        start = 0
        if after is not None:
            ids = [token["id"] for token in tokens]
            # After the cursor's token; if it was revoked since, from its time (a token made
            # in the same instant may come again: none is skipped).
            start = ids.index(after[1]) + 1 if after[1] in ids else next(
                (i for i, token in enumerate(tokens) if token["created"] >= after[0]),
                len(tokens))
        page = tokens[start:start + query["limit"]]
        more = start + query["limit"] < len(tokens)
        following = encode_cursor([page[-1]["created"], page[-1]["id"]]) if more else None
        return page_answer(page, TOKENS, "cursor", following, query["envelope"])

    @blp.arguments(TokenIn())
    @blp.response(201, TokenCreated)
    @blp.errors(400, 401)
    def post(self, body):
        """Make another named token, e.g. one per device, optionally expiring."""
        record, token = ctx().accounts.issue_token(current_player()["id"], body["name"],
                                                   body.get("expires_in"))
        return {**record, "token": token}, 201, {"Location": url_for("me.Tokens")}


def _page(items: list[dict], key, query, schema) -> Any:
    """A page of a list held in memory (a player's deliveries, tokens), in ``key`` order."""
    page, following = page_by_key(items, key, decode_cursor(query.get("cursor"), (NUMBER, str)),
                                  query["limit"])
    return page_answer(page, schema, "cursor", following, query["envelope"])


@blp.route("/tokens/<token_id>")
class Token(MethodView):
    @blp.response(204)
    @blp.errors(401, 404)
    def delete(self, token_id):
        """Revoke a token (the one you call with, too)."""
        ctx().accounts.revoke_token(current_player()["id"], token_id)


@blp.route("/tokens/<token_id>/rotate")
class TokenRotation(MethodView):
    @blp.response(201, TokenCreated)
    @blp.errors(401, 404)
    def post(self, token_id):
        """Replace a token by a new one with the same name and lifetime; the old one stops."""
        record, token = ctx().accounts.rotate_token(current_player()["id"], token_id)
        return {**record, "token": token}, 201, {"Location": url_for("me.Tokens")}
