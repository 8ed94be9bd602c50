"""Request and response schemas of the HTTP API (the OpenAPI document is built from these)."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from games import REGISTRY, UNLISTED

# The hosted games by their stable names, for the OpenAPI document (the catalog has the details).
LISTED_GAMES = ", ".join(sorted(name for name in REGISTRY if name not in UNLISTED))

class PlayerCreate(ma.Schema):
    name = fields.String(required=True, validate=validate.Length(min=1, max=40))


class PlayerCreated(ma.Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    roles = fields.List(fields.String())
    token = fields.String(required=True, metadata={"description": "Bearer token, shown once"})


class SeatSpec(ma.Schema):
    kind = fields.String(required=True, validate=validate.OneOf(["human", "bot"]))
    level = fields.String(metadata={"description": "Bot level (bots only), see the catalog"})


class GameCreate(ma.Schema):
    game = fields.String(required=True, metadata={
        "description": f"Game type ({LISTED_GAMES}); see the catalog for seats and options"})
    seats = fields.List(fields.Nested(SeatSpec), required=True,
                        validate=validate.Length(min=1, max=16))
    options = fields.Dict(load_default=dict)
    join = fields.Boolean(load_default=True,
                          metadata={"description": "Take the first human seat yourself"})


class JoinRequest(ma.Schema):
    seat = fields.Integer(validate=validate.Range(min=0),
                          metadata={"description": "A free human seat; default the first"})


class SeatOut(ma.Schema):
    seat = fields.Integer()
    kind = fields.String()
    player = fields.String(allow_none=True)
    name = fields.String(allow_none=True)
    level = fields.String(allow_none=True)
    bot = fields.String(allow_none=True, metadata={"description": "Bot level playing the seat"})
    timeouts = fields.Integer()


class PromptOut(ma.Schema):
    kinds = fields.List(fields.String())
    since = fields.Integer(metadata={"description": "Version at which this decision opened"})
    clock = fields.String()
    label = fields.String()
    deadline = fields.Float(allow_none=True, metadata={"description": "Unix time, or null"})


class GameOut(ma.Schema):
    id = fields.String()
    game = fields.String()
    version = fields.Integer()
    status = fields.String(metadata={"description": "open, running or finished"})
    options = fields.Dict()
    seats = fields.List(fields.Nested(SeatOut))
    you = fields.Integer(allow_none=True, metadata={"description": "Your seat, if any"})
    view = fields.Dict(allow_none=True, metadata={"description": "What you may see"})
    pending = fields.Dict(keys=fields.String(), values=fields.Nested(PromptOut))
    legal_commands = fields.List(fields.Dict(), metadata={
        "description": "Commands you may POST as they are (add expected_version)"})
    result = fields.Dict(allow_none=True)
    undo = fields.Dict(allow_none=True)


class GameSummary(ma.Schema):
    id = fields.String()
    game = fields.String()
    status = fields.String()
    seats = fields.Integer()
    free_seats = fields.Integer()
    bots = fields.Integer()
    created_at = fields.Integer(allow_none=True)
    version = fields.Integer()


class LobbyQuery(ma.Schema):
    status = fields.String(validate=validate.OneOf(["open", "running", "finished"]))
    game = fields.String()
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=500))


class CatalogEntry(ma.Schema):
    name = fields.String()
    title = fields.String()
    min_seats = fields.Integer()
    max_seats = fields.Integer()
    rules_version = fields.String()
    bot_levels = fields.List(fields.String())
    options = fields.Dict()
    commands = fields.Dict()


class CommandIn(ma.Schema):
    """A command: its ``type``, its own fields, and the version it was decided against."""

    class Meta:
        unknown = ma.INCLUDE

    type = fields.String(required=True)
    expected_version = fields.Integer(required=True, validate=validate.Range(min=0))
    command_id = fields.String(validate=validate.Length(min=1, max=128), metadata={
        "description": "Idempotency key: a retry with the same id returns the first answer"})


class EventOut(ma.Schema):
    version = fields.Integer()
    type = fields.String()
    seat = fields.String()
    at = fields.Integer()
    data = fields.Dict(allow_none=True, metadata={"description": "Null when hidden from you"})
    redacted = fields.Boolean()
    command = fields.Dict(metadata={"description": "The command as sent (to its sender only)"})


class CommandOut(ma.Schema):
    version = fields.Integer()
    events = fields.List(fields.Nested(EventOut))


class EventsQuery(ma.Schema):
    from_ = fields.Integer(data_key="from", load_default=1, validate=validate.Range(min=1))
    to = fields.Integer(validate=validate.Range(min=1))
    limit = fields.Integer(load_default=200, validate=validate.Range(min=1, max=1000))


class EventPage(ma.Schema):
    version = fields.Integer(metadata={"description": "The game's current version"})
    events = fields.List(fields.Nested(EventOut))
    next = fields.Integer(allow_none=True, metadata={"description": "`from` of the next page"})


class StreamQuery(ma.Schema):
    access_token = fields.String(metadata={
        "description": "Bearer token for clients that cannot set headers (EventSource)"})
    last_event_id = fields.Integer(validate=validate.Range(min=0))


class ReplayQuery(ma.Schema):
    version = fields.Integer(required=True, validate=validate.Range(min=1))


class UndoRequest(ma.Schema):
    to_version = fields.Integer(validate=validate.Range(min=1), metadata={
        "description": "Take back to this version; default: just before your last move"})


class UndoAnswer(ma.Schema):
    accept = fields.Boolean(required=True)


class DisputeIn(ma.Schema):
    version = fields.Integer(required=True, validate=validate.Range(min=1))
    reason = fields.String(required=True, validate=validate.Length(min=1, max=500))


class ExplainOut(ma.Schema):
    version = fields.Integer()
    batch = fields.List(fields.Integer(), metadata={
        "description": "First and last version of the command's events"})
    seat = fields.Integer(allow_none=True, metadata={"description": "Who sent the command"})
    command = fields.Dict(allow_none=True, metadata={
        "description": "The command as sent (its type only, to other seats)"})
    before = fields.Dict(allow_none=True, metadata={
        "description": "The state before it, as you may see it"})
    checks = fields.List(fields.String(), metadata={
        "description": "Why it was legal: the checks the rules made, in words"})
    events = fields.List(fields.Nested(EventOut))


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


class MeStreamQuery(ma.Schema):
    access_token = fields.String(metadata={
        "description": "Bearer token for clients that cannot set headers (EventSource)"})
    last_event_id = fields.String(validate=validate.Regexp(r"^\d{1,20}-\d{1,20}$"), metadata={
        "description": "Resume after this notice id (or send the Last-Event-ID header)"})


class WebhookIn(ma.Schema):
    url = fields.String(required=True, validate=validate.Length(min=8, max=2000), metadata={
        "description": "https:// URL that receives the notices"})
    events = fields.List(fields.String(validate=validate.OneOf(
        ["your_turn", "undo_asked", "game_over"])), metadata={
        "description": "Notice kinds to send (default: all three)"})


class WebhookOut(ma.Schema):
    id = fields.String(required=True)
    url = fields.String(required=True)
    events = fields.List(fields.String(), required=True)
    created = fields.Integer(required=True)


class WebhookCreated(WebhookOut):
    secret = fields.String(required=True, metadata={
        "description": "HMAC-SHA256 key for X-Tablestream-Signature; shown only here"})


class DeliveryOut(ma.Schema):
    id = fields.String(required=True)
    webhook = fields.String(required=True)
    kind = fields.String(required=True)
    status = fields.String(required=True, metadata={"description": "pending, delivered or failed"})
    attempts = fields.Integer(required=True)
    created = fields.Float(required=True)
    last_status = fields.Integer(allow_none=True, metadata={"description": "The HTTP status"})
    last_error = fields.String(allow_none=True)
    next_attempt = fields.Float(metadata={"description": "Unix time of the next retry"})
    notice = fields.Dict(required=True)


class TokenIn(ma.Schema):
    name = fields.String(required=True, validate=validate.Length(min=1, max=40), metadata={
        "description": "What the token is for, e.g. the device"})
    expires_in = fields.Integer(validate=validate.Range(min=60, max=366 * 86400), metadata={
        "description": "Seconds until it stops working; default: never"})


class TokenOut(ma.Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    created = fields.Integer(required=True, metadata={"description": "Unix time"})
    expires_at = fields.Integer(allow_none=True, required=True, metadata={
        "description": "Unix time, or null for a token that does not expire"})


class TokenCreated(TokenOut):
    token = fields.String(required=True, metadata={"description": "Bearer token, shown once"})
