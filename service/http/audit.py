"""Settling arguments: the audit transcript, explaining one event, and disputes."""

from __future__ import annotations

from flask.views import MethodView

from service.http.blueprint import Blueprint
from service.http.context import charge_read, ctx, current_player, optional_player
from service.http.games import game_wire
from service.http.i18n import localize
from service.http.long_reads import LONG_READS
from service.http.schemas import AuditOut, CommandOut, DisputeIn, ExplainOut
from service.http.wire import answer, dumps, encoded_answer, event_out

blp = Blueprint("audit", __name__, url_prefix="/v1/games", description="Audit and disputes")


@blp.route("/<game_id>/audit")
class Audit(MethodView):
    @blp.response(200, AuditOut)
    @blp.errors(401, 403, 404, 429)
    def get(self, game_id):
        """Download the full log with the seed and hash chain (after the end, or as auditor)."""
        service = ctx().service
        projection = service.projection(game_id)
        charge_read(projection.version)  # the whole log (issue 23 item 5)
        player = optional_player()
        service.check_audit_allowed(projection, player)
        # The same for everyone who may read it: kept encoded per version (long_reads.py), not
        # dumped through AuditOut, since the transcript is its wire form already.
        body = LONG_READS.encoded(("audit", game_id, projection.version), projection.version,
                                  lambda: dumps(service.audit_transcript(game_id, player)))
        return encoded_answer(body)


@blp.route("/<game_id>/events/<int:version>/explain")
class Explain(MethodView):
    @blp.response(200, ExplainOut)
    @blp.errors(401, 404, 429)
    def get(self, game_id, version):
        """Explain an event: the command behind it, the state before, why it was legal."""
        service = ctx().service
        charge_read(version)  # it replays the log up to there (issue 23 item 5)
        viewer = service.viewer_for(service.projection(game_id), optional_player())
        body = service.explain(game_id, version, viewer)
        body["checks"] = [localize(line) for line in body["checks"]]
        return body


@blp.route("/<game_id>/disputes")
class Disputes(MethodView):
    @blp.arguments(DisputeIn())
    @blp.response(201, CommandOut)
    @blp.errors(400, 401, 403, 404, 409, 429)
    def post(self, body, game_id):
        """Dispute a play: recorded, and ruled at once by re-running the rules over the log."""
        tablestream = ctx()
        player = current_player()
        # Each ruling re-runs the rules over the whole log: limited per player.
        tablestream.quotas.disputes.check(player["id"])
        outcome = tablestream.service.dispute(game_id, player["id"], body["version"],
                                              body["reason"])
        projection = outcome.projection
        viewer = tablestream.service.viewer_for(projection, player)
        return answer({"version": int(outcome.version),
                       "events": [event_out(tablestream.service.public_event(projection.game, e,
                                                                             viewer))
                                  for e in outcome.events],
                       "game": game_wire(game_id, player, projection, tablestream, viewer)}, 201)
