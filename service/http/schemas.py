"""Request and response schemas of the HTTP API (the OpenAPI document is built from these)."""

from __future__ import annotations

import re
from typing import Any

import marshmallow as ma
from marshmallow import fields, validate

from games import REGISTRY, UNLISTED
from service.app.inbox import KINDS as NOTICE_KINDS
from service.app.push import PUSHED as PUSH_KINDS

# The hosted games by their stable names, for the OpenAPI document (the catalog has the details).
LISTED_GAMES = ", ".join(sorted(name for name in REGISTRY if name not in UNLISTED))

# Versions are stream entry ids in Redis: larger numbers name no version and only make errors.
MAX_VERSION = 2**53 - 1
# A notice id is a Redis stream id, two 64-bit numbers: 19 digits always fit, 20 may not (Redis
# refuses 0-20000000000000000000 with an error, which was a 500). [0-9], not \d, which would
# also match other scripts' digits.
NOTICE_ID = "[0-9]{1,19}-[0-9]{1,19}"
# A long poll (issue 26) waits at most this long (service.runtime.config lowers it, never
# raises it).
LONG_POLL_SECONDS = 25
LONG_POLL_WAIT = ("Long poll: when nothing is there yet, wait up to this many seconds for it "
                  "(an answer comes at once when there is something; 0: never wait)")

ENVELOPE = ("true: answer `{items, next}` instead of the bare list, `next` being the next "
            "page's `cursor` (null on the last page); the `Link` header is sent either way")

# One unit for every time on the wire: Unix milliseconds (integers), as the event log stores them.
# One type for a seat: an integer (null where the platform, not a seat, acted).


class UnixMillis(fields.Integer):
    """A time kept in seconds inside the service, sent as whole Unix milliseconds."""

    def _serialize(self, value: Any, attr: str | None, obj: Any, **kwargs: Any) -> Any:
        return None if value is None else round(float(value) * 1000)


class SeatNumber(fields.Integer):
    """A seat as stored in the envelope ("0", "1" ... or "system"), sent as an integer or null."""

    def _serialize(self, value: Any, attr: str | None, obj: Any, **kwargs: Any) -> Any:
        return int(value) if isinstance(value, int) or str(value).isdigit() else None


class PlayerCreate(ma.Schema):
    name = fields.String(required=True, validate=validate.Length(min=1, max=40))


class PlayerCreated(ma.Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    roles = fields.List(fields.String(), required=True)
    token = fields.String(required=True, metadata={"description": "Bearer token, shown once"})


class SeatSpec(ma.Schema):
    kind = fields.String(required=True, validate=validate.OneOf(["human", "bot"]))
    level = fields.String(metadata={"description": "Bot level (bots only), see the catalog"})
    think_ms = fields.Integer(validate=validate.Range(min=10, max=5000), metadata={
        "description": "An expert bot's think time per decision in ms (default 250)"})


class GameCreate(ma.Schema):
    game = fields.String(required=True, metadata={
        "description": f"Game type ({LISTED_GAMES}); see the catalog for seats and options"})
    seats = fields.List(fields.Nested(SeatSpec), required=True,
                        validate=validate.Length(min=1, max=16))
    options = fields.Dict(load_default=dict)
    join = fields.Boolean(load_default=True,
                          metadata={"description": "Take the first human seat yourself"})
    rated = fields.Boolean(load_default=False, metadata={
        "description": "Rated (the result changes the players' ratings) or casual"})


class JoinRequest(ma.Schema):
    seat = fields.Integer(validate=validate.Range(min=0),
                          metadata={"description": "A free human seat; default the first"})


class SeatOut(ma.Schema):
    seat = fields.Integer(required=True)
    kind = fields.String(required=True)
    player = fields.String(allow_none=True, required=True)
    name = fields.String(allow_none=True, required=True)
    level = fields.String(allow_none=True, required=True)
    bot = fields.String(required=True, allow_none=True, metadata={
        "description": "Bot level playing the seat"})
    timeouts = fields.Integer(required=True)


class PromptOut(ma.Schema):
    kinds = fields.List(fields.String(), required=True)
    since = fields.Integer(required=True, metadata={
        "description": "Version at which this decision opened"})
    clock = fields.String(required=True)
    label = fields.String(required=True)
    deadline = UnixMillis(required=True, allow_none=True, metadata={
        "description": "When this seat's clock runs out (Unix ms), or null without a clock"})


# The shape of a takeback request in the document (issue 26: typed for generated clients;
# seats are integers). A game's view and result are typed by the game (contract._typed_games).


def _seats(description: str = "") -> dict[str, Any]:
    """A list of seats (a new dict each time: the document is YAML, and a shared one would
    come out as an anchor and aliases)."""
    return {"type": "array", "items": {"type": "integer", "minimum": 0},
            **({"description": description} if description else {})}


UNDO_SCHEMA = {
    "description": "The takeback request waiting for answers, or null",
    "properties": {
        "by": {"type": "integer", "description": "The seat that asked"},
        "to_version": {"type": "integer", "description": "The version it would go back to"},
        "at_version": {"type": "integer", "description": "The version it was asked at"},
        "at": {"type": "integer", "description": "When it was asked (Unix ms)"},
        "waiting": _seats("The seats yet to answer"),
        "accepted": _seats("The seats that agreed")},
    "required": ["by", "to_version", "waiting"], "additionalProperties": True}


class GameOut(ma.Schema):
    id = fields.String(required=True)
    game = fields.String(required=True)
    version = fields.Integer(required=True)
    status = fields.String(metadata={"description": "open, running or finished"}, required=True)
    rated = fields.Boolean(required=True, metadata={
        "description": "Whether the game counts for ratings (chosen at creation)"})
    options = fields.Dict(required=True)
    seats = fields.List(fields.Nested(SeatOut), required=True)
    you = fields.Integer(required=True, allow_none=True, metadata={
        "description": "Your seat, if any"})
    view = fields.Dict(allow_none=True, metadata={"description": "What you may see"}, required=True)
    pending = fields.Dict(keys=fields.String(), values=fields.Nested(PromptOut), required=True,
                          metadata={"description": "Who must act now: each pending seat's "
                                                   "prompt, keyed by the seat number (\"0\", "
                                                   "\"1\" ...: JSON keys are strings)"})
    legal_commands = fields.List(fields.Dict(), required=True, metadata={
        "description": "Commands you may POST as they are (each carries expected_version)"})
    result = fields.Dict(allow_none=True, required=True, metadata={
        "description": "Null while the game runs; at the end who won, each seat's score and "
                       "the ranking (seats tied share a place), plus what the game adds"})
    undo = fields.Dict(allow_none=True, required=True, metadata=UNDO_SCHEMA)


class GameSummary(ma.Schema):
    id = fields.String(required=True)
    game = fields.String(required=True)
    status = fields.String(required=True)
    seats = fields.Integer(required=True)
    free_seats = fields.Integer(required=True)
    bots = fields.Integer(required=True)
    created_at = fields.Integer(allow_none=True, required=True)
    version = fields.Integer(required=True)


class LobbyQuery(ma.Schema):
    status = fields.String(validate=validate.OneOf(["open", "running", "finished"]), metadata={
        "description": "Without it: open and running games"})
    game = fields.String()
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=500))
    offset = fields.Integer(load_default=0, validate=validate.Range(min=0, max=100_000),
                            metadata={"description": "Deprecated (pages shift as games come "
                                                     "and go): use `cursor`"})
    cursor = fields.String(validate=validate.Length(max=500), metadata={
        "description": "The `next` cursor of the page before (see the `Link` header)"})
    envelope = fields.Boolean(load_default=False, metadata={"description": ENVELOPE})


class CatalogEntry(ma.Schema):
    name = fields.String(required=True)
    title = fields.String(required=True)
    min_seats = fields.Integer(required=True)
    max_seats = fields.Integer(required=True)
    rules_version = fields.String(required=True)
    bot_levels = fields.List(fields.String(), required=True)
    options = fields.Dict(required=True)
    commands = fields.Dict(required=True)


class CommandIn(ma.Schema):
    """A command: its ``type``, its own fields, and the version it was decided against."""

    class Meta:
        unknown = ma.INCLUDE

    type = fields.String(required=True)
    expected_version = fields.Integer(required=True, validate=validate.Range(min=0))
    command_id = fields.String(validate=validate.Length(min=1, max=128), metadata={
        "description": "Idempotency key, yours alone (no other player's or machine's id meets "
                       "it): a retry with the same id and command returns the first answer; "
                       "the same id with another command is 422 idempotency_key_reused"})

    def load(self, data: Any, *, many: bool | None = None, partial: Any = None,
             unknown: str | None = None) -> Any:
        """A well-formed command as it is, unchecked field by field (every move comes here);
        anything else (a string version, a bad id, a missing field) through the schema, which
        gives the same result for the well-formed ones and the usual 400 for the rest."""
        if many is None and not self.many and partial is None and _plain_command(data):
            return dict(data)
        return super().load(data, many=many, partial=partial, unknown=unknown)


def _plain_command(data: Any) -> bool:
    """``data`` is what CommandIn loads unchanged: a string type, a whole non-negative
    expected_version, a command_id of 1 to 128 characters if any (bool is not int here)."""
    if type(data) is not dict or type(data.get("type")) is not str:
        return False
    version = data.get("expected_version")
    if type(version) is not int or version < 0:
        return False
    command_id = data.get("command_id", "")
    return "command_id" not in data or (type(command_id) is str and 1 <= len(command_id) <= 128)


class EventOut(ma.Schema):
    version = fields.Integer(required=True)
    type = fields.String(required=True)
    seat = SeatNumber(required=True, allow_none=True, metadata={
        "description": "The seat that acted, or null for the platform (clocks, undo, start)"})
    at = fields.Integer(required=True, metadata={"description": "When it was stored (Unix ms)"})
    data = fields.Dict(required=True, allow_none=True, metadata={
        "description": "Null when hidden from you"})
    redacted = fields.Boolean()
    command = fields.Dict(metadata={"description": "The command as sent (to its sender only)"})


class CommandOut(ma.Schema):
    version = fields.Integer(required=True)
    events = fields.List(fields.Nested(EventOut), required=True)
    game = fields.Nested(GameOut, required=True, metadata={
        "description": "The game as you see it after your move (view, pending, your legal "
                       "commands): no GET needed before the next one"})


class EventsQuery(ma.Schema):
    from_ = fields.Integer(data_key="from", load_default=1, validate=validate.Range(min=1))
    after = fields.Integer(validate=validate.Range(min=0, max=MAX_VERSION), metadata={
        "description": "Events after this version (instead of `from`): the `version` of the "
                       "last answer"})
    to = fields.Integer(validate=validate.Range(min=1))
    limit = fields.Integer(load_default=200, validate=validate.Range(min=1, max=1000))
    wait = fields.Integer(load_default=0, validate=validate.Range(min=0, max=LONG_POLL_SECONDS),
                          metadata={"description": LONG_POLL_WAIT})


class EventPage(ma.Schema):
    game = fields.String(required=True, metadata={"description": "The game's type"})
    version = fields.Integer(metadata={"description": "The game's current version"}, required=True)
    events = fields.List(fields.Nested(EventOut), required=True)
    next = fields.Integer(required=True, allow_none=True, metadata={
        "description": "`from` of the next page"})


class StreamQuery(ma.Schema):
    access_token = fields.String(metadata={
        "description": "Bearer token for clients that cannot set headers (EventSource)"})
    last_event_id = fields.Integer(validate=validate.Range(min=0, max=MAX_VERSION))
    views = fields.Boolean(load_default=False, metadata={
        "description": "After each batch of events, also send an event `game`: your picture "
                       "of the game (view, pending, legal commands), as GET would give it"})


class StreamHeaders(ma.Schema):
    """EventSource resends the last ``id`` it saw as Last-Event-ID when it reconnects."""

    last_event_id = fields.Integer(data_key="Last-Event-ID",
                                   validate=validate.Range(min=0, max=MAX_VERSION), metadata={
                                       "description": "Resume after this version (wins over "
                                                      "the last_event_id query parameter)"})


class ReplayQuery(ma.Schema):
    version = fields.Integer(required=True, validate=validate.Range(min=1))


class UndoRequest(ma.Schema):
    to_version = fields.Integer(validate=validate.Range(min=1), metadata={
        "description": "Take back to this version; default: just before your last move"})


class UndoCheckOut(ma.Schema):
    possible = fields.Boolean(required=True, metadata={
        "description": "Whether POST .../undo would be taken now"})
    to_version = fields.Integer(required=True, allow_none=True, metadata={
        "description": "The version the takeback would go back to"})
    waiting = fields.List(fields.Integer(), required=True, metadata={
        "description": "Seats that must accept it; empty: granted at once (bots agree)"})
    code = fields.String(required=True, allow_none=True, metadata={
        "description": "Why not, as the problem code POST .../undo would answer with"})
    detail = fields.String(required=True, allow_none=True, metadata={
        "description": "Why not, in words"})


class UndoAnswer(ma.Schema):
    accept = fields.Boolean(required=True)


class DisputeIn(ma.Schema):
    version = fields.Integer(required=True, validate=validate.Range(min=1))
    reason = fields.String(required=True, validate=validate.Length(min=1, max=500))


class ExplainOut(ma.Schema):
    version = fields.Integer(required=True)
    batch = fields.List(fields.Integer(), metadata={
        "description": "First and last version of the command's events"}, required=True)
    seat = fields.Integer(required=True, allow_none=True, metadata={
        "description": "Who sent the command"})
    command = fields.Dict(allow_none=True, metadata={
        "description": "The command as sent (its type only, to other seats)"}, required=True)
    before = fields.Dict(allow_none=True, metadata={
        "description": "The state before it, as you may see it"}, required=True)
    checks = fields.List(fields.String(), metadata={
        "description": "Why it was legal: the checks the rules made, in words"}, required=True)
    events = fields.List(fields.Nested(EventOut), required=True)


class AuditOut(ma.Schema):
    """A self-contained transcript: check it offline with `tablestream audit verify FILE`."""

    class Meta:
        unknown = ma.INCLUDE

    format = fields.String()
    game_id = fields.String()
    game = fields.String()
    rules_version = fields.String()
    options = fields.Dict()
    seats = fields.List(fields.Dict())
    seed = fields.String(allow_none=True)
    seed_sha256 = fields.String()
    result = fields.Dict(allow_none=True)
    events = fields.List(fields.Dict(), metadata={
        "description": "Every event with its envelope and hash chain; commands as sent"})
    commands = fields.List(fields.Dict())


class PlayerOut(ma.Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    roles = fields.List(fields.String(), required=True)


class MyGamesQuery(ma.Schema):
    filter = fields.String(load_default="all", validate=validate.OneOf(
        ["all", "open", "running", "my_turn", "finished"]), metadata={
        "description": "my_turn: games waiting for you, the soonest deadline first"})
    limit = fields.Integer(load_default=100, validate=validate.Range(min=1, max=500))
    offset = fields.Integer(load_default=0, validate=validate.Range(min=0, max=100_000),
                            metadata={"description": "Deprecated (pages shift as games come "
                                                     "and go): use `cursor`"})
    cursor = fields.String(validate=validate.Length(max=500), metadata={
        "description": "The `next` cursor of the page before (see the `Link` header)"})
    envelope = fields.Boolean(load_default=False, metadata={"description": ENVELOPE})


class PageQuery(ma.Schema):
    limit = fields.Integer(load_default=100, validate=validate.Range(min=1, max=500))
    cursor = fields.String(validate=validate.Length(max=500), metadata={
        "description": "The `next` cursor of the page before (see the `Link` header)"})
    envelope = fields.Boolean(load_default=False, metadata={"description": ENVELOPE})


class MyGame(ma.Schema):
    id = fields.String(required=True)
    game = fields.String(required=True)
    status = fields.String(required=True)
    version = fields.Integer(required=True)
    seat = fields.Integer(required=True, metadata={"description": "Your seat"})
    your_turn = fields.Boolean(required=True)
    pending = fields.Nested(PromptOut, allow_none=True, required=True, metadata={
        "description": "Your open decision, with its deadline; null when nothing waits for you"})
    created_at = fields.Integer(allow_none=True)
    result = fields.Dict(allow_none=True)


def is_notice_id(value: str) -> bool:
    """A Redis stream id small enough to be valid (19 digits a part stay below 2^64)."""
    return re.fullmatch(NOTICE_ID, value) is not None


class MeStreamQuery(ma.Schema):
    access_token = fields.String(metadata={
        "description": "Bearer token for clients that cannot set headers (EventSource)"})
    last_event_id = fields.String(validate=validate.Regexp(f"^{NOTICE_ID}$"), metadata={
        "description": "Resume after this notice id (or send the Last-Event-ID header)"})


class NoticesQuery(ma.Schema):
    after = fields.String(load_default="0-0", validate=validate.Regexp(f"^{NOTICE_ID}$"),
                          metadata={"description": "Notices after this id: the `after` of the "
                                                   "last answer (default: the oldest kept)"})
    limit = fields.Integer(load_default=100, validate=validate.Range(min=1, max=1000))
    wait = fields.Integer(load_default=0, validate=validate.Range(min=0, max=LONG_POLL_SECONDS),
                          metadata={"description": LONG_POLL_WAIT})


class NoticeOut(ma.Schema):
    """One notice (service/app/inbox.py): which fields it has depends on its kind."""

    id = fields.String(required=True, metadata={"description": "Resume after it with `after` "
                                                               "or Last-Event-ID"})
    kind = fields.String(required=True, validate=validate.OneOf(NOTICE_KINDS))
    game_id = fields.String(required=True)
    game = fields.String(required=True)
    version = fields.Integer(required=True, metadata={"description": "The game's version"})
    seat = fields.Integer(required=True, metadata={"description": "Your seat"})
    since = fields.Integer(metadata={"description": "your_turn, clock_warning: the version "
                                                    "that opened the decision"})
    deadline = fields.Integer(allow_none=True, metadata={
        "description": "your_turn, clock_warning: when the clock runs out (Unix ms)"})
    label = fields.String(metadata={"description": "your_turn: the prompt"})
    kinds = fields.List(fields.String(), metadata={
        "description": "your_turn: the command types you may send"})
    by = fields.Integer(allow_none=True, metadata={"description": "undo_asked: who asks"})
    to_version = fields.Integer(allow_none=True, metadata={
        "description": "undo_asked: the version the game would go back to"})
    won = fields.Boolean(metadata={"description": "game_over: whether you won"})
    disputed = fields.Integer(metadata={"description": "dispute_ruled: the version disputed"})


class NoticePage(ma.Schema):
    notices = fields.List(fields.Nested(NoticeOut), required=True)
    after = fields.String(required=True, metadata={
        "description": "Send as `after` next time (the last notice's id, or the `after` you "
                       "sent when there was none)"})
    next = fields.String(required=True, allow_none=True, metadata={
        "description": "`after` of the next page when this one is full (more may follow; "
                       "also the `Link` header), else null"})


class PushKeys(ma.Schema):
    p256dh = fields.String(required=True, validate=validate.Length(min=40, max=200), metadata={
        "description": "The browser's P-256 public key (base64url)"})
    auth = fields.String(required=True, validate=validate.Length(min=16, max=64), metadata={
        "description": "The browser's auth secret (base64url)"})


class PushSubscriptionIn(ma.Schema):
    """A browser's ``PushSubscription.toJSON()``, and which notices to push."""

    endpoint = fields.String(required=True, validate=validate.Length(min=8, max=2000),
                             metadata={"description": "The push service's https:// URL"})
    keys = fields.Nested(PushKeys, required=True)
    events = fields.List(fields.String(validate=validate.OneOf(PUSH_KINDS)), metadata={
        "description": "Notice kinds to push (default: all of them)"})


class PushSubscriptionOut(ma.Schema):
    id = fields.String(required=True)
    endpoint = fields.String(required=True)
    events = fields.List(fields.String(), required=True)
    created = UnixMillis(required=True, metadata={"description": "Unix ms"})


class PushDeliveryOut(ma.Schema):
    id = fields.String(required=True)
    subscription = fields.String(required=True)
    kind = fields.String(required=True)
    status = fields.String(required=True, metadata={"description": "pending, delivered or failed"})
    attempts = fields.Integer(required=True)
    created = UnixMillis(required=True, metadata={"description": "Unix ms"})
    last_status = fields.Integer(required=True, allow_none=True, metadata={
        "description": "The push service's HTTP status at the last attempt"})
    last_error = fields.String(required=True, allow_none=True)
    next_attempt = UnixMillis(metadata={"description": "When the next retry is due (Unix ms)"})


class VapidKey(ma.Schema):
    public_key = fields.String(required=True, metadata={
        "description": "The server's VAPID public key: `applicationServerKey` for "
                       "`pushManager.subscribe`"})


class WebhookIn(ma.Schema):
    url = fields.String(required=True, validate=validate.Length(min=8, max=2000), metadata={
        "description": "https:// URL that receives the notices"})
    events = fields.List(fields.String(validate=validate.OneOf(NOTICE_KINDS)), metadata={
        "description": "Notice kinds to send (default: all of them)"})


class WebhookOut(ma.Schema):
    id = fields.String(required=True)
    url = fields.String(required=True)
    events = fields.List(fields.String(), required=True)
    created = UnixMillis(required=True, metadata={"description": "Unix ms"})


class WebhookCreated(WebhookOut):
    secret = fields.String(required=True, metadata={
        "description": "HMAC-SHA256 key for X-Tablestream-Signature; shown only here"})


class DeliveryOut(ma.Schema):
    id = fields.String(required=True)
    webhook = fields.String(required=True)
    kind = fields.String(required=True)
    status = fields.String(required=True, metadata={"description": "pending, delivered or failed"})
    attempts = fields.Integer(required=True)
    created = UnixMillis(required=True, metadata={"description": "Unix ms"})
    last_status = fields.Integer(required=True, allow_none=True, metadata={
        "description": "The receiver's HTTP status at the last attempt"})
    last_error = fields.String(required=True, allow_none=True)
    next_attempt = UnixMillis(metadata={"description": "When the next retry is due (Unix ms)"})
    notice = fields.Dict(required=True)


class TokenIn(ma.Schema):
    name = fields.String(required=True, validate=validate.Length(min=1, max=40), metadata={
        "description": "What the token is for, e.g. the device"})
    expires_in = fields.Integer(validate=validate.Range(min=60, max=366 * 86400), metadata={
        "description": "Seconds until it stops working; default: never"})


class TokenOut(ma.Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    created = UnixMillis(required=True, metadata={"description": "Unix ms"})
    expires_at = UnixMillis(allow_none=True, required=True, metadata={
        "description": "Unix ms, or null for a token that does not expire"})


class TokenCreated(TokenOut):
    token = fields.String(required=True, metadata={"description": "Bearer token, shown once"})
