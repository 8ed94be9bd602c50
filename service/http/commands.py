"""Commands: a seat's move, checked by the rules and appended to the log."""

from __future__ import annotations

from flask.views import MethodView

from service.http.blueprint import Blueprint
from service.http.context import ctx, current_player
from service.http.games import game_wire
from service.http.schemas import CommandIn, CommandOut
from service.http.wire import answer, event_out

blp = Blueprint("commands", __name__, url_prefix="/v1/games", description="Moves")


@blp.route("/<game_id>/commands")
class Commands(MethodView):
    @blp.arguments(CommandIn())
    @blp.response(200, CommandOut)
    @blp.errors(400, 401, 403, 404, 409, 422, 429)
    def post(self, body, game_id):
        """Send a command for your seat at the version you saw."""
        tablestream = ctx()
        player = current_player(tablestream=tablestream)
        tablestream.limiter.check(player["id"])
        expected = body.pop("expected_version")
        command_id = body.pop("command_id", None)
        outcome = tablestream.service.submit(game_id, player["id"], body, expected, command_id)
        projection = outcome.projection or tablestream.service.projection(game_id)
        viewer = tablestream.service.viewer_for(projection, player)
        game = projection.game
        # wire.command_out of the answer, made in one pass.
        body = {"version": int(outcome.version),
                "events": [event_out(tablestream.service.public_event(game, e, viewer))
                           for e in outcome.events],
                # What the mover needs next, so a client plays with one request per move.
                "game": game_wire(game_id, player, projection, tablestream, viewer)}
        # A retry gets the first answer's body; the header says it was not appended again.
        return answer(body, 200,
                      {"Idempotent-Replayed": "true" if outcome.duplicate else "false"})
