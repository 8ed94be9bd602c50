"""Profiles and leaderboards (issue 25): a player's ratings, record and recent games by their
handle, and each game's board of ratings, a page at a time."""

from __future__ import annotations

import base64
import binascii
import json

import marshmallow as ma
from flask.views import MethodView
from marshmallow import fields, validate

from games import REGISTRY, UNLISTED
from service.app.errors import BadRequest, NotFound
from service.http.blueprint import Blueprint
from service.http.context import ctx
from service.http.schemas import GameSummary

blp = Blueprint("profiles", __name__, url_prefix="/v1",
                description="Profiles, ratings and leaderboards")

RECENT_GAMES = 10


class RatingPoint(ma.Schema):
    game = fields.String(required=True, metadata={"description": "The game that moved it"})
    at = fields.Integer(required=True, metadata={"description": "When it finished (Unix ms)"})
    mu = fields.Float(required=True)
    sigma = fields.Float(required=True)
    ordinal = fields.Float(required=True)


class RecordOut(ma.Schema):
    games = fields.Integer(required=True)
    wins = fields.Integer(required=True)
    losses = fields.Integer(required=True)
    draws = fields.Integer(required=True)


class RatingOut(RecordOut):
    game = fields.String(required=True, metadata={"description": "The game title's name"})
    mu = fields.Float(required=True, metadata={"description": "Estimated skill (Weng-Lin)"})
    sigma = fields.Float(required=True, metadata={"description": "Its deviation"})
    ordinal = fields.Float(required=True, metadata={
        "description": "mu - 3 sigma: what the leaderboard sorts by"})
    history = fields.List(fields.Nested(RatingPoint), required=True, metadata={
        "description": "The latest points, oldest first"})


class ProfileOut(ma.Schema):
    id = fields.String(required=True)
    handle = fields.String(required=True)
    name = fields.String(required=True)
    ratings = fields.List(fields.Nested(RatingOut), required=True)
    record = fields.Nested(RecordOut, required=True, metadata={
        "description": "Rated games over every title"})
    recent_games = fields.List(fields.Nested(GameSummary), required=True, metadata={
        "description": "The latest finished games, rated or not"})


class BoardQuery(ma.Schema):
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=100))
    cursor = fields.String(validate=validate.Length(max=200), metadata={
        "description": "The `next` of the page before"})


class BoardEntry(ma.Schema):
    handle = fields.String(required=True, allow_none=True)
    name = fields.String(required=True)
    mu = fields.Float(required=True)
    sigma = fields.Float(required=True)
    ordinal = fields.Float(required=True)
    games = fields.Integer(required=True)


class BoardOut(ma.Schema):
    game = fields.String(required=True)
    entries = fields.List(fields.Nested(BoardEntry), required=True)
    next = fields.String(required=True, allow_none=True, metadata={
        "description": "The cursor of the next page, or null at the end"})


def rated_titles() -> list[str]:
    return sorted(name for name in REGISTRY if name not in UNLISTED)


@blp.route("/players/<handle>")
class Profile(MethodView):
    @blp.response(200, ProfileOut)
    @blp.errors(404)
    def get(self, handle):
        """A player's profile: ratings per game with their deviation, record, recent games."""
        tablestream = ctx()
        player_id = tablestream.auth.player_of(handle)
        if player_id is None:
            raise NotFound("player_not_found", "No account has that handle.")
        ratings = tablestream.ratings.of_player(player_id, sorted(REGISTRY))
        record = {k: sum(r[k] for r in ratings) for k in ("games", "wins", "losses", "draws")}
        lobby = tablestream.lobby
        ids = lobby.games_of(player_id, "finished", 0, RECENT_GAMES)
        rows = lobby.rows(ids)
        return {"id": player_id, "handle": tablestream.auth.handle_of(player_id),
                "name": tablestream.accounts.names([player_id])[player_id],
                "ratings": ratings, "record": record,
                "recent_games": [rows[i] for i in ids if i in rows]}


@blp.route("/leaderboards/<game>")
class Leaderboard(MethodView):
    @blp.arguments(BoardQuery(), location="query")
    @blp.response(200, BoardOut)
    @blp.errors(400, 404)
    def get(self, query, game):
        """A game's leaderboard, best first, a page at a time (pass `next` as `cursor`)."""
        if game not in REGISTRY or game in UNLISTED:
            raise NotFound("unknown_game_type", "No game named {game!r} is hosted.",
                                                params={"game": game})
        tablestream = ctx()
        after = _cursor(query["cursor"]) if query.get("cursor") else None
        limit = query["limit"]
        page = tablestream.ratings.board(game, limit + 1, after)
        more, page = len(page) > limit, page[:limit]
        ids = [player for player, _ in page]
        ratings = {r["player"]: r for r in tablestream.ratings.records(game, ids)}
        names = tablestream.accounts.names(ids)
        entries = [{"handle": tablestream.auth.handle_of(p), "name": names[p], **ratings[p]}
                   for p in ids if p in ratings]
        last = page[-1] if page else None
        return {"game": game, "entries": entries,
                "next": _encode(last) if more and last else None}


def _encode(position: tuple[str, float]) -> str:
    player, score = position
    raw = json.dumps([score, player]).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _cursor(text: str) -> tuple[float, str]:
    try:
        score, player = json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
        if not isinstance(player, str) or isinstance(score, bool):
            raise ValueError
        return float(score), player
    except (ValueError, TypeError, binascii.Error, UnicodeDecodeError):
        raise BadRequest("invalid_cursor", "The cursor is not one this API gave.") from None
