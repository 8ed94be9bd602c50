"""The lobby index: one summary per game in ``games:index`` (outside the per-game slot).

It is a cache of the logs: ``rebuild`` recreates it from every game's log.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import redis

from events.projector import Projection

INDEX = "games:index"

log = logging.getLogger(__name__)


class Lobby:
    def __init__(self, client: redis.Redis):
        self.redis = client

    def update(self, game_id: str, projection: Projection) -> None:
        self.redis.hset(INDEX, game_id, json.dumps(summary(game_id, projection)))

    def list(self, status: str | None = None, game: str | None = None,
             limit: int = 50) -> list[dict[str, Any]]:
        """Open and running games, newest first, filtered by status and game type."""
        rows = [json.loads(raw) for raw in self.redis.hvals(INDEX)]
        rows = [r for r in rows if (status is None or r["status"] == status)
                and (game is None or r["game"] == game)]
        rows.sort(key=lambda r: r.get("created_at") or 0, reverse=True)
        return rows[:limit]

    def rebuild(self, service: Any) -> int:
        """Recreate the index from the logs; returns how many games it indexed."""
        count = 0
        for game_id in service.store.game_ids():
            try:
                projection = service.projection(game_id)
            except Exception:  # one unreadable log must not keep every other game unlisted
                log.exception("cannot index game %s", game_id)
                continue
            if projection.data["game"] is not None:
                self.update(game_id, projection)
                count += 1
        return count


def summary(game_id: str, projection: Projection) -> dict[str, Any]:
    seats = projection.seats
    return {"id": game_id, "game": projection.data["game"], "status": projection.status,
            "seats": len(seats),
            "free_seats": sum(1 for s in seats if s["kind"] == "human" and not s.get("player")),
            "bots": sum(1 for s in seats if s["kind"] == "bot"),
            "created_at": projection.data.get("created_at"), "version": projection.version}
