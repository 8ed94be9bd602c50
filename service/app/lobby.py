"""The game indexes (issue 13): what the lobby, ``/v1/me/games`` and the sweeper read instead of
every game ever created. All are caches of the logs, outside the per-game slot:

```
games:rows                 hash  id -> lobby summary (JSON)
games:<status>             zset  open / running / finished games: created (open, running) or
games:<status>:<type>            finished time (finished), ms; the per-type one for ?game=
games:due                  zset  running games -> when their soonest bot turn, turn clock,
                                 clock warning, takeback lapse or idle hand-over falls due
                                 (epoch seconds)
games:archive-due          zset  finished games -> when to archive them (epoch seconds)
games:watched:<id>         string a seated player follows the game live (expires: WATCH_SECONDS)
players:<id>:games:active  zset  the player's open and running games (created, ms)
players:<id>:games:finished zset the player's finished games (finished, ms)
```

Writes. Each append is followed by one pipeline (``after_append``): status, seats and the row
change only with platform events (joins, start, end, clock expiries...), the due score with any
move that changes it. On Redis Cluster these keys live outside the game's hash slot, so they are
separate commands from the append script: a process killed between the two leaves them stale.
Two things repair that. A game is put in ``games:open`` before its first event is appended
(``register``), so every game is in some status index from birth; and the sweeper's reconcile
pass (workers/sweeper.py) re-indexes every open and running game from its log every
``RECONCILE_SECONDS``. So a lost write costs at most that long (a late bot turn, a stale row),
never a game stuck for good; ``rebuild`` recreates everything from the logs (SCAN, all games).
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from typing import Any

from events.projector import Projection, is_platform_event
from events.store import StoredEvent
from games import REGISTRY
from service.app.due import Due, earliest_due

ROWS = "games:rows"
DUE = "games:due"
ARCHIVE_DUE = "games:archive-due"
LEGACY_INDEX = "games:index"  # the hash of every game ever, before issue 13 (migrated away)
STATUSES = ("open", "running", "finished")
ACTIVE = ("open", "running")

# How long a finished game stays live before it is archived: disputes are appended to its log
# until then (service.app.history.dispute), and after it answer 409 game_archived.
ARCHIVE_AFTER_ENV = "TABLESTREAM_ARCHIVE_AFTER_SECONDS"
ARCHIVE_AFTER = 15 * 60.0
_DUE_CACHE_SIZE = 10_000

log = logging.getLogger(__name__)


# A seated player's live stream of a game marks it watched for this long, renewed while open:
# the sweeper does not hand a watched game's seats to bots (service/app/due.py, idle games).
WATCH_SECONDS = 120.0


def watch_key(game_id: str) -> str:
    return f"games:watched:{game_id}"


def status_key(status: str, game: str | None = None) -> str:
    return f"games:{status}" if game is None else f"games:{status}:{game}"


def player_key(player_id: str, which: str) -> str:
    """``which``: "active" (open and running) or "finished"."""
    return f"players:{player_id}:games:{which}"


def archive_after() -> float:
    value = os.environ.get(ARCHIVE_AFTER_ENV)
    return float(value) if value else ARCHIVE_AFTER


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class Lobby:
    def __init__(self, client: Any, archive_delay: float | None = None):
        self.redis = client
        self.archive_delay = archive_after() if archive_delay is None else archive_delay
        # game id -> the due score this process wrote last (None: removed), so a move that does
        # not change it costs no write
        self._due: OrderedDict[str, float | None] = OrderedDict()
        self._due_lock = threading.Lock()

    # --- writing ------------------------------------------------------------------------------

    def register(self, game_id: str, game: str, created_at_ms: float) -> None:
        """Put a new game in the open index before its first append (the write-ahead half of
        the crash story above: a game is never in no index)."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.zadd(status_key("open"), {game_id: created_at_ms})
        pipe.zadd(status_key("open", game), {game_id: created_at_ms})
        pipe.execute()

    def after_append(self, game_id: str, projection: Projection,
                     appended: Iterable[StoredEvent] = (), jobs: list[Due] | None = None
                     ) -> None:
        """Bring the indexes up to date after an append of ``appended`` (``jobs``: the
        projection's ``due_jobs``, when the caller has worked them out already)."""
        appended = list(appended)
        if not appended or any(is_platform_event(e.type) for e in appended):
            finished_at = next((e.at for e in appended if e.type == "game_finished"), None)
            left = [e.data["player"] for e in appended if e.type == "seat_left"]
            self.index(game_id, projection, finished_at, left)
            return
        due = earliest_due(projection, jobs)
        with self._due_lock:
            unchanged = self._due.get(game_id, -1.0) == due
        if unchanged:
            return
        pipe = self.redis.pipeline(transaction=False)
        self._write_due(pipe, game_id, due)
        pipe.execute()
        self._remember_due(game_id, due)

    # Kept for callers of the earlier single-row lobby.
    def update(self, game_id: str, projection: Projection) -> None:
        self.index(game_id, projection)

    def index(self, game_id: str, projection: Projection, finished_at: float | None = None,
              left: Iterable[str] = ()) -> None:
        """Write every index entry of one game from its projection (idempotent)."""
        game, status = projection.data["game"], projection.status
        if game is None or status not in STATUSES:
            self.forget(game_id)
            return
        created = projection.data.get("created_at") or 0
        pipe = self.redis.pipeline(transaction=False)
        pipe.hset(ROWS, game_id, json.dumps(summary(game_id, projection)))
        for other in STATUSES:
            if other != status:
                pipe.zrem(status_key(other), game_id)
                pipe.zrem(status_key(other, game), game_id)
        players = [s["player"] for s in projection.seats
                   if s["kind"] == "human" and s.get("player")]
        for player in left:
            if player not in players:
                pipe.zrem(player_key(player, "active"), game_id)
        if status == "finished":
            at = finished_at if finished_at is not None else time.time() * 1000
            # NX: a reconcile pass must not move a finished game's time or its archiving.
            pipe.zadd(status_key(status), {game_id: at}, nx=True)
            pipe.zadd(status_key(status, game), {game_id: at}, nx=True)
            pipe.zadd(ARCHIVE_DUE, {game_id: at / 1000 + self.archive_delay}, nx=True)
            for player in players:
                pipe.zrem(player_key(player, "active"), game_id)
                pipe.zadd(player_key(player, "finished"), {game_id: at}, nx=True)
        else:
            pipe.zadd(status_key(status), {game_id: created})
            pipe.zadd(status_key(status, game), {game_id: created})
            for player in players:
                pipe.zadd(player_key(player, "active"), {game_id: created})
        due = earliest_due(projection)
        self._write_due(pipe, game_id, due)
        pipe.execute()
        self._remember_due(game_id, due)

    def _write_due(self, pipe: Any, game_id: str, due: float | None) -> None:
        if due is None:
            pipe.zrem(DUE, game_id)
        else:
            pipe.zadd(DUE, {game_id: due})

    def _remember_due(self, game_id: str, due: float | None) -> None:
        """What the due index holds for ``game_id`` now (written: a failed write is not
        remembered, so the next append tries again)."""
        with self._due_lock:
            self._due[game_id] = due
            self._due.move_to_end(game_id)
            while len(self._due) > _DUE_CACHE_SIZE:
                self._due.popitem(last=False)

    def forget(self, game_id: str) -> None:
        """Drop a game that does not exist (or has no events) from every index."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.hdel(ROWS, game_id)
        for status in STATUSES:
            pipe.zrem(status_key(status), game_id)
            # Its type is unknown without a log (a create refused after ``register``).
            for game in REGISTRY:
                pipe.zrem(status_key(status, game), game_id)
        pipe.zrem(DUE, game_id)
        pipe.zrem(ARCHIVE_DUE, game_id)
        pipe.execute()
        with self._due_lock:
            self._due.pop(game_id, None)

    def watched(self, game_id: str) -> bool:
        """Whether a seated player followed the game live within WATCH_SECONDS."""
        return bool(self.redis.exists(watch_key(game_id)))

    def watching(self, game_id: str) -> None:
        """A seated player follows the game live (their stream says so every WATCH_SECONDS/2)."""
        self.redis.set(watch_key(game_id), "1", ex=int(WATCH_SECONDS))

    def postpone(self, game_id: str, until: float) -> None:
        """Look at an idle game again at ``until`` (a player is still connected to it)."""
        self.redis.zadd(DUE, {game_id: until}, xx=True)
        self._remember_due(game_id, until)

    def archived(self, game_id: str) -> None:
        """The game was archived: it is no longer due for it."""
        self.redis.zrem(ARCHIVE_DUE, game_id)

    # --- reading ------------------------------------------------------------------------------

    def list(self, status: str | None = None, game: str | None = None, limit: int = 50,
             offset: int = 0) -> list[dict[str, Any]]:
        """Open and running games (or those of ``status``), newest first, a page at a time:
        reads the page's ids and rows only, whatever the number of games ever played."""
        statuses = [status] if status else list(ACTIVE)
        ids = self._page([status_key(s, game) for s in statuses], offset, limit)
        if not ids:
            return []
        rows = self.redis.hmget(ROWS, ids)
        return [json.loads(raw) for raw in rows if raw is not None]

    def list_after(self, status: str | None = None, game: str | None = None, limit: int = 50,
                   after: list[Any] | None = None) -> tuple[list[dict[str, Any]],
                                                        list[Any] | None]:
        """``list`` by cursor (issue 26): the games after position ``after`` (a game's
        ``[score, id]``, newest first), and the position of the page's last game when more
        follow."""
        statuses = [status] if status else list(ACTIVE)
        entries = self.after([status_key(s, game) for s in statuses], after, limit + 1)
        more = len(entries) > limit
        entries = entries[:limit]
        rows = self.rows([member for _, member in entries])
        page = [rows[member] for _, member in entries if member in rows]
        return page, (list(entries[-1]) if more and entries else None)

    def after(self, keys: list[str], after: list[Any] | None,
              limit: int) -> list[tuple[float, str]]:
        """Up to ``limit`` (score, member) of the union of ``keys`` that come after ``after``
        (a [score, member]) by score then member, both descending: a stable order however
        many members join or leave meanwhile."""
        pipe = self.redis.pipeline(transaction=False)
        if after is None:
            for key in keys:
                pipe.zrevrange(key, 0, limit - 1, withscores=True)
        else:
            score = after[0]
            for key in keys:
                # Members sharing the cursor's score come first: fetch past them too.
                pipe.zcount(key, score, score)
            ties = pipe.execute()
            for key, tied in zip(keys, ties, strict=True):
                pipe.zrevrangebyscore(key, score, "-inf", start=0, num=limit + tied,
                                      withscores=True)
        found = {(float(found_score), _text(found_member))
                 for rows in pipe.execute() for found_member, found_score in rows}
        if after is not None:
            mark = (float(after[0]), str(after[1]))
            found = {entry for entry in found if entry < mark}
        return sorted(found, reverse=True)[:limit]

    def games_of(self, player_id: str, which: str = "all", offset: int = 0,
                 limit: int = 100) -> list[str]:
        """A page of the player's game ids: active ones (newest first) before finished ones
        (latest finished first) for "all"; ``which`` "active" or "finished" for one of them."""
        if which != "all":
            return self._page([player_key(player_id, which)], offset, limit)
        active = self._page([player_key(player_id, "active")], offset, limit)
        if len(active) == limit:
            return active
        skipped = max(0, offset - self.redis.zcard(player_key(player_id, "active")))
        return active + self._page([player_key(player_id, "finished")], skipped,
                                   limit - len(active))

    def _page(self, keys: list[str], offset: int, limit: int) -> list[str]:
        """Ids ``offset..offset+limit`` of the union of ``keys``, highest score first."""
        if limit <= 0:
            return []
        if len(keys) == 1:
            return [_text(x) for x in self.redis.zrevrange(keys[0], offset,
                                                           offset + limit - 1)]
        pipe = self.redis.pipeline(transaction=False)
        for key in keys:
            pipe.zrevrange(key, 0, offset + limit - 1, withscores=True)
        merged = sorted(((score, _text(m)) for rows in pipe.execute() for m, score in rows),
                        reverse=True)
        return [member for _, member in merged[offset:offset + limit]]

    def due(self, until: float, limit: int = 1000) -> list[str]:
        """Running games with a job due by ``until`` (epoch seconds), soonest first."""
        return [_text(x) for x in self.redis.zrangebyscore(DUE, "-inf", until, start=0,
                                                           num=limit)]

    def archive_due(self, until: float, limit: int = 100) -> list[str]:
        """Finished games whose archiving is due by ``until`` (epoch seconds)."""
        return [_text(x) for x in self.redis.zrangebyscore(ARCHIVE_DUE, "-inf", until,
                                                           start=0, num=limit)]

    def rows(self, ids: list[str]) -> dict[str, dict[str, Any]]:
        """The index rows of ``ids`` (those that have one)."""
        if not ids:
            return {}
        return {game_id: json.loads(raw) for game_id, raw in zip(ids, self.redis.hmget(ROWS, ids),
                                                                  strict=True) if raw}

    def active(self, batch: int = 500) -> Iterator[str]:
        """Every open and running game id (the reconcile pass: cost tracks active games)."""
        for status in ACTIVE:
            for member, _ in self.redis.zscan_iter(status_key(status), count=batch):
                yield _text(member)

    # --- repair -------------------------------------------------------------------------------

    def rebuild(self, service: Any) -> int:
        """Recreate every index from the logs (SCAN: all games ever; a repair, not a request
        path); returns how many games it indexed."""
        count = 0
        for game_id in service.store.game_ids():
            if self.reindex(service, game_id):
                count += 1
        self.redis.delete(LEGACY_INDEX)
        return count

    def migrate(self, service: Any) -> int:
        """Index the games of the pre-issue-13 ``games:index`` hash once, then drop it."""
        if not self.redis.exists(LEGACY_INDEX):
            return 0
        return self.rebuild(service)

    def reindex(self, service: Any, game_id: str,
                indexed: tuple[dict[str, Any] | None, float | None] | None = None) -> bool:
        """Index one game from its log unless what is ``indexed`` of it (its row and due
        score, when the caller read them) is right already; False when it cannot be read."""
        from service.app.errors import NotFound

        try:
            projection = service.projection(game_id)
        except NotFound:
            self.forget(game_id)
            return False
        except Exception:  # one unreadable log must not keep every other game unlisted
            log.exception("cannot index game %s", game_id)
            return False
        if indexed is not None and indexed[0] is not None and \
                _same_row(indexed[0], summary(game_id, projection)) and \
                indexed[1] == earliest_due(projection):
            return True
        self.index(game_id, projection)
        return True

    def reconcile(self, service: Any, batch: int = 200) -> int:
        """Re-index the open and running games whose row or due score disagrees with their
        log (read a batch at a time); how many games it looked at."""
        ids = list(self.active())
        for start in range(0, len(ids), batch):
            chunk = ids[start:start + batch]
            pipe = self.redis.pipeline(transaction=False)
            pipe.hmget(ROWS, chunk)
            pipe.zmscore(DUE, chunk)
            raw_rows, scores = pipe.execute()
            for game_id, raw, score in zip(chunk, raw_rows, scores, strict=True):
                row = json.loads(raw) if raw else None
                self.reindex(service, game_id,
                             (row, None if score is None else float(score)))
        return len(ids)


def summary(game_id: str, projection: Projection) -> dict[str, Any]:
    """The lobby row (GameSummary), plus what ``/v1/me/games`` shows of a finished game
    (``players`` by seat, ``result``) so it need not read the game's archive."""
    seats = projection.seats
    return {"id": game_id, "game": projection.data["game"], "status": projection.status,
            "seats": len(seats),
            "free_seats": sum(1 for s in seats if s["kind"] == "human" and not s.get("player")),
            "bots": sum(1 for s in seats if s["kind"] == "bot"),
            "created_at": projection.data.get("created_at"), "version": projection.version,
            "players": [s.get("player") for s in seats],
            "result": projection.data.get("result")}


def _same_row(stored: dict[str, Any], current: dict[str, Any]) -> bool:
    """Rows agree but for the version, which rows keep only as of the last platform event."""
    return {**stored, "version": None} == {**current, "version": None}
