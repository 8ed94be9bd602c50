"""The yardstick of bench/throughput.py: a bare Flask app whose one move is one append with the
store Tablestream uses (same Lua script, hash chain and command id), served by the same gunicorn
worker class. Whatever Tablestream spends beyond this is rules, projection, auth and answer.

    python -m gunicorn ... bench.bare_app:app   (REDIS_URL must be set)
"""

from __future__ import annotations

import json
import os
import secrets
from typing import Any

from flask import Flask, Response, request

from events.redis_store import RedisEventStore, connect
from events.store import NewEvent, VersionConflict

app = Flask("bare")
store = RedisEventStore(connect(os.environ["REDIS_URL"]))


def _json(body: dict[str, Any], status: int = 200) -> Response:
    return Response(json.dumps(body), status=status, mimetype="application/json")


@app.post("/v1/games")
def create() -> Response:
    game_id = secrets.token_hex(6)
    store.create(game_id, {"game": "bare"}, secrets.token_hex(32))
    return _json({"id": game_id, "version": 0}, 201)


@app.post("/v1/games/<game_id>/commands")
def command(game_id: str) -> Response:
    body = request.get_json()
    try:
        result = store.append(game_id, body["expected_version"],
                              [NewEvent("added", {"seat": 0, "amount": body["amount"]}, "0",
                                        {"type": "add", "amount": body["amount"]})],
                              "auto:" + secrets.token_hex(8))
    except VersionConflict as exc:
        return _json({"version": exc.actual}, 409)
    return _json({"version": result.last_version})
