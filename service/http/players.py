"""Players: create one and receive a bearer token."""

from __future__ import annotations

from flask import url_for
from flask.views import MethodView

from service.http.blueprint import Blueprint
from service.http.context import client_address, ctx
from service.http.schemas import PlayerCreate, PlayerCreated

blp = Blueprint("players", __name__, url_prefix="/v1/players", description="Players and tokens")


@blp.route("")
class Players(MethodView):
    @blp.arguments(PlayerCreate())
    @blp.response(201, PlayerCreated)
    @blp.errors(400, 429)
    def post(self, body):
        """Create a player and return its bearer token (rate-limited per client address)."""
        tablestream = ctx()
        tablestream.quotas.players.check(client_address())
        player, token = tablestream.accounts.create(body["name"])
        return {**player, "token": token}, 201, {"Location": url_for("me.Me")}
