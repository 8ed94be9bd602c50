"""Driving bot seats in service tests as the workers would (the test app runs no workers)."""

from __future__ import annotations

from events.store import StoredEvent


def run_bots(service, game_id: str, limit: int = 500) -> list[StoredEvent]:
    """Let every pending bot seat play until a human must act (or the game ends); returns the
    events the bots appended."""
    appended: list[StoredEvent] = []
    for _ in range(limit):
        projection = service.projection(game_id)
        bots = [(int(seat), opened["since"]) for seat, opened in projection.opened.items()
                if projection.seats[int(seat)].get("bot")]
        if projection.status != "running" or not bots:
            return appended
        seat, since = bots[0]
        outcome = service.bot_move(game_id, seat, since)
        if outcome is not None:
            appended += outcome.events
    raise AssertionError("the bots did not stop")
