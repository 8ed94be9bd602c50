"""Replay: the caller's view of a game as it was at any version."""

from __future__ import annotations

from flask.views import MethodView

from service.http.blueprint import Blueprint
from service.http.context import charge_read, ctx, optional_player
from service.http.games import with_names
from service.http.schemas import GameOut, ReplayQuery

blp = Blueprint("replay", __name__, url_prefix="/v1/games", description="Replay")


@blp.route("/<game_id>/replay")
class Replay(MethodView):
    @blp.arguments(ReplayQuery(), location="query")
    @blp.response(200, GameOut)
    @blp.errors(400, 401, 404, 429)
    def get(self, query, game_id):
        """Show the game as the caller could see it at `version`."""
        service = ctx().service
        charge_read(query["version"])  # it folds the log up to there (issue 23 item 5)
        viewer = service.viewer_for(service.projection(game_id), optional_player())
        body = service.replay_view(game_id, query["version"], viewer)
        body["id"] = game_id
        return with_names(body)
