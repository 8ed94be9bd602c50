"""The offline audit (issue 4): export a game as a self-contained transcript, and verify one.

Pure Python over ``games`` and the projector: no Redis, no Flask. ``verify`` checks the hash
chain, the seed against its commitment, that re-running ``setup`` and ``decide`` on every
recorded command at its version reproduces exactly the recorded events, and the final result.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import zip_longest
from typing import Any

from events.codec import canonical, verify_chain
from events.projector import (
    PLATFORM_EVENTS,
    UNDO_BARRIERS,
    Projection,
    apply,
    empty,
    takeback_barrier,
    taken_back_by,
    with_batch_ends,
)
from events.store import StoredEvent
from games import REGISTRY
from games.core import Event, Game, Rejected, Rng

FORMAT = "tablestream-audit/1"
# The reason given when nothing is wrong but the seed is missing (the game is not over).
NO_SEED = ("the seed is not revealed yet, so random outcomes and rule checks could not be "
           "re-run (chain and fold verified)")


def transcript(game_id: str, events: list[StoredEvent], seed: str | None) -> dict[str, Any]:
    """Return the self-contained audit transcript of a game from its whole log and seed."""
    created = next((e for e in events if e.type == "game_created"), None)
    head = created.data if created is not None else {}
    finished = next((e for e in events if e.type == "game_finished"), None)
    if seed is None:
        # Once revealed the seed is in the log anyway; the transcript carries it either way.
        seed = next((e.data.get("seed") for e in events if e.type == "seed_revealed"), None)
    return {
        "format": FORMAT,
        "game_id": game_id,
        "game": head.get("game"),
        "rules_version": head.get("rules_version"),
        "options": head.get("options"),
        "seats": head.get("seats"),
        "seed": seed,
        "seed_sha256": head.get("seed_sha256"),
        "result": finished.data.get("result") if finished is not None else None,
        "events": [e.to_dict() for e in events],
        "commands": _commands(events),
    }


def _commands(events: list[StoredEvent]) -> list[dict[str, Any]]:
    """The transcript's ``commands`` array: a reader's index of the commands the events'
    envelopes carry (verify checks that it says exactly what they say)."""
    return [{"version": e.version, "seat": e.seat, "cmd": e.cmd, "command": e.command}
            for e in events if e.command is not None]


@dataclass
class Finding:
    """The verdict on a transcript: ok, or the first bad version and why."""

    ok: bool
    version: int | None
    reason: str
    events: int = 0
    commands: int = 0
    checks: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        if self.ok:
            return f"OK: {self.reason}"
        where = f"version {self.version}: " if self.version is not None else ""
        return f"{where}{self.reason}"


class _Bad(Exception):
    """A failed check at ``version``: ends the re-run, since the state after it means nothing."""

    def __init__(self, version: int | None, reason: str):
        super().__init__(reason)
        self.version = version
        self.reason = reason


def verify(transcript: dict[str, Any]) -> Finding:
    """Verify a whole transcript; the first failure (lowest version) with its reason."""
    return _verify(transcript, None)


def verify_version(transcript: dict[str, Any], version: int) -> Finding:
    """Verify a transcript up to and including the move (append batch) containing ``version``."""
    return _verify(transcript, version)


# --- the checks ---------------------------------------------------------------------------------


def _same(a: Any, b: Any) -> bool:
    """Equal as stored JSON: decided data may hold tuples or int keys the log holds as JSON."""
    try:
        return canonical(a) == canonical(b)
    except (TypeError, ValueError):
        return False


def _plain(obj: Any) -> Any:
    return json.loads(canonical(obj))


def _verify(raw: dict[str, Any], upto: int | None) -> Finding:
    failures: list[tuple[int, int, str]] = []  # (version, phase, reason): lowest version wins
    checks: list[str] = []
    try:
        # A private JSON copy: evolve may keep (and later mutate) event data inside its state,
        # and the caller's transcript must come back untouched.
        doc = _plain(raw)
        events = [StoredEvent.from_dict(e) for e in doc["events"]]
    except (KeyError, TypeError, ValueError) as exc:
        return Finding(False, None, f"not a transcript: {exc!r}")
    if doc.get("format") != FORMAT:
        return Finding(False, None, f"unknown transcript format {doc.get('format')!r}")
    if not events:
        return Finding(False, None, "the transcript has no events")

    if upto is not None:
        if not 1 <= upto <= len(events):
            return Finding(False, upto, f"the transcript has no version {upto}", len(events))
        # By position: if versions are out of place, the chain check below names where.
        # Include the rest of the batch: a move is only consistent as a whole.
        end = upto
        while end < len(events) and events[end].cmd == events[upto - 1].cmd:
            end += 1
        events = events[:end]

    # (a) The hash chain, which also proves versions start at 1 and run without gaps.
    bad_chain = verify_chain(events)
    if bad_chain is not None:
        failures.append((bad_chain, 0, "hash chain broken (the event there was edited, "
                                       "dropped, moved or inserted)"))
        intact = events[:bad_chain - 1]
        # The batch cut by the break is incomplete, so re-running it would blame the cut.
        if intact and bad_chain - 1 < len(events) and events[bad_chain - 1].cmd == intact[-1].cmd:
            cut = intact[-1].cmd
            while intact and intact[-1].cmd == cut:
                intact.pop()
    else:
        intact = events
        checks.append(f"hash chain intact over versions 1 to {events[-1].version}")

    # (b) The header against game_created, and the seed against its commitment.
    created = events[0]
    seed = doc.get("seed")
    if seed is None:
        # A transcript exported before the end may lack it; a revealed one in the log will do.
        seed = next((e.data.get("seed") for e in events if e.type == "seed_revealed"), None)
    if created.type != "game_created" or created.version != 1:
        failures.append((1, 1, "the log does not begin with game_created"))
        return _first(failures, checks, len(events), 0)
    head = created.data
    for name in ("game", "rules_version", "options", "seats", "seed_sha256"):
        if not _same(doc.get(name), head.get(name)):
            failures.append((1, 1, f"the transcript's {name} differs from game_created's"))
    if seed is None:
        checks.append("the seed is not revealed: random outcomes and rule checks not re-run")
    elif hashlib.sha256(str(seed).encode()).hexdigest() != head.get("seed_sha256"):
        failures.append((1, 1, "the seed does not match its commitment (seed_sha256 in "
                               "game_created)"))
    else:
        checks.append("the seed matches its commitment in game_created")
    game = REGISTRY.get(str(head.get("game")))
    if game is None:
        failures.append((1, 1, f"no rules for game {head.get('game')!r} here"))
        return _first(failures, checks, len(events), 0)
    if head.get("rules_version") != game.rules_version:
        failures.append((1, 1, f"recorded under {game.name} rules version "
                               f"{head.get('rules_version')!r}, this verifier has "
                               f"{game.rules_version!r}"))

    # The commands array is only an index of the envelopes' commands, but a reader may trust
    # it: it must say what the hash-chained envelopes say (issue 23 item 13).
    listed = _plain(doc.get("commands", []))
    recorded = _plain(_commands(events))
    if upto is not None:
        listed = listed[:len(recorded)]
    wrong = next((entry or {"version": events[-1].version} for entry, said in
                  zip_longest(recorded, listed) if entry != said), None)
    if wrong is not None:
        # Last of the reasons at one version: a re-run's finding there says more.
        failures.append((wrong["version"], 4, "the transcript's commands array differs from "
                                              "the commands the events' envelopes record"))
    else:
        checks.append("the commands array matches the events' envelopes")

    # (c) + (d) Re-run the rules over the complete batches the chain vouches for.
    rerun = _Rerun(game, seed, intact)
    try:
        rerun.run()
    except _Bad as bad:
        failures.append((bad.version if bad.version is not None else 0, 2, bad.reason))
    checks.extend(rerun.checks)

    # The transcript's own result must be the one the log records (whole transcripts only).
    if upto is None and bad_chain is None:
        finished = next((e for e in events if e.type == "game_finished"), None)
        recorded = finished.data.get("result") if finished is not None else None
        if not _same(doc.get("result"), recorded):
            where = finished.version if finished is not None else events[-1].version
            failures.append((where, 3, "the transcript's result differs from the recorded "
                                       "game_finished"))
        elif recorded is not None:
            checks.append("the transcript's result is the recorded one")
    if failures:
        return _first(failures, checks, len(events), rerun.commands)
    if seed is None:
        return Finding(False, None, NO_SEED, len(events), 0, checks)
    scope = f"versions 1 to {events[-1].version}"
    return Finding(True, None, f"{len(events)} events ({scope}) and {rerun.commands} commands "
                               "reproduced", len(events), rerun.commands, checks)


def _first(failures: list[tuple[int, int, str]], checks: list[str], events: int,
           commands: int) -> Finding:
    version, _, reason = min(failures)
    return Finding(False, version or None, reason, events, commands, checks)


def _batches(events: list[StoredEvent]) -> Iterator[list[StoredEvent]]:
    """The log cut into its append batches (one cmd id each)."""
    batch: list[StoredEvent] = []
    for event, end in with_batch_ends(events):
        batch.append(event)
        if end:
            yield batch
            batch = []


class _Rerun:
    """Folds a log batch by batch, re-deciding every recorded command and the setup."""

    def __init__(self, game: Game, seed: str | None, events: list[StoredEvent]):
        self.game = game
        self.seed = None if seed is None else str(seed)
        self.events = events
        self.commands = 0
        self.setups = 0
        self.checks: list[str] = []
        self.projection = empty()
        # Rewinds need the projection as of their target; keep copies of those versions only.
        self.targets = {e.data.get("to_version") for e in events if e.type == "rewound"}
        self.history: dict[Any, Projection] = {0: empty()}
        self.started = False
        self.finished: StoredEvent | None = None
        self.revealed = False

    def run(self) -> None:
        for batch in _batches(self.events):
            self._batch(batch)
        if self.seed is not None:
            self.checks.append(f"setup and {self.commands} commands re-run with the seed: every "
                               "shuffle, draw, roll and rule check reproduced the recorded events")
        else:
            self.checks.append(f"{self.commands} commands folded without the seed")
        if self.finished is not None:
            self.checks.append("the recorded result is what the rules give for the final state")

    def _batch(self, batch: list[StoredEvent]) -> None:
        has_start = any(e.type == "game_started" for e in batch)
        setup_checked = False
        for index, event in enumerate(batch):
            is_game = event.type not in PLATFORM_EVENTS
            if event.command is not None and not (
                    is_game and (index == 0 or batch[index - 1].type in PLATFORM_EVENTS)):
                raise _Bad(event.version, "a command is recorded on an event that is not the "
                                          "first game event of its move")
            if is_game and (index == 0 or batch[index - 1].type in PLATFORM_EVENTS):
                run = []
                for later in batch[index:]:
                    if later.type in PLATFORM_EVENTS:
                        break
                    run.append(later)
                if event.command is not None:
                    self._decide(event, run)
                elif has_start and not setup_checked and self.started:
                    self._setup(event.version, run)
                    setup_checked = True
                else:
                    raise _Bad(event.version, f"game event {event.type} was caused by no "
                                              "recorded command")
            self._platform_checks(event)
            self._apply(event, index == len(batch) - 1)
            if event.type == "game_started":
                self.started = True
        if has_start and not setup_checked:
            self._setup(batch[-1].version + 1, [])
        self._end_checks(batch)

    def _apply(self, event: StoredEvent, batch_end: bool) -> None:
        rewind_to = None
        if event.type == "rewound":
            target = event.data.get("to_version")
            if not isinstance(target, int) or target not in self.history \
                    or target >= event.version:
                raise _Bad(event.version, f"rewound to {target!r}, which is no earlier version")
            rewind_to = self.history[target]
            self._check_rewind(event, target)
        if event.type not in PLATFORM_EVENTS and not self.started:
            raise _Bad(event.version, f"game event {event.type} before game_started")
        try:
            apply(self.projection, event, rewind_to, batch_end)
        except Exception as exc:  # a tampered payload may break evolve in any way
            raise _Bad(event.version, f"{event.type} cannot be applied: {exc!r}") from None
        if event.version in self.targets:
            self.history[event.version] = self.projection.copy()

    def _check_rewind(self, event: StoredEvent, target: int) -> None:
        """A takeback lands between moves and never crosses hidden information or randomness."""
        # The chain vouched for the versions, so version v sits at index v - 1.
        if self.events[target - 1].cmd == self.events[target].cmd:
            raise _Bad(event.version, f"rewound into the middle of the move at {target}")
        barriers = self.game.undo_barriers | UNDO_BARRIERS
        window = self.events[target:event.version - 1]
        undone = taken_back_by(window, target)
        if undone is not None:
            raise _Bad(event.version, f"rewound to {target}, which the rewind at version "
                                      f"{undone.version} had taken back")
        for crossed in window:
            if crossed.type in barriers:
                raise _Bad(event.version, f"rewound across {crossed.type} at version "
                                          f"{crossed.version}, which no takeback may cross")
        asked = next((e for e in reversed(window) if e.type == "undo_requested"), None)
        seat = asked.data.get("seat") if asked is not None else None
        if not isinstance(seat, int) or not 0 <= seat < len(self.projection.seats):
            raise _Bad(event.version, "rewound with no takeback request by a seat before it")
        try:
            crossed = takeback_barrier(self.history[target], window, seat,
                                       lambda version: self.history[version])
        except Exception as exc:  # a tampered payload may break the fold in any way
            raise _Bad(event.version, f"the takeback cannot be checked: {exc!r}") from None
        if crossed is not None:
            raise _Bad(event.version, f"rewound across {crossed.type} at version "
                                      f"{crossed.version}, which showed someone what the "
                                      "requester did not know")

    def _platform_checks(self, event: StoredEvent) -> None:
        if event.type == "game_created" and event.version != 1:
            raise _Bad(event.version, "a second game_created")
        if event.type == "game_started":
            if self.started:
                raise _Bad(event.version, "a second game_started")
            seats = len(self.projection.seats)
            if event.data.get("seats") != seats:
                raise _Bad(event.version, f"game_started says {event.data.get('seats')!r} "
                                          f"seats, game_created has {seats}")
        elif event.type == "clock_expired":
            # The service records an expiry only for the seat's open decision (expire_clock).
            opened = self.projection.opened.get(str(event.data.get("seat")))
            if opened is None or opened.get("since") != event.data.get("since"):
                raise _Bad(event.version, f"clock_expired for seat {event.data.get('seat')!r}, "
                                          "which had no such decision open")
        elif event.type == "game_finished":
            state = self.projection.state
            expected = self.game.result(state) if state is not None else None
            if self.finished is not None:
                raise _Bad(event.version, "a second game_finished")
            if expected is None:
                raise _Bad(event.version, "game_finished while the rules say the game is "
                                          "still running")
            if not _same(event.data.get("result"), expected):
                raise _Bad(event.version, "the recorded result differs from what the rules "
                                          "give for the final state")
            self.finished = event
        elif event.type == "seed_revealed":
            if self.seed is not None and event.data.get("seed") != self.seed:
                raise _Bad(event.version, "the revealed seed differs from the transcript's")
            self.revealed = True

    def _end_checks(self, batch: list[StoredEvent]) -> None:
        if self.finished in batch and not self.revealed:
            raise _Bad(batch[-1].version, "the game finished but its seed was not revealed")
        state = self.projection.state
        if state is None or self.finished is not None:
            return
        if any(e.type not in PLATFORM_EVENTS for e in batch) \
                and self.game.result(state) is not None:
            raise _Bad(batch[-1].version, "the game ended here but no game_finished was "
                                          "recorded")

    def _setup(self, version: int, run: list[StoredEvent]) -> None:
        if self.seed is None:
            return
        seats = len(self.projection.seats)
        try:
            expected = self.game.setup(seats, self.projection.data["options"],
                                       Rng.for_version(self.seed, 0))
        except Exception as exc:  # tampered options may break setup
            raise _Bad(version, f"setup fails on the recorded options: {exc!r}") from None
        self._compare(version, run, expected, "setup")
        self.setups += 1

    def _decide(self, event: StoredEvent, run: list[StoredEvent]) -> None:
        if not event.seat.isdigit():
            raise _Bad(event.version, f"a command recorded for seat {event.seat!r}")
        self.commands += 1
        if self.seed is not None:
            self._redecide(event, run, self.seed)
        # Every event a command caused carries its sender's seat (GameService.act).
        for other in run:
            if other.seat != event.seat:
                raise _Bad(other.version, f"recorded for seat {other.seat}, its command came "
                                          f"from seat {event.seat}")

    def _redecide(self, event: StoredEvent, run: list[StoredEvent], seed: str) -> None:
        command = event.command
        state = self.projection.state
        if state is None:
            raise _Bad(event.version, "a command before the game started")
        kind = command.get("type") if isinstance(command, dict) else None
        rng = Rng.for_version(seed, self.projection.position)
        try:
            expected = self.game.decide(state, command, int(event.seat), rng)
        except Rejected as exc:
            raise _Bad(event.version, f"the recorded command {kind} is illegal: {exc.code} "
                                      f"({exc.message})") from None
        except Exception as exc:  # a tampered command may break the rules code in any way
            raise _Bad(event.version, f"the recorded command {kind} breaks the rules code: "
                                      f"{exc!r}") from None
        self._compare(event.version, run, expected, str(kind))

    def _compare(self, first: int, run: list[StoredEvent], expected: list[Event],
                 what: str) -> None:
        for offset in range(max(len(run), len(expected))):
            got = run[offset] if offset < len(run) else None
            want = expected[offset] if offset < len(expected) else None
            if got is None or want is None or got.type != want.type \
                    or not _same(got.data, want.data):
                version = got.version if got is not None else first + len(run)
                detail = (f"{len(expected)} events decided, {len(run)} recorded"
                          if got is None or want is None
                          else f"recorded {got.type}, the rules decide {want.type}"
                          if got.type != want.type else f"{got.type} data differs")
                raise _Bad(version, f"the recorded events differ from what the rules decide "
                                    f"for {what} ({detail})")
