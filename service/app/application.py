"""The application service (STYLE.md rule 8): the one place that reads, folds, decides, appends
and then schedules follow-up work. HTTP handlers and workers both call it; it imports no Flask."""

from __future__ import annotations

import hashlib
import logging
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Protocol

from marshmallow import ValidationError

from events.codec import command_digest
from events.projector import (
    Projection,
    Projector,
    client_command_id,
    is_platform_event,
    machine_command_id,
)
from events.store import (
    AppendResult,
    CommandReused,
    EventStore,
    GameArchived,
    GameNotFound,
    NewEvent,
    Outbox,
    StoredEvent,
    VersionConflict,
)
from games import REGISTRY, UNLISTED
from games.core import (
    AUDITOR,
    DEFAULT_THINK_MS,
    SPECTATOR,
    Command,
    Event,
    Game,
    Rejected,
    Rng,
    Text,
    Viewer,
)
from service.app.catalog import catalog
from service.app.due import Due, due_jobs, idle_at
from service.app.errors import (
    BadRequest,
    Conflict,
    Forbidden,
    NotFound,
    RuleViolation,
    StaleVersion,
)
from service.app.history import HistoryMixin
from service.app.outcome import Outcome
from service.runtime import metrics

log = logging.getLogger(__name__)

CACHE_SIZE = 2048


class FollowUps(Protocol):
    """What happens after an append: bot turns and turn clocks (workers issue). ``jobs`` is
    the projection's ``service.app.due.due_jobs``, worked out once for them and the due index."""

    def after_append(self, game_id: str, projection: Projection,
                     jobs: list[Due] | None = None) -> None: ...


class NoFollowUps:
    def after_append(self, game_id: str, projection: Projection,
                     jobs: list[Due] | None = None) -> None:
        return None


def new_game_id() -> str:
    return secrets.token_hex(6)


class GameService(HistoryMixin):
    """Games from creation to the end: lobby, views, commands, bots and clocks (history —
    replay, takebacks, explain, disputes, audit — comes from ``HistoryMixin``)."""

    def __init__(self, store: EventStore, followups: FollowUps | None = None,
                 lobby: Any = None, inbox: Any = None,
                 clock: Callable[[], float] = time.time,
                 seed_factory: Callable[[], str] = lambda: secrets.token_hex(32)):
        self.store = store
        self.projector = Projector(store)
        self.followups = followups or NoFollowUps()
        self.lobby = lobby
        self.inbox = inbox  # players' notices and webhooks (service.app.inbox), or None
        self.clock = clock
        self.seed_factory = seed_factory  # tests fix it to make whole games reproducible
        self._cache: OrderedDict[str, Projection] = OrderedDict()
        self._secrets: dict[str, str] = {}
        self._lock = threading.Lock()

    # --- reading ------------------------------------------------------------------------------

    def projection(self, game_id: str) -> Projection:
        """The latest projection: a cached one caught up with the log's tail (never mutated)."""
        with self._lock:
            cached = self._cache.get(game_id)
        if cached is None:
            projection = self.projector.load(game_id)
            if projection.version == 0:
                raise NotFound("game_not_found", "There is no game {game_id}.",
                                                 params={"game_id": game_id})
        else:
            tail = self.store.read(game_id, cached.version + 1)
            if not tail:
                return cached
            projection = self.projector.extend(game_id, cached.copy_for(tail), tail)
        self._remember(game_id, projection)
        return projection

    def projection_through(self, game_id: str, events: list[StoredEvent]) -> Projection:
        """The latest projection, at least at ``events``' last version: ``events`` (consecutive
        events just read from the log, a live feed's batch) are folded onto the cached one
        when it ends among or right before them, with no read of the log; otherwise as
        ``projection``. A stream's picture after each batch was a re-read per process."""
        with self._lock:
            cached = self._cache.get(game_id)
        if cached is None or not events or events[0].version > cached.version + 1:
            return self.projection(game_id)
        if cached.version >= events[-1].version:
            return cached
        tail = [e for e in events if e.version > cached.version]
        # No snapshot: the process that appended these saved any that fell due (save_if_due).
        projection = self.projector.extend(game_id, cached.copy_for(tail), tail, snapshot=False)
        self._remember(game_id, projection)
        return projection

    def cached_projection(self, game_id: str) -> Projection | None:
        """The projection this process last folded, without reading the store (it may be behind
        the log: for callers that learn the log's end elsewhere, e.g. a live feed)."""
        with self._lock:
            return self._cache.get(game_id)

    def _after(self, game_id: str, before: int, appended: list[StoredEvent]) -> Projection:
        """The projection after our own append: the cached one plus what we wrote, if we can."""
        with self._lock:
            cached = self._cache.get(game_id)
        if cached is None or cached.version != before:
            return self.projection(game_id)
        projection = self.projector.extend(game_id, cached.copy_for(appended), appended)
        self._remember(game_id, projection)
        return projection

    def _remember(self, game_id: str, projection: Projection) -> None:
        with self._lock:
            current = self._cache.get(game_id)
            if current is None or current.version < projection.version:
                self._cache[game_id] = projection
            self._cache.move_to_end(game_id)
            while len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)

    def replay(self, game_id: str, version: int) -> Projection:
        """The projection as it was at ``version`` (replay, explain)."""
        latest = self.projection(game_id)
        if not 1 <= version <= latest.version:
            raise NotFound("version_not_found",
                           "Game {game_id} has versions 1 to {latest}.",
                           params={"game_id": game_id, "latest": latest.version})
        return self.projector.load(game_id, base=None, upto=version)

    def seed(self, game_id: str) -> str:
        if game_id not in self._secrets:
            self._secrets[game_id] = self.store.secret(game_id)
        return self._secrets[game_id]

    def viewer_for(self, projection: Projection, player: dict[str, Any] | None) -> Viewer:
        """Which view a player gets: their seat, the auditor's, or a spectator's."""
        if player is None:
            return SPECTATOR
        seat = projection.seat_of(player["id"])
        if seat is not None:
            return seat
        if "auditor" in player.get("roles", []):
            return AUDITOR
        return SPECTATOR

    def describe(self, projection: Projection, viewer: Viewer) -> dict[str, Any]:
        """The caller's picture of a game: view, pending prompts, legal commands, version."""
        view, legal = self.view_and_legal(projection, viewer)
        return {
            "id": None,
            "game": projection.data["game"],
            "version": projection.version,
            "status": projection.status,
            "rated": bool(projection.data.get("rated")),
            "options": projection.game.shown_options(projection.data["options"]),
            "seats": self.seats_public(projection),
            "you": viewer if isinstance(viewer, int) else None,
            "view": view,
            "pending": self.pending_public(projection),
            "legal_commands": legal,
            "result": projection.data.get("result"),
            "undo": projection.data.get("undo"),
        }

    @staticmethod
    def view_and_legal(projection: Projection, viewer: Viewer) -> tuple[Any, list[Command]]:
        """What ``viewer`` sees of the game (None before it starts) and the commands it may
        send now (none unless it is a seat with a prompt, between batches)."""
        # Once per version and viewer in a process.
        return projection.once(("view_and_legal", viewer),
                               lambda: GameService.work_out_view_and_legal(projection, viewer))

    @staticmethod
    def work_out_view_and_legal(projection: Projection,
                                viewer: Viewer) -> tuple[Any, list[Command]]:
        """``view_and_legal`` worked out now, and not kept."""
        state = projection.state
        if state is None or projection.status == "open":
            return None, []
        game = projection.game
        legal: list[Command] = []
        if projection.data.get("settled", True) and isinstance(viewer, int) \
                and str(viewer) in projection.opened:
            legal = game.legal_commands(state, viewer)
        return game.view(state, viewer), legal

    def seats_public(self, projection: Projection) -> list[dict[str, Any]]:
        return [{"seat": i, "kind": s["kind"], "player": s.get("player"),
                 "level": s.get("level"), "bot": s.get("bot"), "timeouts": s.get("timeouts", 0)}
                for i, s in enumerate(projection.seats)]

    def pending_public(self, projection: Projection) -> dict[str, dict[str, Any]]:
        """Every pending seat's prompt with the version it opened at and its deadline (or None)."""
        return {seat: {"kinds": opened["kinds"], "since": opened["since"],
                       "clock": opened.get("clock", "turn"), "label": opened.get("label", ""),
                       "deadline": projection.deadline(int(seat))}
                for seat, opened in projection.opened.items()}

    def events_page(self, game_id: str, viewer: Viewer, first: int = 1,
                    last: int | None = None, limit: int = 200) -> list[dict[str, Any]]:
        """Stored events ``first..last`` as ``viewer`` may see them."""
        projection = self.projection(game_id)
        first = max(first, 1)
        last = min(last or projection.version, first + limit - 1)
        if last < first:
            return []
        return [self.public_event(projection.game, e, viewer)
                for e in self.store.read(game_id, first, last)]

    def public_event(self, game: Game, event: StoredEvent, viewer: Viewer) -> dict[str, Any]:
        """One event for a client: its version and type always; data only as the game allows."""
        out: dict[str, Any] = {"version": event.version, "type": event.type, "seat": event.seat,
                               "at": event.at}
        if event.command is not None and viewer in (AUDITOR, int(event.seat)):
            out["command"] = event.command
        if event.type == "game_created" and game.test_only_options:
            out["data"] = {**event.data, "options": game.shown_options(event.data["options"])}
            return out
        if is_platform_event(event.type) or viewer == AUDITOR:
            out["data"] = event.data
            return out
        shown = game.redact(Event(event.type, event.data), viewer)
        out["data"] = shown.data if shown is not None else None
        out["redacted"] = shown is None or shown.data != event.data
        return out

    # --- lobby --------------------------------------------------------------------------------

    def catalog(self) -> list[dict[str, Any]]:
        return catalog()

    def create_game(self, player_id: str, game_name: str, options: dict[str, Any] | None,
                    seats: list[dict[str, Any]], join: bool = True, unlisted: bool = True,
                    test_options: bool = True, rated: bool = False) -> str:
        """Create a game with seat slots (humans and bots); the creator takes a human seat.

        ``unlisted=False`` (the HTTP API's default) refuses the games kept for tests and
        benchmarks: ``tally`` takes a target of millions, a cost anyone could otherwise trigger.
        ``test_options=False`` (the same) refuses a game's test-only options (Mag Blast's
        stacked ``deal`` would let a creator choose everyone's hands).
        """
        game = REGISTRY.get(game_name)
        if game is None or (game_name in UNLISTED and not unlisted):
            raise BadRequest("unknown_game_type", "No game named {game_name!r} is hosted.",
                                                  params={"game_name": game_name},
                             details={"known": sorted(set(REGISTRY) - UNLISTED)})
        if not game.min_seats <= len(seats) <= game.max_seats:
            raise BadRequest("invalid_seat_count",
                             "{title} takes {min} to {max} seats.",
                             params={"title": game.title, "min": game.min_seats,
                                     "max": game.max_seats})
        for spec in seats:
            if spec["kind"] == "bot" and spec.get("level") not in game.bot_levels:
                raise BadRequest("unknown_bot_level",
                                 "{title} bots come in levels {levels}.",
                                 params={"title": game.title,
                                         "levels": ", ".join(game.bot_levels)})
        chosen = sorted(k for k in game.test_only_options if (options or {}).get(k) is not None)
        if chosen and not test_options:
            raise BadRequest("test_only_option",
                             "{options}: for tests and scenarios only.",
                             params={"options": ', '.join(chosen)},
                             details={"options": chosen})
        try:
            loaded = game.load_options(options)
            game.setup(len(seats), loaded, Rng("options-check"))
        except ValidationError as exc:
            raise BadRequest("invalid_options", "The game options are invalid.",
                             errors=exc.messages) from None
        except Rejected as exc:
            raise BadRequest("invalid_options", exc.message,
                             details={"rule": exc.code, **exc.details}) from None
        game_id = new_game_id()
        seed = self.seed_factory()
        seats_out = [{"kind": s["kind"], **({"level": s["level"]} if s["kind"] == "bot" else {}),
                      **({"think_ms": s["think_ms"]} if s.get("think_ms") else {})}
                     for s in seats]
        if self.lobby is not None:
            # Indexed before it exists (service/app/lobby.py): never in no index at all. Should the
            # create below fail, the reconcile pass drops the entry (the game is not found).
            self._best_effort("lobby index", game_id, self.lobby.register, game_id, game_name,
                              self.clock() * 1000)
        events = [NewEvent("game_created", {
            "game": game_name, "rules_version": game.rules_version, "options": loaded,
            "seats": seats_out, "creator": player_id,
            "seed_sha256": hashlib.sha256(seed.encode()).hexdigest(),
            **({"rated": True} if rated else {})})]  # service/app/ratings.py: rated games count
        humans = [i for i, s in enumerate(seats) if s["kind"] == "human"]
        if join and humans:
            events.append(NewEvent("seat_joined", {"seat": humans[0], "player": player_id}))
        # Meta, secret and first events in one step (issue 23 item 3): a create refused by an
        # outage leaves nothing, where it used to leave a meta and secret with no log.
        self._append(game_id, 0, events, None,
                     create=({"game": game_name, "created_by": player_id}, seed))
        projection = self.projection(game_id)
        if not humans:
            self._start(game_id, projection)
        return game_id

    def join(self, game_id: str, player_id: str, seat: int | None = None) -> Projection:
        projection = self.projection(game_id)
        if projection.status != "open":
            raise Conflict("game_not_open", "This game has already started.")
        if projection.seat_of(player_id) is not None:
            raise Conflict("already_seated", "You already have a seat in this game.")
        free = [i for i, s in enumerate(projection.seats)
                if s["kind"] == "human" and s.get("player") is None]
        if seat is None:
            if not free:
                raise Conflict("game_full", "Every human seat is taken.")
            seat = free[0]
        elif seat not in free:
            raise Conflict("seat_taken", "Seat {seat} is not a free human seat.",
                                         params={"seat": seat})
        self._append(game_id, projection.version,
                     [NewEvent("seat_joined", {"seat": seat, "player": player_id})], None)
        return self.projection(game_id)

    def leave(self, game_id: str, player_id: str) -> Projection:
        projection = self.projection(game_id)
        seat = projection.seat_of(player_id)
        if seat is None:
            raise Forbidden("not_seated", "You have no seat in this game.")
        if projection.status != "open":
            raise Conflict("game_not_open", "You cannot leave a game that has started.")
        self._append(game_id, projection.version,
                     [NewEvent("seat_left", {"seat": seat, "player": player_id})], None)
        return self.projection(game_id)

    def start(self, game_id: str, player_id: str) -> Projection:
        projection = self.projection(game_id)
        if projection.seat_of(player_id) is None:
            raise Forbidden("not_seated", "Only a seated player may start the game.")
        if projection.status != "open":
            raise Conflict("game_not_open", "This game has already started.")
        empty = [i for i, s in enumerate(projection.seats)
                 if s["kind"] == "human" and s.get("player") is None]
        if empty:
            # Words for people: seats counted from 1 (details keep the API's seat numbers).
            listed = ", ".join(str(i + 1) for i in empty)
            raise Conflict("seats_empty", Text.plural("Seat {seats} is still empty.",
                                                      "Seats {seats} are still empty.",
                                                      len(empty), seats=listed),
                           details={"seats": empty})
        self._start(game_id, projection)
        return self.projection(game_id)

    def _start(self, game_id: str, projection: Projection) -> None:
        game = projection.game
        setup = game.setup(len(projection.seats), projection.data["options"],
                           Rng.for_version(self.seed(game_id), 0))
        events = [NewEvent("game_started", {"seats": len(projection.seats)})]
        events += [NewEvent(e.type, e.data) for e in setup]
        self._append(game_id, projection.version, events, None)

    # --- playing ------------------------------------------------------------------------------

    def submit(self, game_id: str, player_id: str, command: Command, expected_version: int,
               command_id: str | None = None) -> Outcome:
        """A player's command for their own seat; a retried ``command_id`` gets its first answer.

        The id is the player's own: stored as ``p:<player>:<id>``, so it never meets another
        player's or a machine's, and sent again with another command it is refused (422
        ``idempotency_key_reused``, as the IETF Idempotency-Key draft has it).

        When the cached projection is at the version the client saw, it is decided on without
        reading the log first: if the log has moved on, the append's version check refuses it,
        which is the right answer (409) for a client at that version. One round trip a move.
        """
        with metrics.move_seconds("human").time():
            return self._submit_once(game_id, player_id, command, expected_version, command_id)

    def _submit_once(self, game_id: str, player_id: str, command: Command,
                     expected_version: int, command_id: str | None) -> Outcome:
        projection = self._cached_at(game_id, expected_version) or self.projection(game_id)
        key = client_command_id(player_id, command_id) if command_id else None
        digest = command_digest(command) if key else None
        try:
            return self._submit(game_id, player_id, command, expected_version, key, digest,
                                projection)
        except (Conflict, RuleViolation, BadRequest, Forbidden):
            # A retry of a command that was appended meets a newer version (or a state where
            # it is no longer legal): the first answer stands. The append script catches the
            # rest, so the happy path pays no extra round trip for this check.
            earlier = self._earlier(game_id, key, digest) if key else None
            if earlier:
                return earlier
            latest = self.projection(game_id)
            if latest.version != projection.version:
                raise StaleVersion("version_conflict",
                                 "The game moved on to version {latest}; re-read and retry.",
                                 params={"latest": latest.version},
                                 version=latest.version) from None
            raise

    def _submit(self, game_id: str, player_id: str, command: Command, expected_version: int,
                command_id: str | None, digest: str | None, projection: Projection) -> Outcome:
        seat = projection.seat_of(player_id)
        if seat is None:
            raise Forbidden("not_seated", "You have no seat in this game.")
        prefix: list[NewEvent] = []
        if projection.seats[seat].get("bot") and projection.seats[seat]["kind"] == "human":
            prefix.append(NewEvent("seat_reclaimed", {"seat": seat, "player": player_id},
                                   str(seat)))
        return self.act(game_id, seat, command, expected_version, command_id, prefix=prefix,
                        projection=projection, command_hash=digest)

    def _cached_at(self, game_id: str, version: int) -> Projection | None:
        with self._lock:
            cached = self._cache.get(game_id)
        return cached if cached is not None and cached.version == version else None

    def act(self, game_id: str, seat: int, command: Command, expected_version: int | None,
            command_id: str | None, prefix: list[NewEvent] | None = None,
            projection: Projection | None = None, command_hash: str | None = None) -> Outcome:
        """Decide ``command`` for ``seat`` and append its events (humans, bots and clocks).

        ``command_id`` is the stored id (a client's already scoped to its player);
        ``command_hash`` the digest of a client's command, to refuse its id reused for another.
        """
        projection = projection or self.projection(game_id)
        if expected_version is None:
            expected_version = projection.version
        if expected_version != projection.version:
            metrics.CONFLICTS.inc()
            raise StaleVersion("version_conflict",
                             "The game is at version {version}, not {expected_version}.",
                             params={"version": projection.version,
                                     "expected_version": expected_version},
                             version=projection.version)
        if projection.status != "running":
            code = "game_over" if projection.status == "finished" else "game_not_started"
            raise RuleViolation(code, "The game is not running.", version=projection.version,
                                legal_commands=[])
        game = projection.game
        rng = Rng.for_version(self.seed(game_id), projection.position)
        try:
            decided = game.decide(projection.state, command, seat, rng)
        except Rejected as exc:
            error = BadRequest if exc.code in ("unknown_command", "invalid_command") \
                else RuleViolation
            raise error(exc.code, exc.message, details=exc.details, version=projection.version,
                        legal_commands=game.legal_commands(projection.state, seat)) from None
        # The command as sent rides in the envelope of its first event (hash-chained), so an
        # auditor can re-run decide on it; only its sender sees it (it may name a hidden card).
        caused = [NewEvent(e.type, e.data, str(seat)) for e in decided]
        caused[0] = NewEvent(caused[0].type, caused[0].data, str(seat), command)
        events = [*(prefix or []), *caused]
        events += self._ending(game_id, projection, decided)
        return self._append(game_id, expected_version, events, command_id, command_hash,
                            projection=projection)

    def bot_move(self, game_id: str, seat: int, since: int, retries: int = 5) -> Outcome | None:
        """Play a bot seat's decision opened at ``since``; None when it is no longer pending.

        The bot sees only what a human in the seat would: its view, legal commands and (for
        a bot that reads it) its redacted log. Its command id is derived from (game, seat,
        since), so a job run twice acts once.
        """
        command_id = machine_command_id("bot", game_id, seat, since)

        def attempt(projection: Projection) -> Outcome | None:
            opened = projection.opened.get(str(seat))
            level = projection.seats[seat].get("bot") if projection.seats else None
            if projection.status != "running" or not opened or opened["since"] != since \
                    or not level:
                return None  # no_longer_pending: the seat already acted or is human again
            game = projection.game
            with metrics.move_seconds("bot").time():
                play = game.bot(level)
                events = self.game_log(game_id) if getattr(play, "reads_log", False) else ()
                think_ms = projection.seats[seat].get("think_ms") or DEFAULT_THINK_MS
                seen = game.seen(projection.state, seat, events, think_ms, live=True)
                command = play(seen, Rng(command_id))
                try:
                    outcome = self.act(game_id, seat, command, projection.version, command_id,
                                       projection=projection)
                except (RuleViolation, BadRequest):
                    # A bot bug must not stall the table: the seat's default move is legal.
                    log.exception("bot %s chose an illegal command in game %s", level, game_id)
                    outcome = self.act(game_id, seat,
                                       game.default_command(projection.state, seat),
                                       projection.version, command_id, projection=projection)
            metrics.BOT_TURN_SECONDS.observe(max(0.0, self.clock() - opened["at"] / 1000))
            return outcome

        return self._once(game_id, command_id, attempt, retries)

    def expire_clock(self, game_id: str, seat: int, since: int,
                     now: float | None = None, retries: int = 5) -> Outcome | None:
        """A seat's clock ran out: record it and play its default command (None if stale).

        After ``max_timeouts`` expiries in a row the seat is handed to a ``basic`` bot; the
        player takes it back by sending any command.
        """
        command_id = machine_command_id("clock", game_id, seat, since)

        def attempt(projection: Projection) -> Outcome | None:
            prompt = self.pending_public(projection).get(str(seat))
            if projection.status != "running" or not prompt or prompt["since"] != since \
                    or prompt["deadline"] is None:
                return None  # no_longer_pending: the seat acted, or its clock is off
            if (now if now is not None else self.clock()) < prompt["deadline"]:
                return None  # an early alarm; the scheduled one will come
            game = projection.game
            info = projection.seats[seat]
            prefix = [NewEvent("clock_expired", {"seat": seat, "since": since})]
            if info.get("timeouts", 0) + 1 >= projection.data["options"].get("max_timeouts", 3):
                level = "basic" if "basic" in game.bot_levels else game.bot_levels[0]
                prefix.append(NewEvent("seat_replaced_by_bot", {"seat": seat, "level": level}))
            command = game.default_command(projection.state, seat)
            with metrics.move_seconds("clock").time():
                outcome = self.act(game_id, seat, command, projection.version, command_id,
                                   prefix=prefix, projection=projection)
            metrics.CLOCK_LATENESS.observe(max(0.0, self.clock() - prompt["deadline"]))
            return outcome

        return self._once(game_id, command_id, attempt, retries)

    def hand_idle_game_to_bots(self, game_id: str, now: float | None = None) -> Outcome | None:
        """An idle game (service.app.due.idle_at: nothing happened for a day) has its human seats
        handed to bots, as events, so it finishes rather than stays running for ever (issue 23
        item 17); a player takes their seat back by sending any command. None when the game
        is not idle (any event since, or already handed over)."""
        projection = self.projection(game_id)
        due = idle_at(projection)
        if due is None or (now if now is not None else self.clock()) < due:
            return None
        game = projection.game
        level = "basic" if "basic" in game.bot_levels else game.bot_levels[0]
        events = [NewEvent("seat_replaced_by_bot", {"seat": seat, "level": level, "idle": True})
                  for seat, info in enumerate(projection.seats)
                  if info["kind"] == "human" and not info.get("bot")]
        log.warning("game %s idle since %s: %d human seats handed to bots", game_id,
                    projection.data.get("last_at"), len(events))
        try:
            return self._append(game_id, projection.version, events,
                                f"idle:{game_id}:{projection.version}")
        except Conflict:
            return None  # someone moved meanwhile: no longer idle

    def game_log(self, game_id: str) -> list[Event]:
        """The game's own events in force now, oldest first: a takeback (``rewound``) drops
        the events it undid; platform events are left out. Unredacted: callers redact."""
        kept: list[tuple[int, Event]] = []
        for stored in self.store.read(game_id):
            if stored.type == "rewound":
                kept = [(v, e) for v, e in kept if v <= stored.data["to_version"]]
            elif not is_platform_event(stored.type):
                kept.append((stored.version, Event(stored.type, stored.data)))
        return [event for _, event in kept]

    def _once(self, game_id: str, command_id: str,
              attempt: Callable[[Projection], Outcome | None], retries: int) -> Outcome | None:
        """Run a server-side move at most once: the first answer if ``command_id`` was already
        appended, else ``attempt`` on the latest projection, looking again after a conflict
        (another seat answered in the same reaction window)."""
        for _ in range(retries):
            earlier = self._earlier(game_id, command_id)
            if earlier:
                return earlier
            try:
                return attempt(self.projection(game_id))
            except Conflict:
                continue
        return None

    def _seat(self, projection: Projection, player_id: str) -> int:
        seat = projection.seat_of(player_id)
        if seat is None:
            raise Forbidden("not_seated", "You have no seat in this game.")
        return seat

    def _ending(self, game_id: str, projection: Projection, decided: list[Event]) -> list[NewEvent]:
        """``game_finished`` and ``seed_revealed`` when these events end the game."""
        game = projection.game
        state = game.fold(decided, game.copy_state(projection.state))
        result = game.result(state)
        if result is None:
            return []
        return [NewEvent("game_finished", {"result": result}),
                NewEvent("seed_revealed", {"seed": self.seed(game_id)})]

    def _earlier(self, game_id: str, command_id: str,
                 command_hash: str | None = None) -> Outcome | None:
        """The first answer to ``command_id`` (None if unseen); refused when it answered
        another command than the one hashed to ``command_hash``."""
        found = self.store.command_record(game_id, command_id)
        if not found:
            return None
        if command_hash and found.command_hash and found.command_hash != command_hash:
            raise _reused(found.first_version, found.last_version)
        first, last = found.first_version, found.last_version
        return Outcome(last, self.store.read(game_id, first, last), duplicate=True)

    def archive(self, game_id: str) -> bool:
        """Archive a finished game's log (events/archive.py) and take it off the archive-due
        index; whether it is archived. A game that is not finished is left alone."""
        projection = self.projection(game_id)
        if projection.status != "finished":
            return False
        done = self.store.archive(game_id)
        if done and self.lobby is not None:
            self.lobby.archived(game_id)
        return done

    @staticmethod
    def _best_effort(what: str, game_id: str, step: Callable[..., Any], *args: Any) -> None:
        try:
            step(*args)
        except Exception as exc:
            log.warning("%s of game %s not updated after its append: %s: %s", what, game_id,
                        type(exc).__name__, " ".join(str(exc).split()))

    def _append(self, game_id: str, expected_version: int, events: list[NewEvent],
                command_id: str | None, command_hash: str | None = None,
                projection: Projection | None = None,
                create: tuple[dict[str, str], str] | None = None) -> Outcome:
        """Append ``events``, then bring indexes, jobs and players' notices up to date.

        ``create``: the events are a new game's first; its (meta, secret) are stored with them.

        ``projection``, the game at ``expected_version``, lets the notices of a move ride on
        the append's own round trip (the store's outbox): the events' versions, times and
        hashes are known before they are sent, so the projection after them is too.
        """
        # Every append has a command id: it marks where one batch ends and the next begins.
        command_id = command_id or "auto:" + secrets.token_hex(8)
        ahead: list[tuple[Projection, Any]] = []  # (projection after, staged notices)
        extra: dict[str, Any] = {}
        # A platform event (a start, an end...) updates the lobby's rows, which a player told
        # of it may read next: its notices keep going after those writes.
        if projection is not None and self.inbox is not None and \
                not any(is_platform_event(e.type) for e in events):
            extra["outbox"] = lambda stored: self._outbox(game_id, projection, stored, ahead)
        try:
            if create is not None:
                extra.update(meta=create[0], new_secret=create[1])
            result: AppendResult = self.store.append(game_id, expected_version, events,
                                                     command_id, command_hash=command_hash,
                                                     **extra)
        except CommandReused as exc:
            raise _reused(exc.first_version, exc.last_version) from None
        except VersionConflict as exc:
            metrics.CONFLICTS.inc()
            raise StaleVersion("version_conflict",
                             "The game moved on to version {version}; re-read and retry.",
                             params={"version": exc.actual},
                             version=exc.actual) from None
        except GameNotFound:
            raise NotFound("game_not_found", "There is no game {game_id}.",
                                             params={"game_id": game_id}) from None
        except GameArchived:
            raise Conflict("game_archived",
                           "This game is over and archived: it can be read, replayed and "
                           "audited, but nothing more is added to it (disputes are taken "
                           "until it is archived).") from None
        if result.duplicate:
            appended = self.store.read(game_id, result.first_version, result.last_version)
            return Outcome(result.last_version, appended, duplicate=True)
        metrics.APPENDS.inc()
        appended = list(result.events)
        staged = None
        if ahead:
            projection, staged = ahead[0]
            self.projector.save_if_due(game_id, projection, expected_version)
            self._remember(game_id, projection)
        else:
            projection = self._after(game_id, result.first_version - 1, appended)
        # The append is committed: what follows is best effort and must not turn the move's
        # success into an error (issue 9 item 6). The indexes are a cache of the log that the
        # sweeper's reconcile pass repairs (service/app/lobby.py); bots and clocks are re-issued
        # by the sweeper if this fails.
        # What the game now waits for, worked out once for the due index and the jobs.
        try:
            jobs = due_jobs(projection)
        except Exception:  # each works it out again, under its own best effort
            log.warning("due jobs of game %s not worked out", game_id, exc_info=True)
            jobs = None
        if self.lobby is not None:
            self._best_effort("game indexes", game_id, self.lobby.after_append, game_id,
                              projection, appended, jobs)
        self._best_effort("follow-ups", game_id, self.followups.after_append, game_id,
                          projection, jobs)
        if self.inbox is not None and not ahead:
            self._best_effort("inbox", game_id, self.inbox.after_append, game_id, projection,
                              appended)
        elif staged is not None and result.outbox is not None:
            self._best_effort("webhooks", game_id, self.inbox.published, staged,
                              list(result.outbox.ids), result.outbox.reads)
        elif staged is not None:
            self._best_effort("inbox", game_id, self.inbox.publish, staged.items)
        return Outcome(result.last_version, appended, projection=projection)

    def _outbox(self, game_id: str, before: Projection, stored: tuple[StoredEvent, ...],
                ahead: list[tuple[Projection, Any]]) -> Outbox | None:
        """The notices of an append about to be sent, as its outbox (store.append calls this);
        ``ahead`` gets the projection after the append and the staged notices."""
        try:
            # No snapshot yet: the append may still be refused (saved after it, in _append).
            events = list(stored)
            after = self.projector.extend(game_id, before.copy_for(events), events,
                                          snapshot=False)
            staged = self.inbox.staged_after(game_id, after, events)
        except Exception:
            log.warning("notices of game %s not staged before its append", game_id,
                        exc_info=True)
            return None  # after the append, as without an outbox
        ahead[:] = [(after, staged)]
        return staged.writes if staged is not None else None


def _reused(first: int, last: int) -> RuleViolation:
    return RuleViolation("idempotency_key_reused",
                         "This command_id was already used for another command; use a new id "
                         "for a new command, the same body for a retry.",
                         details={"versions": [first, last]})
