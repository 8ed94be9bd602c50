"""Replay, takebacks, explain, disputes and the audit transcript: the history half of the
application service (issue 4). ``GameService`` mixes it in; it uses only the service's own
reading and appending methods."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

from events.audit import transcript, verify_version
from events.projector import (
    UNDO_BARRIERS,
    Projection,
    machine_command_id,
    takeback_barrier,
    taken_back_by,
)
from events.store import NewEvent, StoredEvent
from games.core import AUDITOR, Text, Viewer
from service.app.errors import Conflict, Forbidden, NotFound, RuleViolation
from service.app.outcome import Outcome

log = logging.getLogger(__name__)

# Events read per round trip when walking back through the log (takebacks), and on each side
# of a version when finding its batch (explain: batches are a few events).
WINDOW = 64
BATCH_WINDOW = 8
# How far back a takeback may reach: it is for the move just made, and reading and checking
# the stretch it crosses must stay cheap for whoever asks.
MAX_TAKEBACK = 500


class HistoryMixin:
    def replay_view(self, game_id: str, version: int, viewer: Viewer) -> dict[str, Any]:
        """``viewer``'s picture of the game as it was at ``version``."""
        latest = self.projection(game_id)
        past = self.replay(game_id, version)
        body = self.describe(past, viewer)
        body["legal_commands"] = []  # history: nothing can be sent to it
        if past.state is not None and past.status != "open":
            over = latest.status == "finished"
            body["view"] = past.game.replay_view(past.state, viewer, over)
        return body

    def request_undo(self, game_id: str, player_id: str, to_version: int | None = None
                     ) -> Outcome:
        """A seat asks to take back its own last move(s) to ``to_version``.

        Refused across anything that revealed hidden information or randomness
        (``takeback_barrier``), and to a version an earlier takeback took back
        (``taken_back_by``: that would be a redo). Granted at once when no other human must
        agree (bots consent); otherwise every other human seat must accept. Reads only the
        stretch of the log being taken back (plus the snapshot before it), never the whole log.
        """
        projection = self.projection(game_id)
        seat = self._seat(projection, player_id)
        to_version, waiting = self._plan_undo(game_id, projection, seat, to_version)
        batch = [NewEvent("undo_requested", {"seat": seat, "to_version": to_version,
                                             "waiting": waiting}, str(seat))]
        if not waiting:
            batch.append(NewEvent("rewound", {"to_version": to_version}))
        return self._append(game_id, projection.version, batch, None)

    def undo_check(self, game_id: str, player_id: str) -> dict[str, Any]:
        """Whether the player may ask for a takeback of its last move now, before it asks: the
        version it would go back to and who must agree, or the refusal's code and words."""
        projection = self.projection(game_id)
        seat = self._seat(projection, player_id)
        try:
            to_version, waiting = self._plan_undo(game_id, projection, seat, None)
        except (RuleViolation, Conflict) as refused:
            return {"possible": False, "to_version": None, "waiting": [],
                    "code": refused.code, "detail": refused.detail}
        return {"possible": True, "to_version": to_version, "waiting": waiting, "code": None,
                "detail": None}

    def _plan_undo(self, game_id: str, projection: Projection, seat: int,
                   to_version: int | None) -> tuple[int, list[int]]:
        """The version a takeback by ``seat`` lands on and the seats that must accept it;
        raises the refusal ``request_undo`` answers with."""
        if projection.status != "running":
            raise RuleViolation("game_not_running", "Only a running game can be taken back.")
        if projection.data.get("undo"):
            raise Conflict("undo_pending", "A takeback request is already waiting for answers.")
        if to_version is None:
            to_version = self._last_own_move(game_id, projection, seat) - 1
        lowest = max(1, projection.version - MAX_TAKEBACK)
        if not lowest <= to_version < projection.version:
            raise RuleViolation("invalid_undo_target",
                                "Choose a version between {lowest} and {highest}.",
                                params={"lowest": lowest, "highest": projection.version - 1})
        window = self.store.read(game_id, to_version, projection.version)
        self._check_undo_target(game_id, window, seat, to_version)
        waiting = [i for i, s in enumerate(projection.seats)
                   if i != seat and s["kind"] == "human" and not s.get("bot")]
        return to_version, waiting

    def _backwards(self, game_id: str, last: int) -> Iterator[StoredEvent]:
        """The log from ``last`` down to version 1, newest first, read ``WINDOW`` at a time."""
        while last >= 1:
            chunk = self.store.read(game_id, max(1, last - WINDOW + 1), last)
            yield from reversed(chunk)
            last -= WINDOW

    def _last_own_move(self, game_id: str, projection: Projection, seat: int) -> int:
        """The version of ``seat``'s last move still in effect (moves already taken back do
        not count), walking back no further than the nearest barrier."""
        barriers = projection.game.undo_barriers | UNDO_BARRIERS
        taken_back_above: int | None = None
        for event in self._backwards(game_id, projection.version):
            if event.version < projection.version - MAX_TAKEBACK:
                break
            if taken_back_above is not None and event.version > taken_back_above:
                continue
            taken_back_above = None
            if event.type == "rewound":
                taken_back_above = event.data["to_version"]
            elif event.command is not None and event.seat == str(seat):
                return event.version
            elif event.type == "game_started":
                break
            elif event.type in barriers:
                raise RuleViolation(
                    "undo_past_hidden_information",
                    "Version {version} ({type}) revealed hidden information or randomness; no "
                    "takeback can cross it.",
                    params={"version": event.version, "type": event.type},
                    details={"version": event.version})
        raise RuleViolation("nothing_to_undo", "You have made no move to take back.")

    def _check_undo_target(self, game_id: str, window: list[StoredEvent], seat: int,
                           to_version: int) -> None:
        """``window`` is the log from ``to_version`` to the latest version."""
        target, later = window[0], window[1:]
        if later and later[0].cmd == target.cmd:
            raise RuleViolation("invalid_undo_target",
                                "Version {to_version} is in the middle of a move.",
                                params={"to_version": to_version})
        undone = taken_back_by(later, to_version)
        if undone is not None:
            raise RuleViolation("invalid_undo_target",
                                "Version {to_version} was taken back at version {undone}; choose "
                                "a version of the game as it stands.",
                                params={"to_version": to_version, "undone": undone.version},
                                details={"version": undone.version})
        if not any(e.command is not None and e.seat == str(seat) for e in later):
            raise RuleViolation("nothing_to_undo", "You made no move after that version.")
        start = self.projector.load(game_id, upto=to_version)
        crossed = takeback_barrier(start, later, seat,
                                   lambda version: self.projector.load(game_id, upto=version))
        if crossed is not None:
            raise RuleViolation(
                "undo_past_hidden_information",
                "Version {version} ({type}) revealed hidden information or randomness; no "
                "takeback can cross it.",
                params={"version": crossed.version, "type": crossed.type},
                details={"version": crossed.version})

    def answer_undo(self, game_id: str, player_id: str, accept: bool) -> Outcome:
        """Another human seat accepts or declines the waiting takeback request."""
        projection = self.projection(game_id)
        seat = self._seat(projection, player_id)
        undo = projection.data.get("undo")
        if not undo or seat not in undo["waiting"]:
            raise Conflict("no_undo_to_answer", "No takeback request is waiting for you.")
        if not accept:
            batch = [NewEvent("undo_declined", {"seat": seat}, str(seat))]
        else:
            batch = [NewEvent("undo_accepted", {"seat": seat}, str(seat))]
            if undo["waiting"] == [seat]:
                batch.append(NewEvent("rewound", {"to_version": undo["to_version"]}))
        return self._append(game_id, projection.version, batch, None)

    def lapse_undo(self, game_id: str, requested_at: int) -> Outcome | None:
        """A takeback request unanswered after ``reaction_seconds`` is declined for everyone."""
        projection = self.projection(game_id)
        undo = projection.data.get("undo")
        if not undo or undo["at_version"] != requested_at:
            return None
        return self._append(game_id, projection.version,
                            [NewEvent("undo_declined", {"seat": None, "lapsed": True})],
                            machine_command_id("undo", game_id, undo["by"], requested_at))

    def explain(self, game_id: str, version: int, viewer: Viewer) -> dict[str, Any]:
        """A disputed event: who sent which command, the state before as ``viewer`` may see
        it, the checks the rules made, and the events the command caused."""
        latest = self.projection(game_id)
        if not 1 <= version <= latest.version:
            raise NotFound("version_not_found",
                           "Game {game_id} has versions 1 to {latest}.",
                           params={"game_id": game_id, "latest": latest.version})
        batch = self._batch_of(game_id, version, latest.version)
        first = batch[0].version
        before = self.replay(game_id, first - 1) if first > 1 else None
        sender = next((e for e in batch if e.command is not None), None)
        game = latest.game
        body: dict[str, Any] = {"version": version, "batch": [first, batch[-1].version],
                                "seat": None, "command": None, "checks": [],
                                "events": [self.public_event(game, e, viewer) for e in batch],
                                "before": None}
        if before is not None and before.state is not None:
            body["before"] = game.replay_view(before.state, viewer,
                                              latest.status == "finished")
        if sender is None:
            body["checks"] = [Text("No command: the platform recorded these events ({types}).",
                                   types=", ".join(e.type for e in batch))]
            return body
        seat = int(sender.seat)
        body["seat"] = seat
        sees_command = viewer in (AUDITOR, seat)
        body["command"] = sender.command if sees_command else {"type": sender.command["type"]}
        if sees_command and before is not None:
            body["checks"] = _checks(game, before.state, sender.command, seat)
        else:
            body["checks"] = [Text("It was seat {seat}'s decision and {command} was one of the "
                                   "commands open to it.", seat=seat,
                                   command=sender.command["type"])]
        return body

    def _batch_of(self, game_id: str, version: int, last: int) -> list[StoredEvent]:
        """The events of the append batch (one command's events) holding ``version``, read
        ``BATCH_WINDOW`` at a time around it rather than the whole log."""
        events = self.store.read(game_id, max(1, version - BATCH_WINDOW),
                                 min(last, version + BATCH_WINDOW))
        cmd = events[version - events[0].version].cmd
        while events[0].version > 1 and events[0].cmd == cmd:
            events = self.store.read(game_id, max(1, events[0].version - BATCH_WINDOW),
                                     events[0].version - 1) + events
        while events[-1].version < last and events[-1].cmd == cmd:
            events += self.store.read(game_id, events[-1].version + 1,
                                      min(last, events[-1].version + BATCH_WINDOW))
        return [e for e in events if e.cmd == cmd]

    def dispute(self, game_id: str, player_id: str, version: int, reason: str) -> Outcome:
        """A seat disputes the play at ``version``: recorded, and ruled at once by re-running
        the rules over the log with the secret seed (the ruling reveals no hidden data)."""
        projection = self.projection(game_id)
        seat = self._seat(projection, player_id)
        if not 1 <= version <= projection.version:
            raise NotFound("version_not_found",
                           "Game {game_id} has versions 1 to {version}.",
                           params={"game_id": game_id, "version": projection.version})
        finding = verify_version(transcript(game_id, self.store.read(game_id),
                                            self.seed(game_id)), version)
        ruling = {"version": version, "upheld": not finding.ok,
                  "finding": finding.reason if not finding.ok else
                  "The recorded play matches the rules and the committed seed.",
                  "checked_events": finding.events, "checked_commands": finding.commands}
        return self._append(game_id, projection.version, [
            NewEvent("dispute_opened", {"seat": seat, "version": version, "reason": reason},
                     str(seat)),
            NewEvent("dispute_ruled", ruling)], None)

    def audit_transcript(self, game_id: str, player: dict[str, Any] | None) -> dict[str, Any]:
        """The self-contained transcript with the seed: after the end, or for the auditor."""
        self.check_audit_allowed(self.projection(game_id), player)
        return transcript(game_id, self.store.read(game_id), self.seed(game_id))

    def check_audit_allowed(self, projection: Projection, player: dict[str, Any] | None) -> None:
        """Refuse the transcript before the end to anyone but an auditor (audit_not_available)."""
        auditor = player is not None and "auditor" in player.get("roles", [])
        if projection.status != "finished" and not auditor:
            raise Forbidden("audit_not_available",
                            "The audit transcript is published when the game ends.")



def _checks(game: Any, state: Any, command: dict[str, Any], seat: int) -> list[str]:
    """The game's account of a recorded command's checks. Explaining is prose about a command
    the rules accepted: a game failing to word it says so rather than answering 500 (issue 23
    item 12), and the failure is logged as the bug it is."""
    try:
        return game.explain(state, command, seat)
    except Exception:
        log.exception("explaining a %s %s failed", game.name, command.get("type"))
        return [Text("It was seat {seat}'s decision and {command} was one of the commands open "
                     "to it (the rules could not word their checks).", seat=seat,
                     command=command.get("type"))]
