"""Games: the catalog, the lobby, creating, joining, leaving, starting, and the caller's view."""

from __future__ import annotations

from flask import request, url_for
from flask.views import MethodView

from service.app import i18n
from service.app.paging import NUMBER, decode_cursor, encode_cursor
from service.http import wire
from service.http.blueprint import Blueprint
from service.http.context import charge_read, ctx, current_player, optional_player
from service.http.i18n import current_locale
from service.http.paging import NEXT_LINK, page_answer
from service.http.schemas import (
    CatalogEntry,
    GameCreate,
    GameOut,
    GameSummary,
    JoinRequest,
    LobbyQuery,
)
from service.http.wire import answer

SUMMARIES = GameSummary(many=True)

blp = Blueprint("games", __name__, url_prefix="/v1/games", description="Games and the lobby")


def game_body(game_id: str, viewer_player, projection=None, tablestream=None,
              viewer=None) -> dict:
    """The caller's picture of a game, with player names on the seats (of ``projection`` when
    the caller has it already, e.g. from its own append; ``tablestream`` and the caller's
    ``viewer`` of it likewise)."""
    tablestream = tablestream or ctx()
    projection = projection or tablestream.service.projection(game_id)
    if viewer is None:
        viewer = tablestream.service.viewer_for(projection, viewer_player)
    body = tablestream.service.describe(projection, viewer)
    body["id"] = game_id
    body["legal_commands"] = postable(body["legal_commands"], projection.version)
    return with_names(body, tablestream)


def game_wire(game_id: str, viewer_player, projection=None, tablestream=None,
              viewer=None) -> dict:
    """``wire.game_out(game_body(...))`` built in one pass, without the body in between (a
    move's answer, a game read: issue 13); tests/service/test_wire.py holds them equal."""
    tablestream = tablestream or ctx()
    service = tablestream.service
    projection = projection or service.projection(game_id)
    if viewer is None:
        viewer = service.viewer_for(projection, viewer_player)
    # Once per version, viewer and language in a process (a move's answer, then the mover's
    # stream), and kept encoded: see wire.Encoded.
    view, legal = projection.once(("wire", viewer, current_locale()),
                                  lambda: _encoded_parts(service, projection, viewer))
    names = tablestream.accounts.names([s["player"] for s in projection.seats
                                        if s.get("player")])
    return wire.projection_out(game_id, projection, viewer, view, legal, names)


def _encoded_parts(service, projection, viewer) -> tuple[wire.Encoded, wire.Encoded]:
    """The ``view`` and ``legal_commands`` of ``viewer``'s picture of ``projection``, encoded."""
    view, legal = service.work_out_view_and_legal(projection, viewer)
    return (wire.Encoded(wire.view_out(view)),
            wire.Encoded(postable(legal, projection.version)))


def with_names(body: dict, tablestream=None) -> dict:
    """``body``'s seats with their players' names (null for a bot or an empty seat)."""
    seats = body["seats"]
    names = (tablestream or ctx()).accounts.names([s["player"] for s in seats if s["player"]])
    for seat in seats:
        seat["name"] = names.get(seat["player"]) if seat["player"] else None
    return body


def postable(commands: list[dict], version: int) -> list[dict]:
    """Legal commands as bodies a client can POST unchanged: each with the version it is for."""
    return [{**command, "expected_version": version} for command in commands]


@blp.route("/catalog")
class Catalog(MethodView):
    @blp.response(200, CatalogEntry(many=True))
    def get(self):
        """List the hosted games with their seats, options, commands and bot levels."""
        return ctx().service.catalog()


@blp.route("")
class Games(MethodView):
    @blp.arguments(LobbyQuery(), location="query")
    @blp.response(200, GameSummary(many=True), headers={"Link": NEXT_LINK})
    @blp.errors(400)
    def get(self, query):
        """List games in the lobby, newest first: open and running ones unless `status` says
        otherwise, a page at a time (`limit`, `cursor`; the next page's URL in `Link`, and in
        the body with `envelope`)."""
        lobby = ctx().lobby
        if query["offset"]:  # the old way (deprecated): pages shift as games come and go
            rows = lobby.list(query.get("status"), query.get("game"), query["limit"],
                              query["offset"])
            return page_answer(rows, SUMMARIES, "cursor", None, query["envelope"])
        after = decode_cursor(query.get("cursor"), (NUMBER, str))
        rows, following = lobby.list_after(query.get("status"), query.get("game"),
                                           query["limit"], after)
        return page_answer(rows, SUMMARIES, "cursor", following and encode_cursor(following),
                           query["envelope"])

    @blp.arguments(GameCreate())
    @blp.response(201, GameOut)
    @blp.errors(400, 401, 429)
    def post(self, body):
        """Create a game with human and bot seats; the creator takes the first human seat."""
        tablestream = ctx()
        player = current_player()
        tablestream.quotas.games.check(player["id"])
        tablestream.bot_games.check(player["id"], body["seats"])
        game_id = tablestream.service.create_game(
            player["id"], body["game"], body["options"], body["seats"], body["join"],
            unlisted=tablestream.config.unlisted_games,
            test_options=tablestream.config.test_options, rated=body["rated"])
        tablestream.bot_games.created(player["id"], game_id, body["seats"])
        return answer(game_wire(game_id, player), 201, {"Location": url_for(
            "games.GameResource", game_id=game_id, _external=False)})


@blp.route("/<game_id>")
class GameResource(MethodView):
    @blp.response(200, GameOut)
    @blp.alt_response(304, description="Not modified since the version in If-None-Match")
    @blp.errors(401, 404, 429)
    def get(self, game_id):
        """Show the game as the caller may see it: view, pending prompts, legal commands."""
        player = optional_player()
        charge_read()
        projection = ctx().service.projection(game_id)
        # The version, and the language outside English: the words in the answer (prompt
        # labels, the result's sentence) change with it, so a client that switched language
        # must not be told its old copy is current.
        locale = current_locale()
        tag = f"{projection.version}" if locale == i18n.DEFAULT_LOCALE \
            else f"{projection.version}-{locale}"
        etag = f'"{tag}"'
        if tag in request.if_none_match:  # werkzeug's ETags hold the tags unquoted
            return "", 304, {"ETag": etag}
        # The projection just read serves the body too: one Redis read for the whole GET.
        return answer(game_wire(game_id, player, projection), 200,
                      {"ETag": etag, "Vary": "Authorization"})


@blp.route("/<game_id>/join")
class Join(MethodView):
    @blp.arguments(JoinRequest(), required=False)
    @blp.response(200, GameOut)
    @blp.errors(400, 401, 404, 409)
    def post(self, body, game_id):
        """Take a free human seat in an open game."""
        player = current_player()
        projection = ctx().service.join(game_id, player["id"], (body or {}).get("seat"))
        return answer(game_wire(game_id, player, projection))


@blp.route("/<game_id>/leave")
class Leave(MethodView):
    @blp.response(200, GameOut)
    @blp.errors(401, 403, 404, 409)
    def post(self, game_id):
        """Give up your seat in a game that has not started."""
        player = current_player()
        projection = ctx().service.leave(game_id, player["id"])
        return answer(game_wire(game_id, player, projection))


@blp.route("/<game_id>/start")
class Start(MethodView):
    @blp.response(200, GameOut)
    @blp.errors(401, 403, 404, 409)
    def post(self, game_id):
        """Start a game whose human seats are all taken (any seated player may)."""
        player = current_player()
        projection = ctx().service.start(game_id, player["id"])
        return answer(game_wire(game_id, player, projection))
