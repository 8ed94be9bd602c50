"""Ratings (issue 25): a rating per player per game title, a projection of finished games.

Each rated game, once finished, is folded into its players' ratings with openskill's Weng-Lin
Plackett-Luce model (2 to 8 seats, teams, ties). The projection is a pure function of the game
streams taken in the order the games finished (the ``game_finished`` event's time, then the
game id): the worker job (``fold_finished``) folds new ones in that order, each exactly once
(the write is one script that checks the game was not counted and that the ratings it read are
unchanged), and ``rebuild`` computes every rating again from the streams with the same numbers.

Policy (README, DESIGN.md):
- only games created with ``rated: true`` count; casual ones change nothing;
- bots have a fixed rating per level (BOT_RATINGS) and are never rated themselves; a game
  without a human seat is not rated;
- takebacks change nothing here: only the final result counts;
- a seat handed to a bot for timeouts (``seat_replaced_by_bot``) and not taken back by the end
  counts as a loss: its side ranks last, whatever the bot achieved;
- a team game (Loot's partnerships) rates each side as a team; tied seats share a rank.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce

from events.projector import fold
from events.store import StoredEvent

MODEL = PlackettLuce()
# Fixed ratings the bots play at (mu, sigma): known opponents of known strength.
BOT_RATINGS = {"random": (10.0, 1.0), "basic": (20.0, 1.0), "expert": (30.0, 1.0)}
SETTLE_SECONDS = 5.0  # a game is folded this long after it finished: index writes land first
HISTORY = 200  # points of a player's rating history kept per title
BATCH = 500

FINISHED_INDEX = "games:finished"  # service.app.lobby.status_key("finished")




@dataclass(frozen=True)
class Match:
    """What a rated finished game says about its players: sides in seat order, each with its
    rank (1 best) and its members (a player id, or a bot level)."""

    game_id: str
    title: str
    at: float  # when it finished (Unix ms)
    sides: tuple[tuple[tuple[str, ...], int], ...]  # ((members, rank), ...)

    @property
    def order(self) -> tuple[float, str]:
        return (self.at, self.game_id)

    def players(self) -> list[str]:
        return [m for members, _ in self.sides for m in members if not is_bot(m)]

    def to_json(self) -> str:
        return json.dumps({"game": self.game_id, "title": self.title, "at": self.at,
                           "sides": [[list(m), r] for m, r in self.sides]})

    @classmethod
    def from_json(cls, raw: str | bytes) -> Match:
        d = json.loads(raw)
        return cls(d["game"], d["title"], d["at"],
                   tuple((tuple(m), r) for m, r in d["sides"]))


def is_bot(member: str) -> bool:
    return member.startswith("bot:")


def match_of(game_id: str, events: list[StoredEvent]) -> Match | None:
    """The rated match a game's stream records, or None (casual, unfinished, no humans)."""
    if not events or events[0].type != "game_created" or not events[0].data.get("rated"):
        return None
    finished = [e for e in events if e.type == "game_finished"]
    if not finished:
        return None
    projection = fold(events)
    result = projection.data.get("result") or {}
    seats = projection.seats
    humans = [s["player"] for s in seats if s["kind"] == "human" and s.get("player")]
    if not humans or len(set(humans)) != len(humans) or "ranking" not in result:
        return None
    rank_of = {seat: i + 1 for i, group in enumerate(result["ranking"]) for seat in group}
    last = len(result["ranking"]) + 1
    parties = [team["seats"] for _, team in sorted(result["teams"].items(),
                                                   key=lambda kv: int(kv[0]))] \
        if result.get("teams") else [[seat] for seat in range(len(seats))]
    sides = []
    for party in parties:
        members = tuple(_member(seats[s]) for s in party)
        abandoned = any(seats[s]["kind"] == "human" and seats[s].get("bot") for s in party)
        # Below every side that played on, those the ranking leaves out included.
        rank = last + 1 if abandoned else min(rank_of.get(s, last) for s in party)
        sides.append((members, rank))
    return Match(game_id, projection.data["game"], float(finished[-1].at), tuple(sides))


def _member(seat: dict[str, Any]) -> str:
    return seat["player"] if seat["kind"] == "human" and seat.get("player") \
        else f"bot:{seat.get('level') or 'random'}"


# Folds one match: unless the game was counted already (0), or a rating it was computed from
# changed meanwhile (-1: compute again), writes every player's new rating, board score and
# history point, the match, and the checkpoint, and counts the game. All keys in {ratings}.
_APPLY_LUA = """
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return 0 end
local n = tonumber(ARGV[4])
for i = 0, n - 1 do
  local base = 5 + i * 5
  local now = redis.call('HGET', KEYS[2], ARGV[base]) or ''
  if now ~= ARGV[base + 1] then return -1 end
end
for i = 0, n - 1 do
  local base = 5 + i * 5
  redis.call('HSET', KEYS[2], ARGV[base], ARGV[base + 2])
  redis.call('ZADD', KEYS[3], ARGV[base + 3], ARGV[base])
  redis.call('RPUSH', KEYS[6 + i], ARGV[base + 4])
  redis.call('LTRIM', KEYS[6 + i], -tonumber(ARGV[3]), -1)
end
redis.call('HSET', KEYS[4], ARGV[1], ARGV[2])
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('SET', KEYS[5], ARGV[5 + n * 5])
return 1
"""


def ordinal(mu: float, sigma: float) -> float:
    """The conservative rating the boards sort by: mu - 3 sigma (openskill's ordinal)."""
    return MODEL.rating(mu=mu, sigma=sigma).ordinal()


class Ratings:
    """The ratings under ``namespace`` (tests use one each): every key shares one hash tag, so
    a game's fold is one script on Redis Cluster too."""

    def __init__(self, client: Any, namespace: str = "ratings"):
        self.redis = client
        self.tag = "{" + namespace + "}"
        self._apply = client.register_script(_APPLY_LUA)

    def _key(self, part: str) -> str:
        return f"{self.tag}:{part}"

    @property
    def applied_key(self) -> str:
        return self._key("applied")

    @property
    def scanned_key(self) -> str:
        return self._key("scanned")

    @property
    def last_key(self) -> str:
        return self._key("last")

    def ratings_key(self, title: str) -> str:
        return self._key(f"r:{title}")

    def board_key(self, title: str) -> str:
        return self._key(f"board:{title}")

    def matches_key(self, title: str) -> str:
        return self._key(f"matches:{title}")

    def history_key(self, title: str, player_id: str) -> str:
        return self._key(f"history:{title}:{player_id}")

    # --- the projection -----------------------------------------------------------------------

    def fold_finished(self, service: Any, now_ms: float | None = None) -> int:
        """Fold every rated game finished at least SETTLE_SECONDS ago and not counted yet, in
        the order they finished; how many it counted. Safe to run twice or at once.

        It reads the finished-games index (service.app.lobby) from where its last run stopped, less
        SETTLE_SECONDS in case an index write landed late, so a run costs the games finished
        since, not all games."""
        now_ms = time.time() * 1000 if now_ms is None else now_ms
        scanned = self.redis.get(self.scanned_key)
        start = float(scanned) - SETTLE_SECONDS * 1000 if scanned else "-inf"
        rows = self.redis.zrangebyscore(FINISHED_INDEX, start, now_ms - SETTLE_SECONDS * 1000,
                                        start=0, num=BATCH, withscores=True)
        ids = [_text(member) for member, _ in rows]
        matches = []
        if ids:
            counted = self.redis.smismember(self.applied_key, ids)
            for game_id, done in zip(ids, counted, strict=True):
                if not done and self._rated(service, game_id):
                    match = match_of(game_id, service.store.read(game_id))
                    if match is not None:
                        matches.append(match)
        done = sum(self.count(match) for match in sorted(matches, key=lambda m: m.order))
        end = rows[-1][1] if len(rows) == BATCH else now_ms - SETTLE_SECONDS * 1000
        self.redis.set(self.scanned_key, repr(end))
        return done

    @staticmethod
    def _rated(service: Any, game_id: str) -> bool:
        """Whether the game was created rated (its first event alone is read)."""
        first = service.store.read(game_id, 1, 1)
        return bool(first) and bool(first[0].data.get("rated"))

    def count(self, match: Match) -> bool:
        """Fold one match into the ratings once (False when it was counted before). A match
        finished before the last one counted (a late index write) refolds its title."""
        last = self.redis.get(self.last_key)
        if last and tuple(json.loads(last)["order"]) > match.order \
                and not self.redis.sismember(self.applied_key, match.game_id):
            self.redis.hset(self.matches_key(match.title), match.game_id, match.to_json())
            self.refold(match.title)
            return True
        while True:
            outcome = self._write(match)
            if outcome >= 0:
                return outcome == 1

    def _write(self, match: Match) -> int:
        players = match.players()
        before = dict(zip(players, self.redis.hmget(self.ratings_key(match.title), players),
                          strict=True)) if players else {}
        current = {p: json.loads(raw) if raw else None for p, raw in before.items()}
        after = rate(match, current)
        args: list[Any] = [match.game_id, match.to_json(), HISTORY, len(players)]
        for player in players:
            new = after[player]
            args += [player, _text(before[player]) if before[player] else "",
                     json.dumps(new, sort_keys=True), repr(new["ordinal"]),
                     json.dumps({"game": match.game_id, "at": match.at, "mu": new["mu"],
                                 "sigma": new["sigma"], "ordinal": new["ordinal"]})]
        args.append(json.dumps({"at": match.at, "order": list(match.order)}))  # checkpoint
        keys = [self.applied_key, self.ratings_key(match.title), self.board_key(match.title),
                self.matches_key(match.title), self.last_key,
                *(self.history_key(match.title, p) for p in players)]
        return int(self._apply(keys=keys, args=args))

    # --- rebuilding ---------------------------------------------------------------------------

    def rebuild(self, service: Any) -> int:
        """Forget every rating and fold every rated game again from the game streams, in the
        order they finished; how many games count."""
        matches = []
        for game_id in service.store.game_ids():
            if self._rated(service, game_id):
                match = match_of(game_id, service.store.read(game_id))
                if match is not None:
                    matches.append(match)
        self.clear()
        for match in sorted(matches, key=lambda m: m.order):
            self.count(match)
        return len(matches)

    def refold(self, title: str) -> None:
        """Fold a title's counted matches again in order (after one arrived late)."""
        matches = [Match.from_json(raw) for raw in self.redis.hvals(self.matches_key(title))]
        players = {p for m in matches for p in m.players()}
        pipe = self.redis.pipeline(transaction=False)
        # One key a DEL: a Cluster pipeline takes no multi-key DEL.
        for key in (self.ratings_key(title), self.board_key(title), self.matches_key(title),
                    *(self.history_key(title, player) for player in players)):
            pipe.delete(key)
        if matches:
            pipe.srem(self.applied_key, *(m.game_id for m in matches))
        pipe.execute()
        for match in sorted(matches, key=lambda m: m.order):
            while self._write(match) < 0:
                pass

    def clear(self) -> None:
        # SCAN's pattern reads braces as themselves; on Cluster it scans every node.
        keys = [_text(k) for k in self.redis.scan_iter(match=f"{self.tag}:*", count=1000)]
        for start in range(0, len(keys), 500):
            self.redis.delete(*keys[start:start + 500])

    # --- reading ------------------------------------------------------------------------------

    def of_player(self, player_id: str, titles: list[str]) -> list[dict[str, Any]]:
        """The player's rating in each title they have one in, with its history."""
        pipe = self.redis.pipeline(transaction=False)
        for title in titles:
            pipe.hget(self.ratings_key(title), player_id)
            pipe.lrange(self.history_key(title, player_id), -50, -1)
        replies = pipe.execute()
        out = []
        for title, raw, history in zip(titles, replies[::2], replies[1::2], strict=True):
            if raw:
                out.append({"game": title, **json.loads(raw),
                            "history": [json.loads(h) for h in history]})
        return out

    def records(self, title: str, player_ids: list[str]) -> list[dict[str, Any]]:
        """The ratings of ``player_ids`` in ``title`` (those who have one), with their id."""
        if not player_ids:
            return []
        raws = self.redis.hmget(self.ratings_key(title), player_ids)
        return [{"player": p, **json.loads(raw)} for p, raw in zip(player_ids, raws, strict=True)
                if raw]

    def board(self, title: str, limit: int, after: tuple[float, str] | None
              ) -> list[tuple[str, float]]:
        """A page of the title's board, best first: (player, ordinal) after the cursor."""
        key = self.board_key(title)
        if after is None:
            rows = self.redis.zrevrangebyscore(key, "+inf", "-inf", start=0, num=limit,
                                               withscores=True)
            return [(_text(m), s) for m, s in rows]
        score, member = after
        ties = self.redis.zcount(key, score, score)
        rows = self.redis.zrevrangebyscore(key, score, "-inf", start=0, num=limit + ties,
                                           withscores=True)
        # Equal scores come in reverse member order: skip up to and including the cursor.
        page = [(_text(m), s) for m, s in rows if s < score or _text(m) < member]
        return page[:limit]


def rate(match: Match, current: dict[str, dict[str, Any] | None]) -> dict[str, dict[str, Any]]:
    """The players' new ratings and records after ``match`` (bots keep theirs)."""
    teams = []
    for members, _rank in match.sides:
        team = []
        for member in members:
            if is_bot(member):
                mu, sigma = BOT_RATINGS.get(member[4:], BOT_RATINGS["random"])
            else:
                record = current.get(member)
                mu, sigma = (record["mu"], record["sigma"]) if record else (None, None)
            team.append(MODEL.rating(mu=mu, sigma=sigma))
        teams.append(team)
    ranks = [rank for _, rank in match.sides]
    rated = MODEL.rate(teams, ranks=ranks)
    best = min(ranks)
    everyone_tied = len(set(ranks)) == 1
    out = {}
    for (members, rank), team in zip(match.sides, rated, strict=True):
        for member, rating in zip(members, team, strict=True):
            if is_bot(member):
                continue
            record = current.get(member) or {"games": 0, "wins": 0, "losses": 0, "draws": 0}
            outcome = "draws" if everyone_tied else "wins" if rank == best else "losses"
            out[member] = {"mu": rating.mu, "sigma": rating.sigma,
                           "ordinal": rating.ordinal(), "games": record["games"] + 1,
                           **{k: record[k] + (k == outcome) for k in
                              ("wins", "losses", "draws")}}
    return out


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
