"""The player's inbox (issue 14): notices of what needs them, across all their games.

After every append the service works out, from the new projection and the events just written,
which players should hear of it: a game of theirs started, it is their turn, a takeback waits
for their answer, the game is over (and a clock warning, from a worker, shortly before a turn
clock runs out). Each notice goes on the player's own Redis stream, which the account-wide live
stream (`/v1/me/events/stream`) follows, and to the player's webhooks.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import orjson

from events.projector import Projection
from events.redis_store import MAX_BLOCK_MS, blocking_client
from events.store import Outbox, StoredEvent
from service.app.errors import NotFound
from service.app.lobby import player_key
from service.app.paging import encode_cursor, page_by_key

log = logging.getLogger(__name__)

KINDS = ("game_started", "your_turn", "undo_asked", "clock_warning", "game_over",
         "dispute_ruled")
INBOX_LENGTH = 1000  # notices kept per player (a client resumes within them by Last-Event-ID)
# A notice's claim (issue 26): kept longer than any job that could repeat it (a clock warning
# re-run by the sweeper, a retried after-append) may come back.
ONCE_SECONDS = 7 * 24 * 3600


def inbox_key(player_id: str) -> str:
    return f"inbox:{player_id}"


def once_key(player_id: str, notice: dict[str, Any]) -> str:
    """The key that claims ``notice`` for its (game, seat, decision, kind): a notice goes out
    once on every channel however often the job that makes it runs (issue 26)."""
    decision = notice.get("since", notice.get("to_version", notice.get("disputed", "")))
    return (f"notice-once:{player_id}:{notice['game_id']}:{notice.get('seat', '')}:"
            f"{decision}:{notice['kind']}")


def notices(game_id: str, projection: Projection,
            appended: list[StoredEvent]) -> list[tuple[str, dict[str, Any]]]:
    """(player id, notice) for every human player these appended events concern."""
    if not appended:
        return []
    first = appended[0].version
    types = {event.type for event in appended}
    humans = {seat: info["player"] for seat, info in enumerate(projection.seats)
              if info["kind"] == "human" and info.get("player")}
    base = {"game_id": game_id, "game": projection.data["game"],
            "version": projection.version}
    out: list[tuple[str, dict[str, Any]]] = []
    if "game_started" in types:
        out += [(player, {**base, "kind": "game_started", "seat": seat})
                for seat, player in humans.items()]
    if projection.status == "running":
        for key, opened in sorted(projection.opened.items()):
            seat = int(key)
            # A seat handed to a bot is the bot's to answer; its player is not asked.
            if seat in humans and opened["since"] >= first and \
                    not projection.seats[seat].get("bot"):
                out.append((humans[seat], {**base, "kind": "your_turn", "seat": seat,
                                           "since": opened["since"],
                                           "label": opened.get("label", ""),
                                           "kinds": opened["kinds"],
                                           "deadline": _millis(projection.deadline(seat))}))
    undo = projection.data.get("undo")
    if "undo_requested" in types and undo and undo.get("waiting"):
        out += [(player, {**base, "kind": "undo_asked", "seat": seat, "by": undo.get("by"),
                          "to_version": undo.get("to_version")})
                for seat, player in humans.items() if seat != undo.get("by")]
    if "dispute_ruled" in types:
        # The player who disputed a play hears of the ruling (issue 26).
        opened = next((e for e in appended if e.type == "dispute_opened"), None)
        seat = opened.data.get("seat") if opened is not None else None
        if seat in humans:
            out.append((humans[seat], {**base, "kind": "dispute_ruled", "seat": seat,
                                       "disputed": opened.data.get("version")}))
    if "game_finished" in types:
        result = projection.data.get("result") or {}
        out += [(player, {**base, "kind": "game_over", "seat": seat,
                          "won": seat in result.get("winners", [])})
                for seat, player in humans.items()]
    return out


@dataclass(frozen=True)
class Staged:
    """Notices about to be published: (player, notice), whether each goes to webhooks and
    whether to Web Push subscriptions, and the Redis writes (an XADD per notice, then for each
    one an HVALS of its player's webhooks and one of their push subscriptions, where it goes
    to them)."""

    items: list[tuple[str, dict[str, Any]]]
    hooked: list[bool]
    writes: Outbox
    web_pushed: list[bool]


class Inbox:
    """Players' notice streams in Redis, and the webhooks they feed."""

    def __init__(self, client: Any, webhooks: Any = None, blocking: Any = None,
                 push: Any = None):
        self.redis = client
        self.webhooks = webhooks
        self.push = push  # Web Push subscriptions (service.app.push), or None
        # XREAD BLOCK outlasts the ordinary commands' socket timeout and would park one of
        # their pooled connections per open stream: blocking reads get a client of their own.
        self._blocking = blocking

    def after_append(self, game_id: str, projection: Projection,
                     appended: list[StoredEvent]) -> None:
        """Publish what these events mean to each player; never fail the append that happened."""
        # The player's games are indexed by the lobby (players:<id>:games:active/finished).
        try:
            # An append's notices are once by construction: no claim (a round trip) needed.
            self.publish(notices(game_id, projection, appended), claim=False)
        except Exception:
            log.warning("could not publish notices for game %s", game_id, exc_info=True)

    def publish(self, items: Iterable[tuple[str, dict[str, Any]]],
                claim: bool = True) -> list[str]:
        """Add each notice not published before to its player's stream (and webhooks); the
        new notices' ids. ``claim``: check each is new first (unclaimed)."""
        staged = self.stage(self.unclaimed(items) if claim else list(items))
        if staged is None:
            return []
        pipe = self.redis.pipeline(transaction=False)
        for key, name, value, length in staged.writes.streams:
            pipe.xadd(key, {name: value}, maxlen=length, approximate=True)
        # The webhooks and push subscriptions of the players a notice may go to, read in the
        # same round trip.
        for key in staged.writes.reads:
            pipe.hvals(key)
        replies = pipe.execute()
        count = len(staged.items)
        return self.published(staged, [_text(entry) for entry in replies[:count]],
                              replies[count:])

    def unclaimed(self, items: Iterable[tuple[str, dict[str, Any]]]
                  ) -> list[tuple[str, dict[str, Any]]]:
        """The notices no one published yet, each now claimed (SET NX): a job run twice (a
        clock warning the sweeper re-issued) publishes nothing the second time. An append's
        own notices ride on it (``stage``) and are once by construction: an append happens
        once, and a repeated command appends nothing."""
        items = list(items)
        if not items:
            return []
        pipe = self.redis.pipeline(transaction=False)
        for player, notice in items:
            pipe.set(once_key(player, notice), "1", nx=True, ex=ONCE_SECONDS)
        return [item for item, fresh in zip(items, pipe.execute(), strict=True) if fresh]

    def staged_after(self, game_id: str, projection: Projection,
                     appended: list[StoredEvent]) -> Staged | None:
        """``stage`` of the notices of an append (``after_append``'s, unpublished yet)."""
        return self.stage(notices(game_id, projection, appended))

    def stage(self, items: Iterable[tuple[str, dict[str, Any]]]) -> Staged | None:
        """The writes that publish these notices (None for no notice): for ``publish``'s own
        pipeline, or to ride on the append that caused them (GameService, issue 13)."""
        items = list(items)
        if not items:
            return None
        hooked = [self.webhooks is not None and self.webhooks.pushes(notice)
                  for _, notice in items]
        web_pushed = [self.push is not None and self.push.pushes(notice) for _, notice in items]
        streams = tuple((inbox_key(player), "notice", orjson.dumps(notice).decode(), INBOX_LENGTH)
                        for player, notice in items)
        reads: list[str] = []
        for (player, _), hook, web in zip(items, hooked, web_pushed, strict=True):
            if hook:
                reads.append(self.webhooks.hooks_key(player))
            if web:
                reads.append(self.push.subscriptions_key(player))
        return Staged(items, hooked, Outbox(streams, tuple(reads)), web_pushed)

    def published(self, staged: Staged, ids: list[str], hashes: Iterable[Any]) -> list[str]:
        """After ``staged``'s writes: its notices to the webhooks and push subscriptions, by
        the HVALS replies ``hashes`` (in ``stage``'s order); the notice ids."""
        replies = iter(hashes)
        for (player, notice), notice_id, hooked, web in zip(
                staged.items, ids, staged.hooked, staged.web_pushed, strict=True):
            hooks = next(replies) if hooked else None
            subscriptions = next(replies) if web else None
            if not notice_id:  # that XADD of an append's outbox failed: nothing to point at
                continue
            if hooks:  # a player without webhooks has nothing to deliver
                self.webhooks.notify(player, {**notice, "id": notice_id},
                                     hooks=self.webhooks.parse(hooks))
            if subscriptions:  # nor one without push subscriptions
                try:
                    self.push.notify(player, {**notice, "id": notice_id},
                                     records=self.push.parse(subscriptions))
                except Exception:  # the notice is in the inbox: a lost push is not an error
                    log.warning("could not queue pushes of notice %s", notice_id,
                                exc_info=True)
        return ids

    def read(self, player_id: str, after: str = "0-0", block_ms: int | None = None,
             count: int = 100) -> list[dict[str, Any]]:
        """Notices after stream id ``after`` (waiting up to ``block_ms`` when there are none)."""
        key = inbox_key(player_id)
        if block_ms is None:
            entries = self.redis.xrange(key, f"({after}" if after != "0-0" else "-", "+",
                                        count=count)
        else:
            reply = self._blocking_client().xread({key: after}, count=count,
                                                  block=min(block_ms, MAX_BLOCK_MS))
            entries = reply[0][1] if reply else []
        return [{**json.loads(_text(fields[_key(fields, "notice")])), "id": _text(entry_id)}
                for entry_id, fields in entries]

    def _blocking_client(self) -> Any:
        if self._blocking is None:
            self._blocking = blocking_client(self.redis)
        return self._blocking

    def latest(self, player_id: str) -> str:
        """The id of the player's newest notice ("0-0" when there is none)."""
        newest = self.redis.xrevrange(inbox_key(player_id), count=1)
        return _text(newest[0][0]) if newest else "0-0"


def notice_order(notice_id: str) -> tuple[int, int]:
    """A notice id ("<ms>-<seq>", a stream id) as a sortable pair."""
    ms, _, seq = notice_id.partition("-")
    return int(ms), int(seq or 0)


def _millis(seconds: float | None) -> int | None:
    """Times on the wire are Unix milliseconds (service.http.schemas)."""
    return None if seconds is None else round(seconds * 1000)


def _key(fields: dict[Any, Any], name: str) -> Any:
    return name if name in fields else name.encode()


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def build_inbox(client: Any, followups: Any, config: Any, blocking: Any = None) -> Inbox:
    """The inbox with webhooks delivered through ``followups``'s queue (none without one)."""
    from service.app.push import PushSubscriptions
    from service.app.webhooks import Webhooks

    enqueue = getattr(followups, "enqueue_webhook", None)
    intervals = config.webhook_retry_seconds or None
    webhooks = Webhooks(client, enqueue, allow_http=config.webhook_allow_http,
                        enqueue_many=getattr(followups, "enqueue_webhooks", None),
                        **({"retry_intervals": intervals} if intervals else {}))
    push = PushSubscriptions(client, getattr(followups, "enqueue_push", None),
                             allow_http=config.webhook_allow_http,
                             private_key_file=config.vapid_private_key_file,
                             enqueue_many=getattr(followups, "enqueue_pushes", None),
                             **({"retry_intervals": intervals} if intervals else {}))
    return Inbox(client, webhooks, blocking, push)


MY_GAMES_FILTERS = ("all", "open", "running", "my_turn", "finished")
ACTIVE_LIMIT = 1000  # a player's open and running games looked at for one filtered page


def my_games(service: Any, player_id: str, which: str = "all", limit: int = 100,
             offset: int = 0) -> list[dict[str, Any]]:
    """A page of the player's games with their seat and, when it is theirs to act, the prompt
    and its deadline; ``my_turn`` lists the soonest deadline first.

    Reads the player's game indexes (service/app/lobby.py), never every game they ever played:
    ``finished`` pages through their finished games, ``open``/``running``/``my_turn`` look at
    their active games only, ``all`` lists active games before finished ones.
    """
    lobby = service.lobby
    if which in ("open", "running", "my_turn"):
        ids = lobby.games_of(player_id, "active", 0, ACTIVE_LIMIT)
    else:
        ids = lobby.games_of(player_id, "finished" if which == "finished" else "all", offset,
                             limit)
    rows = [row for row in _my_rows(service, player_id, ids) if _wanted(row, which)]
    if which == "my_turn":
        rows.sort(key=lambda r: (r["pending"]["deadline"] is None,
                                 r["pending"]["deadline"] or 0, r["pending"]["since"]))
    if which in ("open", "running", "my_turn"):
        return rows[offset:offset + limit]
    return rows


def my_games_page(service: Any, player_id: str, which: str = "all", limit: int = 100,
                  after: list[Any] | None = None) -> tuple[list[dict[str, Any]], str | None]:
    """``my_games`` by cursor (issue 26): the page after position ``after`` and the next
    cursor (None on the last page). Open, running and my_turn games are the player's active
    games, ordered in memory (my_turn: the soonest deadline first; the others newest first);
    all and finished page through the indexes, active games before finished ones, newest
    (latest finished) first, by a position [0 (active) or 1 (finished), score, id]."""
    lobby = service.lobby
    if which in ("open", "running", "my_turn"):
        ids = lobby.games_of(player_id, "active", 0, ACTIVE_LIMIT)
        rows = [row for row in _my_rows(service, player_id, ids) if _wanted(row, which)]
        return page_by_key(rows, _deadline_first if which == "my_turn" else _newest_first,
                           after, limit)
    phases = ["active", "finished"] if which == "all" else ["finished"]
    entries: list[tuple[int, float, str]] = []
    for phase in phases:
        number = 0 if phase == "active" else 1
        if after is not None and after[0] > number:
            continue  # the cursor is past this phase
        mark = after[1:] if after is not None and after[0] == number else None
        found = lobby.after([player_key(player_id, phase)], mark, limit + 1 - len(entries))
        entries += [(number, score, game_id) for score, game_id in found]
        if len(entries) > limit:
            break
    more = len(entries) > limit
    entries = entries[:limit]
    rows = _my_rows(service, player_id, [game_id for _, _, game_id in entries])
    last = entries[-1] if entries else None
    return rows, encode_cursor(list(last)) if more and last else None


def _my_rows(service: Any, player_id: str, ids: list[str]) -> list[dict[str, Any]]:
    """The ``/v1/me/games`` rows of ``ids``, in their order (games the player is not seated
    in, or that never got their first event, left out)."""
    rows = []
    indexed = service.lobby.rows(ids)
    for game_id in ids:
        done = _finished_row(indexed.get(game_id), player_id)
        if done is not None:
            rows.append(done)  # a finished game, from its index row: its archive stays unread
            continue
        try:
            projection = service.projection(game_id)
        except NotFound:
            continue  # indexed before its first event, which never came
        seat = projection.seat_of(player_id)
        if seat is None:
            continue  # the player left before the game started
        prompt = service.pending_public(projection).get(str(seat))
        mine = prompt if prompt and not projection.seats[seat].get("bot") else None
        rows.append({"id": game_id, "game": projection.data["game"],
                     "status": projection.status, "version": projection.version, "seat": seat,
                     "your_turn": mine is not None, "pending": mine,
                     "created_at": projection.data.get("created_at"),
                     "result": projection.data.get("result")})
    return rows


def _wanted(row: dict[str, Any], which: str) -> bool:
    return which in ("all", "finished") or which == row["status"] or \
        (which == "my_turn" and bool(row["pending"]))


def _deadline_first(row: dict[str, Any]) -> list[Any]:
    pending = row["pending"]
    return [pending["deadline"] is None, pending["deadline"] or 0, pending["since"], row["id"]]


def _newest_first(row: dict[str, Any]) -> list[Any]:
    return [-(row["created_at"] or 0), row["id"]]


def _finished_row(row: dict[str, Any] | None, player_id: str) -> dict[str, Any] | None:
    """The ``/v1/me/games`` row of a finished game from its lobby row, if it has what it takes
    (rows written before issue 13 lack ``players``)."""
    if not row or row["status"] != "finished" or player_id not in row.get("players", ()):
        return None
    return {"id": row["id"], "game": row["game"], "status": "finished",
            "version": row["version"], "seat": row["players"].index(player_id),
            "your_turn": False, "pending": None, "created_at": row["created_at"],
            "result": row.get("result")}


def warn_clock(service: Any, game_id: str, seat: int, since: int) -> bool:
    """Publish a ``clock_warning`` to the player whose decision opened at ``since`` is still
    waiting with its clock running; whether one was published."""
    if service.inbox is None:
        return False
    projection = service.projection(game_id)
    prompt = service.pending_public(projection).get(str(seat))
    info = projection.seats[seat] if 0 <= seat < len(projection.seats) else {}
    if projection.status != "running" or not prompt or prompt["since"] != since \
            or prompt["deadline"] is None or not info.get("player") or info.get("bot") \
            or service.clock() >= prompt["deadline"]:
        return False
    service.inbox.publish([(info["player"], {
        "kind": "clock_warning", "game_id": game_id, "game": projection.data["game"],
        "version": projection.version, "seat": seat, "since": since,
        "deadline": _millis(prompt["deadline"])})])
    return True
