"""Projection: fold a game's log into its current picture (DESIGN.md, Projection).

The picture (a ``Projection``) holds the platform's facts (seats, status, undo, whose decision
opened when) around the game's own state. Platform events are folded here; every other event is
the game's and goes to ``game.evolve``. Folding is pure, so the offline auditor uses it too; the
store I/O (snapshot + tail) is in ``Projector``.
"""

from __future__ import annotations

import logging
import pickle
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from events.store import EventStore, Snapshot, StoredEvent
from games import get_game
from games.core import SPECTATOR, Event, Game, plain_copy

log = logging.getLogger(__name__)

# Events the platform folds itself; everything else belongs to the game's rules.
PLATFORM_EVENTS = frozenset({
    "game_created", "seat_joined", "seat_left", "game_started", "game_finished", "seed_revealed",
    "clock_expired", "seat_replaced_by_bot", "seat_reclaimed",
    "undo_requested", "undo_accepted", "undo_declined", "rewound",
    "dispute_opened", "dispute_ruled",
})

# Platform events about the play rather than in it: filed by a seat, but not its move, so they
# never reopen its decision. Were they to, a seat could reset its own running clock at will by
# disputing or asking for a takeback (issue 9 item 4).
ASIDES = frozenset({"dispute_opened", "dispute_ruled", "undo_requested", "undo_accepted",
                    "undo_declined"})

# Platform events no takeback may cross (a game's deal and draws are its own undo barriers).
UNDO_BARRIERS = frozenset({"game_started", "game_finished", "seed_revealed"})

SNAPSHOT_EVERY = 25

# Command-id prefixes of commands the server sends on a seat's behalf (clock, bot).
MACHINE_COMMANDS = ("clock:", "bot:")

# Prefix of every command id a client chose (``p:<player id>:<its id>``): scoped to its sender,
# so no client can take a machine's id or another player's (issue 9 item 2).
CLIENT_COMMANDS = "p:"


def machine_command_id(kind: str, game_id: str, seat: int, since: int) -> str:
    """Deterministic id for a command the server sends for a seat, so a job run twice acts once."""
    return f"{kind}:{game_id}:{seat}:{since}"


def client_command_id(player_id: str, command_id: str) -> str:
    """The stored id of a command id a player's client chose: the same id from another player
    is another id, and none can equal a machine's (those never start with ``p:``)."""
    return f"{CLIENT_COMMANDS}{player_id}:{command_id}"


def is_platform_event(event_type: str) -> bool:
    return event_type in PLATFORM_EVENTS


@dataclass
class Projection:
    """A game as of ``version``: plain data, JSON-serializable as a snapshot."""

    data: dict[str, Any]
    # What was worked out from this version, by key (GameService.view_and_legal: once per
    # viewer, shared by a move's answer and the pictures its process's streams send). Keyed
    # with the version too: a projection is folded in place only while it is being built.
    worked_out: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)

    def once(self, key: Any, compute: Callable[[], Any]) -> Any:
        """``compute()``, kept for the next caller asking this version with ``key``; what it
        returns is shared, so read-only."""
        key = (self.data["version"], key)
        try:
            return self.worked_out[key]
        except KeyError:
            value = self.worked_out[key] = compute()
            return value

    # The fields, named for readers of the rest of the code.
    @property
    def version(self) -> int:
        return self.data["version"]

    @property
    def game(self) -> Game:
        return get_game(self.data["game"])

    @property
    def status(self) -> str:
        return self.data["status"]

    @property
    def state(self) -> dict[str, Any] | None:
        return self.data["state"]

    @property
    def position(self) -> int:
        """Game events in effect: the RNG index, unchanged by platform events and restored by
        a rewind, so a move repeated after a takeback meets the same random outcome."""
        return self.data["position"]

    @property
    def seats(self) -> list[dict[str, Any]]:
        return self.data["seats"]

    @property
    def opened(self) -> dict[str, dict[str, Any]]:
        """Seat -> {"since": version its current decision opened at, "kinds": [...]}."""
        return self.data["opened"]

    def deadline(self, seat: int) -> float | None:
        """When ``seat``'s open decision times out (epoch seconds), or None without a clock.

        Only a human playing their own seat has a clock; a bot (or a human's seat handed to
        one) answers by itself.
        """
        opened = self.opened.get(str(seat))
        info = self.seats[seat]
        if opened is None or info["kind"] != "human" or info.get("bot"):
            return None
        key = "reaction_seconds" if opened.get("clock") == "reaction" else "turn_seconds"
        seconds = self.data["options"].get(key, 0)
        return opened["at"] / 1000 + seconds if seconds else None

    def seat_of(self, player_id: str) -> int | None:
        for index, seat in enumerate(self.seats):
            if seat.get("player") == player_id:
                return index
        return None

    def copy(self) -> Projection:
        # pickle copies plain data several times faster than copy.deepcopy.
        return Projection(pickle.loads(pickle.dumps(self.data, pickle.HIGHEST_PROTOCOL)))

    def copy_for(self, events: list[StoredEvent]) -> Projection:
        """A copy to fold ``events`` into without changing this one.

        When none of them is a platform event (a move's batch, the usual append), folding
        changes in place only the game state, the seats' ``timeouts`` and the actors list
        (``apply``; ``_reopen`` puts a new ``opened`` in, reusing unchanged prompts as they are):
        those are copied and the rest is shared, read-only, a third of a full copy's cost
        (issue 13); the state by its game's ``copy_state``, which copies what ``evolve``
        changes. Otherwise a full copy."""
        if self.data["state"] is None or any(event.type in PLATFORM_EVENTS for event in events):
            return self.copy()
        data = dict(self.data)
        data["seats"] = [dict(seat) for seat in data["seats"]]
        data["actors"] = list(data.get("actors", ()))
        data["state"] = self.game.copy_state(data["state"])
        return Projection(data)


def empty() -> Projection:
    return Projection({"version": 0, "position": 0, "game": None, "status": "none",
                       "options": {}, "seats": [], "creator": None, "seed_sha256": None,
                       "state": None, "opened": {}, "undo": None, "result": None,
                       "created_at": None, "hash": None, "settled": True, "actors": []})


def apply(projection: Projection, event: StoredEvent, rewind_to: Projection | None = None,
          batch_end: bool = True) -> Projection:
    """Fold one stored event into ``projection`` (mutated and returned).

    One command appends a batch of events, and the game is only consistent between batches, so
    who must act (``opened``) is worked out at ``batch_end`` alone; mid-batch ``settled`` is
    False. A ``rewound`` event needs the projection as of its ``to_version``: the caller passes
    it as ``rewind_to`` (``Projector`` loads it; the offline auditor keeps history).
    """
    data = projection.data
    kind, payload = event.type, event.data
    actors = data.setdefault("actors", [])
    if event.seat not in actors and kind not in ASIDES:
        actors.append(event.seat)
    if kind == "rewound":
        if rewind_to is None:
            raise ValueError("a rewound event needs the projection it rewinds to")
        restored = rewind_to.copy().data
        restored["opened"] = {}  # every decision after a takeback is a new one
        restored["actors"] = actors
        projection.data = data = restored
    elif kind in PLATFORM_EVENTS:
        _apply_platform(data, kind, payload, event)
    else:
        game = get_game(data["game"])
        data["state"] = game.evolve(data["state"], Event(kind, payload))
        data["position"] += 1
        data["undo"] = None  # play moved on: a pending takeback request lapses
        if event.seat.isdigit() and not event.cmd.startswith(MACHINE_COMMANDS):
            # A player's own act ends a run of consecutive timeouts (workers issue).
            data["seats"][int(event.seat)]["timeouts"] = 0
    data["version"] = event.version
    data["hash"] = event.hash
    data["last_at"] = event.at  # when anything last happened (service.app.due: idle games)
    data["settled"] = batch_end
    if batch_end:
        _reopen(projection, event)
        data["actors"] = []
    return projection


def _apply_platform(data: dict[str, Any], kind: str, payload: dict[str, Any],
                    event: StoredEvent) -> None:
    if kind == "game_created":
        data.update(game=payload["game"], options=payload["options"], status="open",
                    creator=payload.get("creator"), seed_sha256=payload["seed_sha256"],
                    rules_version=payload.get("rules_version"), created_at=event.at,
                    rated=bool(payload.get("rated")),
                    seats=[{"kind": s["kind"], "level": s.get("level"), "player": None,
                            "bot": s.get("level") if s["kind"] == "bot" else None,
                            "think_ms": s.get("think_ms"), "timeouts": 0}
                           for s in payload["seats"]])
        data["state"] = None
    elif kind == "seat_joined":
        data["seats"][payload["seat"]]["player"] = payload["player"]
    elif kind == "seat_left":
        data["seats"][payload["seat"]]["player"] = None
    elif kind == "game_started":
        data["status"] = "running"
        data["state"] = get_game(data["game"]).initial_state()
    elif kind == "game_finished":
        data["status"] = "finished"
        data["result"] = payload["result"]
        data["opened"] = {}
    elif kind == "clock_expired":
        data["seats"][payload["seat"]]["timeouts"] += 1
    elif kind == "seat_replaced_by_bot":
        data["seats"][payload["seat"]]["bot"] = payload["level"]
    elif kind == "seat_reclaimed":
        seat = data["seats"][payload["seat"]]
        seat["bot"] = None
        seat["timeouts"] = 0
    elif kind == "undo_requested":
        data["undo"] = {"by": payload["seat"], "to_version": payload["to_version"],
                        "at_version": event.version, "at": event.at,
                        "waiting": payload.get("waiting", []), "accepted": []}
    elif kind == "undo_accepted" and data["undo"]:
        data["undo"]["accepted"].append(payload["seat"])
        data["undo"]["waiting"] = [s for s in data["undo"]["waiting"] if s != payload["seat"]]
    elif kind == "undo_declined":
        data["undo"] = None


def _reopen(projection: Projection, event: StoredEvent) -> None:
    """Keep, for each pending seat, the version at which its current decision opened.

    A decision reopens when the seat was not pending before, when the batch was the seat's own
    act, or when what it may send changed; another seat answering in the same reaction window
    leaves it alone (DESIGN.md, Workers).
    """
    data = projection.data
    state = data["state"]
    if state is None or data["status"] != "running":
        data["opened"] = {}
        return
    game = get_game(data["game"])
    pending = game.pending(state)
    before = data["opened"]
    opened = {}
    for seat, prompt in pending.items():
        key = str(seat)
        kinds = list(prompt.kinds)
        old = before.get(key)
        if old is None or key in data["actors"] or old["kinds"] != kinds:
            opened[key] = {"since": event.version, "at": event.at, "kinds": kinds,
                           "clock": prompt.clock, "label": prompt.label}
        else:
            opened[key] = old
    data["opened"] = opened


def fold(events: Iterable[StoredEvent], projection: Projection | None = None,
         history: dict[int, Projection] | None = None, upto: int | None = None) -> Projection:
    """Fold stored events purely, up to version ``upto`` if given; ``history`` (version ->
    projection copy) serves rewinds."""
    projection = projection or empty()
    history = history if history is not None else {}
    events = list(events)
    # Only the versions some rewind goes back to need keeping.
    targets = {e.data["to_version"] for e in events if e.type == "rewound"}
    for event, batch_end in with_batch_ends(events):
        if upto is not None and event.version > upto:
            break
        rewind_to = None
        if event.type == "rewound":
            rewind_to = history[event.data["to_version"]]
        apply(projection, event, rewind_to, batch_end)
        if event.version in targets:
            history[event.version] = projection.copy()
    return projection


def with_batch_ends(events: list[StoredEvent], following: StoredEvent | None = None
                    ) -> Iterator[tuple[StoredEvent, bool]]:
    """Pair each event with whether it closes its append batch (the next one has another cmd).

    ``following`` is the event after the list, if known; with none, the last event closes.
    """
    for index, event in enumerate(events):
        after = events[index + 1] if index + 1 < len(events) else following
        yield event, after is None or after.cmd != event.cmd


def taken_back_by(window: list[StoredEvent], target: int) -> StoredEvent | None:
    """The ``rewound`` of ``window`` (the events after version ``target``) that took
    ``target`` itself back, or None: one going back to an earlier version.

    Such a target is no position of the game as it stands. A takeback to it would redo the
    moves already taken back (another seat's among them) and hide again what that rewind
    showed everyone: in Mag Blast a fighter back in the returning zone, shown by a takeback,
    went back into its owner's hand. ``takeback_barrier`` cannot see that (a rewind is a
    platform event), so no takeback may land there."""
    return next((e for e in window
                 if e.type == "rewound" and e.data.get("to_version", target) < target), None)


def takeback_barrier(start: Projection, window: list[StoredEvent], requester: int,
                     rewind_to: Callable[[int], Projection]) -> StoredEvent | None:
    """The first event of ``window`` that a takeback by ``requester`` to ``start`` (the
    projection at the target version; ``window``, the events after it) may not cross, or None.

    That is an event of a barrier type (the platform's or the game's ``undo_barriers``), or one
    that brought into anyone's sight something the requester did not know then (``reveals``):
    taking it back would return, say, a card a bot played from its hand to that hand while
    everyone has seen it. What the requester alone knew (their own card, played) they may take
    back. ``rewind_to`` loads the projection an earlier ``rewound`` in the window goes back to.
    """
    game = start.game
    barriers = game.undo_barriers | UNDO_BARRIERS
    crossed = next((e for e in window if e.type in barriers), None)
    if crossed is not None:
        return crossed
    projection = start.copy()
    viewers: list[int | str] = [*range(len(projection.seats)), SPECTATOR]
    hidden = [game.secrets(projection.state, v) for v in viewers]
    for event, batch_end in with_batch_ends(window):
        rewind = rewind_to(event.data["to_version"]) if event.type == "rewound" else None
        apply(projection, event, rewind, batch_end)
        after = [game.secrets(projection.state, v) for v in viewers]
        if not is_platform_event(event.type):
            unknown = hidden[requester]
            played = Event(event.type, event.data)
            for viewer, before, now in zip(viewers, hidden, after, strict=True):
                if game.reveals(played, before, now, viewer) & unknown:
                    return event
        hidden = after
    return None


def fold_upto(events: list[StoredEvent], version: int) -> Projection:
    """The projection as of ``version`` from a full log (pure; used by replay and audit)."""
    history: dict[int, Projection] = {0: empty()}
    return fold(events, history=history, upto=version)


class Projector:
    """Loads projections from the store: the nearest snapshot, then the tail, folded; keeps a
    snapshot every ``snapshot_every`` events, so any version (latest, replayed, rewound to)
    costs at most that many events to fold."""

    def __init__(self, store: EventStore, snapshot_every: int = SNAPSHOT_EVERY):
        self.store = store
        self.snapshot_every = snapshot_every

    def load(self, game_id: str, base: Projection | None = None,
             upto: int | None = None, save: bool = True) -> Projection:
        """The projection at ``upto`` (default: latest), from the nearest snapshot at or below
        it. ``base`` is a newer cache (or ``empty()``) to start from instead."""
        if base is None:
            snapshot = self.store.load_snapshot(game_id, upto)
            base = Projection(snapshot.state) if snapshot else empty()
        # One event past ``upto`` tells whether ``upto`` closes its batch.
        tail = self.store.read(game_id, base.version + 1, None if upto is None else upto + 1)
        following = tail.pop() if upto is not None and tail and tail[-1].version > upto else None
        return self.extend(game_id, base, tail, snapshot=save, following=following)

    def extend(self, game_id: str, projection: Projection, tail: list[StoredEvent],
               snapshot: bool = True, following: StoredEvent | None = None) -> Projection:
        """Fold ``tail`` into ``projection`` (mutated); write the snapshots that fall due.

        A snapshot falls due at the first batch end past each multiple of ``snapshot_every``
        (a snapshot is only ever of a settled game), whether the fold is the live one or a
        replay of an old stretch that has none yet.
        """
        last_saved = projection.version
        for event, batch_end in with_batch_ends(tail, following):
            rewind_to = None
            if event.type == "rewound":
                rewind_to = self.load(game_id, upto=event.data["to_version"], save=snapshot)
            apply(projection, event, rewind_to, batch_end)
            if snapshot and batch_end and self._crossed_snapshot(last_saved, event.version):
                self._save_snapshot(game_id, projection)
                last_saved = event.version
        return projection

    def save_if_due(self, game_id: str, projection: Projection, before: int) -> None:
        """Save ``projection``'s snapshot if the batch that took it from version ``before``
        crossed a snapshot point: what ``extend`` does at a batch end, for a fold made with
        ``snapshot=False`` ahead of its append (a snapshot only of what the log holds)."""
        if self._crossed_snapshot(before, projection.version):
            self._save_snapshot(game_id, projection)

    def rebuild(self, game_id: str) -> Projection:
        """Fold the whole log from event 1, ignoring snapshots (checks snapshot consistency)."""
        return fold_upto(self.store.read(game_id), self.store.last_version(game_id))

    def _save_snapshot(self, game_id: str, projection: Projection) -> None:
        try:
            self.store.save_snapshot(game_id, Snapshot(projection.version,
                                                       plain_copy(projection.data)))
        except Exception as exc:  # a snapshot is a cache: the log it summarises is safe
            log.warning("snapshot of game %s at version %s not saved: %s: %s", game_id,
                        projection.version, type(exc).__name__, " ".join(str(exc).split()))

    def _crossed_snapshot(self, old: int, new: int) -> bool:
        return new // self.snapshot_every > old // self.snapshot_every
