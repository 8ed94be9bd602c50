"""``events.audit.verify`` (issue 4): transcripts of many random games pass; every kind of tamper
fails and names the first bad version."""

from __future__ import annotations

import copy
import hashlib
import json

import pytest

from events.audit import FORMAT, NO_SEED, transcript, verify, verify_version
from events.projector import PLATFORM_EVENTS, fold_upto
from events.store import StoredEvent
from games import REGISTRY
from games.core import Rejected, Rng
from service.app.application import GameService
from tests.audit.recorder import export, record_game, record_move, rehash
from tests.playing import play_randomly

GAMES = ["loot", "maskmen", "faker_blue", "magblast", "tally"]
SEED = "a-secret-seed"


def seat_counts(name: str) -> list[int]:
    game = REGISTRY[name]
    return sorted({game.min_seats, (game.min_seats + game.max_seats) // 2, game.max_seats})


# --- honest games pass --------------------------------------------------------------------------


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("play", range(3))
def test_random_games_verify(name, play):
    for seats in seat_counts(name):
        seed = f"{SEED}-{seats}-{play}"
        rec = record_game(name, seats, seed, play, humans=play % 2 + 1 if seats > 1 else 1)
        doc = export(rec, seed)
        before = copy.deepcopy(doc)
        finding = verify(doc)
        assert finding.ok, f"{name} {seats} seats: {finding}"
        assert finding.version is None
        assert finding.events == len(rec.events)
        assert finding.commands == sum(1 for e in rec.events if e.command is not None) > 0
        assert any("hash chain intact" in c for c in finding.checks)
        assert doc == before, "verify must not touch the transcript"


def test_transcript_fields():
    rec = record_game("loot", 3, SEED, 1)
    doc = transcript("g1", rec.events, SEED)
    created = rec.events[0].data
    assert doc["format"] == FORMAT and doc["game_id"] == "g1" and doc["game"] == "loot"
    assert doc["rules_version"] == REGISTRY["loot"].rules_version
    assert (doc["options"], doc["seats"]) == (created["options"], created["seats"])
    assert doc["seed"] == SEED
    assert doc["seed_sha256"] == hashlib.sha256(SEED.encode()).hexdigest()
    assert doc["result"] == next(e.data["result"] for e in rec.events
                                 if e.type == "game_finished")
    assert [StoredEvent.from_dict(e) for e in doc["events"]] == rec.events
    assert doc["commands"] == [{"version": e.version, "seat": e.seat, "cmd": e.cmd,
                                "command": e.command} for e in rec.events if e.command]
    json.dumps(doc)  # self-contained plain JSON


@pytest.mark.parametrize("name", GAMES)
def test_games_recorded_by_the_real_service_verify(name, store):
    """The application's own appends (on the real Redis store) verify, not just our recorder's."""
    service = GameService(store, seed_factory=lambda: f"service-{name}")
    bots = [{"kind": "bot", "level": "random"}] * max(2, REGISTRY[name].min_seats)
    game_id = service.create_game("p0", name, {}, bots)
    play_randomly(service, game_id, 0)
    finding = verify(json.loads(json.dumps(transcript(game_id, store.read(game_id),
                                                      service.seed(game_id)))))
    assert finding.ok, str(finding)


def test_a_takeback_verifies(store):
    """A ``rewound`` event restores the RNG index; the re-run follows it through history."""
    service = GameService(store, seed_factory=lambda: "undo-seed")
    game_id = service.create_game("p0", "tally", {"target": 15},
                                  [{"kind": "human"}, {"kind": "bot", "level": "random"}])
    service.start(game_id, "p0")
    for amount in (1, 2, 3, 1):
        projection = service.projection(game_id)
        seat = int(next(iter(projection.opened)))
        service.act(game_id, seat, {"type": "add", "amount": amount}, projection.version, None)
    taken = service.request_undo(game_id, "p0")
    assert [e.type for e in taken.events] == ["undo_requested", "rewound"]
    play_randomly(service, game_id, 1)
    doc = transcript(game_id, store.read(game_id), service.seed(game_id))
    assert verify(doc).ok, str(verify(doc))
    # The move after the takeback must still be re-decided at the restored index.
    after = next(e for e in doc["events"] if e["version"] > taken.version and e.get("command"))
    after["command"] = {"type": "add", "amount": 3 if after["data"]["amount"] != 3 else 2}
    finding = verify(rehash(doc))
    assert (finding.ok, finding.version) == (False, after["version"])


# --- tampering ----------------------------------------------------------------------------------


def recorded(name: str = "loot") -> tuple[dict, list[dict]]:
    """A finished game's transcript and its game events (dicts inside the transcript)."""
    seats = 3 if REGISTRY[name].max_seats >= 3 else 2
    doc = export(record_game(name, seats, SEED, 7), SEED)
    return doc, [e for e in doc["events"] if e["type"] not in PLATFORM_EVENTS]


def runs(doc: dict) -> list[list[dict]]:
    """The game events of each move (a command and what it caused), in order."""
    out: list[list[dict]] = []
    for event in doc["events"]:
        if event.get("command") is not None:
            out.append([event])
        elif out and event["type"] not in PLATFORM_EVENTS and event["cmd"] == out[-1][0]["cmd"]:
            out[-1].append(event)
    return out


def middle_run(doc: dict, size: int = 1) -> list[dict]:
    """A move in the middle of the game with at least ``size`` game events."""
    found = [run for run in runs(doc) if len(run) >= size]
    assert found, f"no move with {size} events"
    return found[len(found) // 2]


def bump(data: dict) -> dict:
    """``data`` changed in a way the rules would notice: a number or a card id altered."""
    for key, value in sorted(data.items()):
        if isinstance(value, bool):
            continue
        if isinstance(value, int):
            return {**data, key: value + 1}
        if isinstance(value, str):
            return {**data, key: value + "x"}
    return {**data, "forged": True}


def failed_at(doc: dict) -> int | None:
    finding = verify(doc)
    assert not finding.ok, "the tamper went unnoticed"
    assert finding.reason
    return finding.version


@pytest.mark.parametrize("name", GAMES)
def test_edited_event_data_is_caught_by_the_chain(name):
    doc, _ = recorded(name)
    run = middle_run(doc, 2 if name != "tally" else 1)
    target = run[-1]
    target["data"] = bump(target["data"])
    finding = verify(doc)
    assert (finding.ok, finding.version) == (False, target["version"])
    assert "hash chain" in finding.reason


@pytest.mark.parametrize("name", GAMES)
def test_edited_event_data_with_a_forged_chain_is_caught_by_the_rerun(name):
    doc, _ = recorded(name)
    run = middle_run(doc, 2 if name != "tally" else 1)
    target = run[-1]
    target["data"] = bump(target["data"])
    finding = verify(rehash(doc))
    assert (finding.ok, finding.version) == (False, target["version"])
    assert "differ from what the rules decide" in finding.reason


def test_edited_setup_event_is_caught():
    doc, game_events = recorded("loot")
    setup = game_events[0]
    setup["data"] = {**setup["data"], "deck": list(reversed(setup["data"]["deck"]))}
    finding = verify(rehash(doc))
    assert (finding.ok, finding.version) == (False, setup["version"])
    assert "setup" in finding.reason


@pytest.mark.parametrize("name", ["loot", "maskmen", "faker_blue", "magblast"])
def test_dropped_event(name):
    doc, _ = recorded(name)
    target = middle_run(doc, 2)[1]
    doc["events"].remove(target)
    version = target["version"]
    assert failed_at(doc) == version  # the chain: a version is missing
    assert failed_at(rehash(doc, renumber=True)) == version  # the re-run


def test_dropped_whole_move_with_a_forged_chain():
    doc, _ = recorded("tally")
    run = middle_run(doc)
    slot = min(e["version"] for e in doc["events"] if e["cmd"] == run[0]["cmd"])
    doc["events"] = [e for e in doc["events"] if e["cmd"] != run[0]["cmd"]]
    # The next move (or its clock expiry) now stands where the dropped one began.
    assert failed_at(rehash(doc, renumber=True)) == slot


@pytest.mark.parametrize("name", ["loot", "maskmen", "faker_blue", "magblast"])
def test_swapped_events(name):
    doc, _ = recorded(name)
    run = next(r for r in runs(doc)[len(runs(doc)) // 2:] if len(r) >= 3
               and (r[1]["type"], r[1]["data"]) != (r[2]["type"], r[2]["data"]))
    first, second = run[1], run[2]
    index = doc["events"].index(first)
    events = doc["events"]
    events[index], events[index + 1] = events[index + 1], events[index]
    assert failed_at(copy.deepcopy(doc)) == first["version"]  # the chain
    # A forger keeps the versions in place and re-chains: the re-run names the first swap.
    versions = first["version"], second["version"]
    events[index]["version"], events[index + 1]["version"] = versions
    assert failed_at(rehash(doc)) == versions[0]


def test_swapped_moves_with_a_forged_chain():
    doc, _ = recorded("tally")
    a, b = runs(doc)[3][0], runs(doc)[4][0]
    assert a["data"] != b["data"] or a["command"] != b["command"] or a["seat"] != b["seat"]
    ia, ib = doc["events"].index(a), doc["events"].index(b)
    fields = ("type", "data", "seat", "cmd", "command")
    for name in fields:
        a[name], b[name] = b.get(name), a.get(name)
    doc["events"][ia], doc["events"][ib] = a, b
    assert failed_at(rehash(doc)) == a["version"]


def test_changed_seed():
    doc, _ = recorded("loot")
    doc["seed"] = "another-seed"
    finding = verify(doc)
    assert (finding.ok, finding.version) == (False, 1)
    assert "commitment" in finding.reason


def test_forged_seed_with_a_matching_commitment_fails_at_setup():
    """Replacing seed, commitment and revealed seed consistently still fails: the shuffles."""
    doc, game_events = recorded("loot")
    forged = "forged-seed"
    digest = hashlib.sha256(forged.encode()).hexdigest()
    doc["seed"], doc["seed_sha256"] = forged, digest
    doc["events"][0]["data"]["seed_sha256"] = digest
    next(e for e in doc["events"] if e["type"] == "seed_revealed")["data"]["seed"] = forged
    assert failed_at(rehash(doc)) == game_events[0]["version"]


@pytest.mark.parametrize("name", GAMES)
def test_changed_command(name):
    doc, _ = recorded(name)
    seed = doc["seed"]
    events = [StoredEvent.from_dict(e) for e in doc["events"]]
    game = REGISTRY[name]
    for run in runs(doc)[len(runs(doc)) // 3:]:
        target = run[0]
        before = fold_upto(events, target["version"] - 1)
        seat = int(target["seat"])
        for other in game.legal_commands(before.state, seat):
            try:
                decided = game.decide(before.state, other, seat,
                                      Rng.for_version(seed, before.position))
            except Rejected:
                continue
            if (decided[0].type, json.loads(json.dumps(decided[0].data))) != \
                    (target["type"], target["data"]):
                break
        else:
            continue
        break
    else:
        pytest.fail("no move has another legal command with another outcome")
    target["command"] = other
    assert failed_at(copy.deepcopy(doc)) == target["version"]  # the command is hash-chained
    finding = verify(rehash(doc))
    assert (finding.ok, finding.version) == (False, target["version"])
    assert "differ from what the rules decide" in finding.reason


def forged_takeback(to_version: int) -> tuple[dict, int]:
    """A running game with a takeback to ``to_version`` appended by a forger."""
    rec = record_game("tally", 3, SEED, 1, stop_after=6, clocks=False)
    doc = export(rec, SEED)
    last = doc["events"][-1]
    for type_, data in (("undo_requested", {"seat": 0, "to_version": to_version,
                                            "waiting": []}),
                        ("rewound", {"to_version": to_version})):
        doc["events"].append({"version": len(doc["events"]) + 1, "type": type_, "data": data,
                              "seat": "system", "cmd": "forged-undo", "at": last["at"],
                              "prev": "", "hash": ""})
    return rehash(doc), len(doc["events"])


def test_takebacks_across_barriers_or_into_a_move_fail():
    doc, _ = forged_takeback(8)
    assert verify(doc).ok  # between moves, after the setup: allowed
    doc, rewound = forged_takeback(2)  # back across game_started
    assert failed_at(doc) == rewound and "game_started" in verify(doc).reason
    doc, rewound = forged_takeback(3)  # between game_started and its setup
    assert failed_at(doc) == rewound


def test_a_takeback_to_a_version_already_taken_back_fails(store):
    """A rewind into a stretch an earlier rewind took back (a redo: the service refuses it as
    ``invalid_undo_target``) fails the audit at that rewind."""
    service = GameService(store, seed_factory=lambda: "undo-seed")
    game_id = service.create_game("p0", "tally", {"target": 50},
                                  [{"kind": "human"}, {"kind": "bot", "level": "random"}])
    service.start(game_id, "p0")
    for amount in (1, 2, 3, 1, 2):
        projection = service.projection(game_id)
        seat = int(next(iter(projection.opened)))
        service.act(game_id, seat, {"type": "add", "amount": amount}, projection.version, None)
    first = service.projection(game_id).version
    taken = service.request_undo(game_id, "p0", to_version=first - 4)
    projection = service.projection(game_id)
    seat = int(next(iter(projection.opened)))
    service.act(game_id, seat, {"type": "add", "amount": 2}, projection.version, None)
    doc = transcript(game_id, store.read(game_id), service.seed(game_id))
    assert verify(doc).ok, str(verify(doc))
    events = doc["events"]
    dead = next(v for v in range(first - 3, taken.version - 1)
                if events[v - 1]["cmd"] != events[v]["cmd"])  # between two taken-back moves
    last = events[-1]
    for type_, data in (("undo_requested", {"seat": 0, "to_version": dead, "waiting": []}),
                        ("rewound", {"to_version": dead})):
        events.append({"version": len(events) + 1, "type": type_, "data": data,
                       "seat": "system", "cmd": "forged-undo", "at": last["at"],
                       "prev": "", "hash": ""})
    finding = verify(rehash(doc))
    assert (finding.ok, finding.version) == (False, len(events)), str(finding)
    assert "taken back" in finding.reason


def test_illegal_command_names_the_rule():
    doc, _ = recorded("tally")
    target = middle_run(doc)[0]
    target["command"] = {"type": "add", "amount": 9}
    finding = verify(rehash(doc))
    assert (finding.ok, finding.version) == (False, target["version"])
    assert "invalid_command" in finding.reason


def test_command_moved_to_another_seat():
    doc, _ = recorded("loot")
    target = middle_run(doc)[0]
    target["seat"] = str((int(target["seat"]) + 1) % len(doc["seats"]))
    assert failed_at(rehash(doc)) == target["version"]


def test_edited_result():
    doc, _ = recorded("loot")
    finished = next(e for e in doc["events"] if e["type"] == "game_finished")
    finished["data"]["result"]["winners"] = [9]
    assert failed_at(rehash(doc)) == finished["version"]


def test_edited_transcript_result_or_header():
    doc, _ = recorded("loot")
    finished = next(e for e in doc["events"] if e["type"] == "game_finished")
    doc["result"] = {**doc["result"], "winners": [9]}
    assert failed_at(doc) == finished["version"]
    doc, _ = recorded("loot")
    doc["options"] = {**doc["options"], "turn_seconds": 5}
    assert failed_at(doc) == 1


def test_inserted_event():
    doc, _ = recorded("faker_blue")
    run = middle_run(doc, 2)
    index, version = doc["events"].index(run[1]), run[1]["version"]
    doc["events"].insert(index, copy.deepcopy(run[1]))
    assert failed_at(copy.deepcopy(doc)) == version + 1  # a duplicate version
    # Renumbered, the copy sits where the original was; the original one later is extra.
    assert failed_at(rehash(doc, renumber=True)) == version + 1


def test_game_events_without_a_command():
    doc, _ = recorded("tally")
    target = middle_run(doc)[0]
    del target["command"]
    finding = verify(rehash(doc))
    assert (finding.ok, finding.version) == (False, target["version"])
    assert "no recorded command" in finding.reason


def test_first_failure_wins():
    doc, _ = recorded("loot")
    early, late = runs(doc)[5][0], runs(doc)[-5][0]
    early["data"] = bump(early["data"])
    late["data"] = bump(late["data"])
    assert failed_at(rehash(doc)) == early["version"]
    late["hash"] = "0" * 64  # an earlier rule failure still comes first
    assert failed_at(doc) == early["version"]


def test_malformed_transcripts():
    assert not verify({}).ok
    assert not verify({"format": FORMAT, "events": []}).ok
    assert not verify({"format": "other", "events": [{}]}).ok


# --- partial verification -----------------------------------------------------------------------


def test_verify_version_checks_up_to_the_move():
    doc, _ = recorded("loot")
    early, late = runs(doc)[4], runs(doc)[-4]
    for version in (1, early[0]["version"], early[-1]["version"], len(doc["events"])):
        assert verify_version(doc, version).ok
    late[-1]["data"] = bump(late[-1]["data"])
    rehash(doc)
    assert verify_version(doc, early[-1]["version"]).ok  # the forgery lies after the dispute
    finding = verify_version(doc, late[0]["version"])  # the whole move is re-run
    assert (finding.ok, finding.version) == (False, late[-1]["version"])
    assert not verify_version(doc, len(doc["events"]) + 1).ok


def test_a_running_game_without_the_seed():
    rec = record_game("loot", 2, SEED, 3, stop_after=25)
    assert rec.projection.status == "running"
    finding = verify(export(rec, None))
    assert (finding.ok, finding.version, finding.reason) == (False, None, NO_SEED)
    assert any("hash chain intact" in c for c in finding.checks)
    assert verify(export(rec, SEED)).ok  # the auditor holds the seed before the end
    doc = export(rec, None)
    doc["events"][10]["data"] = bump(doc["events"][10]["data"])
    assert failed_at(doc) == 11  # what can be checked without the seed still is


def test_the_ending_must_be_recorded():
    rec = record_game("tally", 2, SEED, 0)
    doc = export(rec, SEED)
    last_move = runs(doc)[-1][-1]
    doc["events"] = [e for e in doc["events"] if e["type"] not in ("game_finished",
                                                                     "seed_revealed")]
    doc["result"] = None
    assert failed_at(rehash(doc)) == last_move["version"]


def test_a_move_after_the_end_is_illegal():
    rec = record_game("tally", 2, SEED, 0)
    seat = int(rec.events[-3].seat)
    rec.projection.data["status"] = "running"  # a forger's recorder ignores the end
    with pytest.raises(Rejected):
        record_move(rec, SEED, seat, {"type": "add", "amount": 1})


@pytest.mark.parametrize("edit", ["command", "seat", "version", "drop", "add"])
def test_an_edited_commands_array_fails_verification(edit):
    """Issue 23 item 13: the commands array is checked against the hash-chained envelopes."""
    rec = record_game("loot", 3, SEED, 1)
    doc = export(rec, SEED)
    entry = doc["commands"][3]
    at = doc["events"][-1]["version"] if edit == "add" else entry["version"]
    if edit == "command":
        entry["command"] = {**entry["command"], "card": "forged"}
    elif edit == "seat":
        entry["seat"] = str((int(entry["seat"]) + 1) % 3)
    elif edit == "version":
        entry["version"] += 1
    elif edit == "drop":
        del doc["commands"][3]
    else:
        doc["commands"].append(dict(entry))
    finding = verify(doc)
    assert not finding.ok and "commands array" in finding.reason
    assert finding.version == at
