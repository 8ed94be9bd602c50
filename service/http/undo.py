"""Takebacks: a seat asks to take back its last move(s); the other humans answer."""

from __future__ import annotations

from flask.views import MethodView

from service.http.blueprint import Blueprint
from service.http.context import ctx, current_player
from service.http.games import game_wire
from service.http.i18n import localize
from service.http.schemas import GameOut, UndoAnswer, UndoCheckOut, UndoRequest
from service.http.wire import answer

blp = Blueprint("undo", __name__, url_prefix="/v1/games", description="Takebacks")


@blp.route("/<game_id>/undo")
class Undo(MethodView):
    @blp.response(200, UndoCheckOut)
    @blp.errors(401, 403, 404)
    def get(self, game_id):
        """Whether you may take back your last move now, before asking (and who must agree)."""
        check = ctx().service.undo_check(game_id, current_player()["id"])
        return {**check, "detail": localize(check["detail"])}

    @blp.arguments(UndoRequest(), required=False)
    @blp.response(200, GameOut)
    @blp.errors(400, 401, 403, 404, 409, 422)
    def post(self, body, game_id):
        """Ask to take back your last move(s); granted at once when only bots must agree."""
        player = current_player()
        ctx().service.request_undo(game_id, player["id"], (body or {}).get("to_version"))
        return answer(game_wire(game_id, player))


@blp.route("/<game_id>/undo/answer")
class UndoAnswerResource(MethodView):
    @blp.arguments(UndoAnswer())
    @blp.response(200, GameOut)
    @blp.errors(400, 401, 403, 404, 409)
    def post(self, body, game_id):
        """Accept or decline the takeback request waiting for you."""
        player = current_player()
        ctx().service.answer_undo(game_id, player["id"], body["accept"])
        return answer(game_wire(game_id, player))
