"""Health: is the process alive, and can it serve games (Redis writable, a worker beating)."""

from __future__ import annotations

import marshmallow as ma
from flask.views import MethodView

from service.http.blueprint import Blueprint
from service.http.context import ctx
from service.http.errors import problem
from service.runtime.health import is_ready, readiness

blp = Blueprint("health", __name__, url_prefix="", description="Liveness and readiness")


class Alive(ma.Schema):
    status = ma.fields.String(required=True, metadata={"description": "always ok"})


class Ready(ma.Schema):
    status = ma.fields.String(required=True, metadata={"description": "ready"})
    checks = ma.fields.Dict(keys=ma.fields.String(), values=ma.fields.String(), required=True,
                            metadata={"description": "each check: ok, disabled, or what is wrong"})


@blp.route("/healthz")
class Healthz(MethodView):
    @blp.response(200, Alive)
    @blp.doc(security=[])
    def get(self):
        """The process is alive (touches nothing else)."""
        return {"status": "ok"}


@blp.route("/readyz")
class Readyz(MethodView):
    @blp.response(200, Ready)
    @blp.errors(503)
    @blp.doc(security=[])
    def get(self):
        """Ready to serve games: Redis reachable and writable, and a worker's heartbeat seen."""
        tablestream = ctx()
        checks = readiness(tablestream.service.store.client, tablestream.service.followups)
        if is_ready(checks):
            return {"status": "ready", "checks": checks}
        failing = ", ".join(f"{name}: {value}" for name, value in checks.items()
                            if value not in ("ok", "disabled"))
        response = problem(503, "not_ready", "Not ready", f"Not ready ({failing}).",
                           details={"checks": checks})
        response.headers["Retry-After"] = "5"
        return response
