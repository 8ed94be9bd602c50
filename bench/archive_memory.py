"""Redis memory per finished 2-player Loot game, live and archived (issue 13, done item 5:
<= 10 KB archived).

Plays BENCH_GAMES games of Loot between two human players through the application service, each
move sent as a client does (a command id, so command records are kept as over HTTP), on a fresh
embedded Redis (or REDIS_URL, which should then be empty). Then prints, per game: MEMORY USAGE
(SAMPLES 0: every element counted) over the game's own keys, plus its share of the indexes
(every index key's usage divided by the games in it: the bench's games are all there is),
before and after archiving; the archive blob's size; the time to archive a game and to read an
archived game cold (a fresh service: unpack, re-hash, fold). Loopback only.
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
from events.redis_store import RedisEventStore, connect
from games.core import Rng
from service.app.application import GameService
from service.app.inbox import Inbox
from service.app.lobby import ARCHIVE_DUE, DUE, ROWS, Lobby, player_key, status_key

GAMES = int(os.environ.get("BENCH_GAMES", "20"))
LIMIT_BYTES = 10 * 1024
GAME_PARTS = ("log", "meta", "secret", "cmds", "snap", "snaps", "archive")


def play(service: GameService, index: int) -> tuple[str, list[str]]:
    players = [f"ann-{index}", f"bob-{index}"]
    game_id = service.create_game(players[0], "loot", None, [{"kind": "human"}] * 2)
    service.join(game_id, players[1])
    service.start(game_id, players[0])
    rng = Rng(f"bench-{index}")
    for step in range(5000):
        projection = service.projection(game_id)
        if projection.status == "finished":
            return game_id, players
        seat = int(sorted(projection.opened)[0])
        legal = projection.game.legal_commands(projection.state, seat)
        service.submit(game_id, players[seat], legal[rng.below(len(legal))], projection.version,
                       f"move-{step}")
    raise RuntimeError("a game did not end")


def usage(client, key: str) -> int:
    return int(client.memory_usage(key, samples=0) or 0)


def game_bytes(client, game_id: str) -> int:
    return sum(usage(client, f"{{g:{game_id}}}:{part}") for part in GAME_PARTS)


def index_share(client, players: list[str]) -> float:
    """Every index key's memory over the games the bench played (each game's share)."""
    keys = [ROWS, DUE, ARCHIVE_DUE] + [status_key(s, g) for s in ("open", "running", "finished")
                                       for g in (None, "loot")]
    keys += [player_key(p, which) for p in players for which in ("active", "finished")]
    return sum(usage(client, key) for key in keys) / GAMES


def main() -> None:
    url = os.environ.get("REDIS_URL")
    server = None
    if not url:
        server = embedded_redis.start(Path(tempfile.mkdtemp(prefix="archive-bench-")), "no")
        url = server.url
    client = connect(url)
    try:
        lobby = Lobby(client)
        service = GameService(RedisEventStore(client), lobby=lobby, inbox=Inbox(client))
        played = [play(service, i) for i in range(GAMES)]
        ids = [game_id for game_id, _ in played]
        players = [p for _, pair in played for p in pair]
        events = statistics.median(service.store.last_version(g) for g in ids)
        live = statistics.median(game_bytes(client, g) for g in ids)
        live_share = index_share(client, players)
        archive_ms = []
        for game_id in ids:
            t0 = time.perf_counter()
            assert service.archive(game_id)
            archive_ms.append((time.perf_counter() - t0) * 1000)
        archived = statistics.median(game_bytes(client, g) for g in ids)
        share = index_share(client, players)
        blob = statistics.median(client.strlen(f"{{g:{g}}}:archive") for g in ids)
        read_ms = []
        for game_id in ids:
            cold = GameService(RedisEventStore(client), lobby=lobby)
            t0 = time.perf_counter()
            cold.projection(game_id)
            read_ms.append((time.perf_counter() - t0) * 1000)
        total = archived + share
        print(f"archive memory: {GAMES} finished 2-player Loot games, median {events:.0f} "
              f"events each (load {os.getloadavg()[0]:.2f})")
        print(f"  live:     {live / 1024:7.1f} KB game keys + {live_share / 1024:5.1f} KB index "
              f"share = {(live + live_share) / 1024:7.1f} KB per game")
        print(f"  archived: {archived / 1024:7.1f} KB game keys + {share / 1024:5.1f} KB index "
              f"share = {total / 1024:7.1f} KB per game (blob {blob / 1024:.1f} KB; goal "
              f"<= {LIMIT_BYTES / 1024:.0f} KB: {'met' if total <= LIMIT_BYTES else 'MISSED'})")
        print(f"  archive a game: median {statistics.median(archive_ms):.1f} ms; read an "
              f"archived game cold: median {statistics.median(read_ms):.1f} ms")
    finally:
        client.close()
        if server is not None:
            server.stop()


if __name__ == "__main__":
    main()
