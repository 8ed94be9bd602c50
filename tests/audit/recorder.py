"""Transcripts of real games without Redis: an in-memory recorder that appends batches the way
``GameService`` does (envelopes, cmd ids, hash chain), and a random player that drives it."""

from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from events.audit import transcript
from events.codec import GENESIS, canonical, event_hash
from events.projector import Projection, apply, empty
from events.store import NewEvent, StoredEvent
from games import REGISTRY
from games.core import Command, Rng, random_bot

AT = 1_700_000_000_000  # a fixed clock keeps transcripts reproducible


@dataclass
class Recorder:
    """An append-only log with the store's envelope and the projector folding along."""

    events: list[StoredEvent] = field(default_factory=list)
    projection: Projection = field(default_factory=empty)

    def append(self, batch: list[NewEvent], cmd: str | None = None) -> list[StoredEvent]:
        """Append one batch under one command id, as the store's Lua script does."""
        # Every append has its own command id: that is how batches are told apart.
        cmd = cmd or f"auto:{len(self.events) + 1}"
        at = AT + 1000 * len(self.events)
        prev = self.events[-1].hash if self.events else GENESIS
        added = []
        for event in batch:
            version = len(self.events) + 1
            # Store what a reader parses back (tuples become lists), as RedisEventStore does.
            data = json.loads(canonical(event.data))
            command = None if event.command is None else json.loads(canonical(event.command))
            digest = event_hash(version, event.type, data, str(event.seat), cmd, at, prev,
                                command)
            stored = StoredEvent(version, event.type, data, str(event.seat), cmd, at, prev,
                                 digest, command)
            self.events.append(stored)
            added.append(stored)
            prev = digest
        for index, stored in enumerate(added):
            # evolve may keep event data in its state: fold a copy, as a reader of Redis would.
            apply(self.projection, StoredEvent.from_dict(copy.deepcopy(stored.to_dict())),
                  batch_end=index == len(added) - 1)
        return added


def record_game(name: str, seats: int, seed: str, play: int, options: dict[str, Any] | None = None,
                humans: int = 1, clocks: bool = True, max_steps: int = 20_000,
                stop_after: int | None = None) -> Recorder:
    """Create, start and randomly play a game as the service would record it.

    ``clocks`` makes every 7th move a clock expiry (prefix events and the default command);
    ``stop_after`` leaves the game running after that many moves.
    """
    game = REGISTRY[name]
    loaded = game.load_options(options)
    rec = Recorder()
    specs = [{"kind": "human"} if i < humans else {"kind": "bot", "level": "random"}
             for i in range(seats)]
    created = [NewEvent("game_created", {
        "game": name, "rules_version": game.rules_version, "options": loaded, "seats": specs,
        "creator": "p0", "seed_sha256": hashlib.sha256(seed.encode()).hexdigest()})]
    if humans:
        created.append(NewEvent("seat_joined", {"seat": 0, "player": "p0"}))
    rec.append(created)
    for seat in range(1, humans):
        rec.append([NewEvent("seat_joined", {"seat": seat, "player": f"p{seat}"})])
    setup = game.setup(seats, loaded, Rng.for_version(seed, 0))
    rec.append([NewEvent("game_started", {"seats": seats}),
                *(NewEvent(e.type, e.data) for e in setup)])
    for step in range(max_steps):
        projection = rec.projection
        if projection.status == "finished" or step == stop_after:
            return rec
        opened = sorted(projection.opened, key=int)
        seat = int(opened[Rng(f"pick-{play}", step).below(len(opened))])
        prefix: list[NewEvent] = []
        if clocks and step % 7 == 6:
            since = projection.opened[str(seat)]["since"]
            prefix.append(NewEvent("clock_expired", {"seat": seat, "since": since}))
            command: Command = game.default_command(projection.state, seat)
        else:
            command = random_bot(game.seen(projection.state, seat), Rng(f"bot-{play}", step))
        record_move(rec, seed, seat, command, prefix, cmd=f"c:{play}:{step}")
    raise AssertionError(f"{name} did not end within {max_steps} moves")


def record_move(rec: Recorder, seed: str, seat: int, command: Command,
                prefix: list[NewEvent] | None = None, cmd: str | None = None) -> None:
    """Decide ``command`` at the RNG index and append prefix + events (+ the ending)."""
    projection = rec.projection
    game = projection.game
    decided = game.decide(projection.state, command, seat, Rng.for_version(seed,
                                                                          projection.position))
    caused = [NewEvent(e.type, e.data, str(seat)) for e in decided]
    # The command as sent rides on the first event it caused.
    caused[0] = NewEvent(caused[0].type, caused[0].data, str(seat), command)
    batch = [*(prefix or []), *caused]
    result = game.result(game.fold(decided, json.loads(json.dumps(projection.state))))
    if result is not None:
        batch += [NewEvent("game_finished", {"result": result}),
                  NewEvent("seed_revealed", {"seed": seed})]
    rec.append(batch, cmd)


def export(rec: Recorder, seed: str | None, game_id: str = "g-test") -> dict[str, Any]:
    """The transcript of a recorded game, through JSON as a downloaded file would be."""
    return json.loads(json.dumps(transcript(game_id, rec.events, seed)))


def rehash(doc: dict[str, Any], renumber: bool = False) -> dict[str, Any]:
    """Recompute the chain after a tamper, as a forger would (``renumber`` closes gaps)."""
    prev = GENESIS
    for index, event in enumerate(doc["events"]):
        if renumber:
            event["version"] = index + 1
        event["prev"] = prev
        event["hash"] = prev = event_hash(event["version"], event["type"], event["data"],
                                          event["seat"], event["cmd"], event["at"], prev,
                                          event.get("command"))
    return doc
