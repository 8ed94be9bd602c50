"""Replay and explain on a long game (issue 9, item 9): they cost O(distance to the nearest
snapshot), not O(length of the log).

Builds a 12,000-event Tally game on Redis (embedded unless REDIS_URL is set), one command per
event, then prints, near its start, middle and end: the median time of a replay and of an
explain through the application service, the events each read from Redis, and for comparison
the time of folding the log from event 1 to that version (what a replay cost before periodic
snapshots; explain also read the whole log).
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from events import embedded_redis
from events.projector import fold_upto
from events.redis_store import RedisEventStore, connect
from events.store import NewEvent
from service.app.application import GameService

EVENTS = int(os.environ.get("BENCH_EVENTS", "12000"))
RUNS = int(os.environ.get("BENCH_RUNS", "20"))


def build(service: GameService) -> str:
    game_id = service.create_game("bench", "tally", {"target": 10_000_000}, [{"kind": "human"}])
    service.start(game_id, "bench")
    version = service.store.last_version(game_id)
    while version < EVENTS:
        service.store.append(game_id, version, [NewEvent("added", {"seat": 0, "amount": 1}, "0",
                                                         {"type": "add", "amount": 1})],
                             f"add-{version}")
        version += 1
    service.projection(game_id)  # the first read folds the log and keeps its snapshots
    return game_id


def median_ms(call) -> float:
    times = []
    for _ in range(RUNS):
        t0 = time.perf_counter()
        call()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def events_read(service: GameService, call) -> int:
    read = service.store.read
    counted = []

    def counting(*args, **kwargs):
        events = read(*args, **kwargs)
        counted.append(len(events))
        return events

    service.store.read = counting
    try:
        call()
    finally:
        service.store.read = read
    return sum(counted)


def main() -> None:
    redis_url = os.environ.get("REDIS_URL")
    server = None
    if not redis_url:
        server = embedded_redis.start(tempfile.mkdtemp(prefix="bench-redis-"))
        redis_url = server.url
    try:
        service = GameService(RedisEventStore(connect(redis_url)))
        game_id = build(service)
        log = service.store.read(game_id)
        print(f"{EVENTS}-event game; median of {RUNS} runs")
        print(f"{'version':>8} {'replay ms':>10} {'read':>5} {'explain ms':>11} {'read':>5} "
              f"{'fold from 1 ms':>15}")
        for version in (100, EVENTS // 2 + 12, EVENTS - 13):
            replay = median_ms(lambda v=version: service.replay_view(game_id, v, 0))
            explain = median_ms(lambda v=version: service.explain(game_id, v, 0))
            full = median_ms(lambda v=version: fold_upto(log, v))
            replay_read = events_read(service, lambda v=version: service.replay_view(game_id, v, 0))
            explain_read = events_read(service, lambda v=version: service.explain(game_id, v, 0))
            print(f"{version:>8} {replay:>10.2f} {replay_read:>5} {explain:>11.2f} "
                  f"{explain_read:>5} {full:>15.2f}")
    finally:
        if server:
            server.stop()


if __name__ == "__main__":
    main()
