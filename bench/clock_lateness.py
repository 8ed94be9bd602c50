"""Turn clock lateness (issue 9, item 11): from a prompt's deadline to the time of its
``clock_expired`` event, for clocks fired by a real ``python -m workers --with-scheduler`` while
bot games keep the same worker busy. Both times come from the log (the server clock), so this
process's own delays do not count.

    python bench/clock_lateness.py [--games 30] [--bot-games 4] [--seconds 20]

Target: p99 <= 250 ms.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid

from events.redis_store import RedisEventStore, connect
from service.app.application import GameService
from service.app.lobby import Lobby
from workers.scheduling import JobScheduler, queue_connection


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def lateness_ms(service: GameService, game_id: str, seconds: int) -> list[float]:
    """Per clock expiry in the log: ms from the deadline of the prompt it expired to its event."""
    events = service.store.read(game_id)
    at = {event.version: event.at for event in events}
    return [event.at - (at[event.data["since"]] + seconds * 1000)
            for event in events if event.type == "clock_expired"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=30, help="games with a clocked human seat")
    parser.add_argument("--bot-games", type=int, default=4, help="bot games for load")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--turn-seconds", type=int, default=2)
    options = parser.parse_args()
    url = os.environ.get("REDIS_URL")
    server = None
    if not url:
        from events import embedded_redis

        server = embedded_redis.start(tempfile.mkdtemp(prefix="bench-clocks-"), "everysec")
        url = server.url
    queue = f"bench-{uuid.uuid4().hex[:8]}"
    client = connect(url)
    service = GameService(RedisEventStore(client),
                          followups=JobScheduler(queue_connection(url), queue),
                          lobby=Lobby(client))
    env = {**os.environ, "REDIS_URL": url, "TABLESTREAM_QUEUE": queue}
    worker = subprocess.Popen([sys.executable, "-m", "workers", "--with-scheduler"], env=env,
                              start_new_session=True)
    turn_seconds = options.turn_seconds
    try:
        time.sleep(2)  # the worker's start-up (imports) is not what is measured
        clocked = []
        for n in range(options.games):
            game_id = service.create_game(f"p{n}", "tally",
                                          {"target": 10_000_000, "turn_seconds": turn_seconds,
                                           "max_timeouts": 100}, [{"kind": "human"}])
            service.start(game_id, f"p{n}")
            clocked.append(game_id)
            time.sleep(turn_seconds / options.games)  # spread the deadlines over the second
        for _ in range(options.bot_games):
            service.create_game("host", "tally", {"target": 10_000_000},
                                [{"kind": "bot", "level": "random"}] * 2)
        time.sleep(options.seconds)
    finally:
        os.killpg(worker.pid, signal.SIGTERM)
        worker.wait(timeout=30)
    late = [ms for game_id in clocked for ms in lateness_ms(service, game_id, turn_seconds)]
    if server is not None:
        server.stop()
    if not late:
        print("no clock fired: is the worker running its clock loop?")
        sys.exit(1)
    print(f"Turn clock lateness, deadline -> clock_expired ({len(late)} expiries of "
          f"{options.games} clocked games, {options.bot_games} bot games for load; ms)")
    print(f"p50 {pct(late, .5):7.1f}   p99 {pct(late, .99):7.1f}   max {max(late):7.1f}   "
          f"min {min(late):7.1f}")
    print(f"target: p99 <= 250 ms (load average while measured: {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} CPUs)")


if __name__ == "__main__":
    main()
