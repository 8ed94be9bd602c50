"""Replay, takebacks, explain and disputes (issue 4)."""

from __future__ import annotations

import pytest

from events.projector import SNAPSHOT_EVERY, fold_upto
from games import REGISTRY
from games.core import SPECTATOR

pytestmark = pytest.mark.skipif("loot" not in REGISTRY, reason="no loot")
LOOT = REGISTRY.get("loot")


def seat_to_move(api, game_id) -> int:
    return int(min(api.get(game_id)["pending"]))


def move(api, game_id, players, seat, kind: str | None = None):
    mine = api.get(game_id, players[seat])
    legal = [c for c in mine["legal_commands"] if kind is None or c["type"] == kind]
    response = api.send(game_id, players[seat], legal[0], mine["version"])
    assert response.status_code == 200, response.json
    # The command as the rules see it: expected_version is the envelope, not the move.
    return {k: v for k, v in legal[0].items() if k != "expected_version"}


def until_a_merchant_can_be_played(api, game_id, players) -> int:
    """Draw until the seat to move holds a merchant; returns that seat."""
    for _ in range(40):
        seat = seat_to_move(api, game_id)
        kinds = {c["type"] for c in api.get(game_id, players[seat])["legal_commands"]}
        if "play_merchant" in kinds:
            return seat
        move(api, game_id, players, seat, "draw")
    pytest.fail("no merchant came")


# --- replay -------------------------------------------------------------------------------------

def test_replay_at_every_version_of_a_finished_game_equals_a_fresh_projection(seeded_api):
    api = seeded_api
    game_id, players = api.table("loot", 2)
    api.play_to_end(game_id, players)
    events = api.service.store.read(game_id)
    for version in range(1, len(events) + 1):
        fresh = fold_upto(events, version)
        assert api.service.replay(game_id, version).data == fresh.data
        body = api.client.get(f"/v1/games/{game_id}/replay?version={version}",
                              headers=players[0]).json
        assert body["version"] == version
        if fresh.state is not None:
            assert body["view"] == LOOT.replay_view(fresh.state, 0, True)


def test_replay_during_a_game_shows_only_what_the_seat_could_see_then(seeded_api):
    api = seeded_api
    game_id, players = api.table("loot", 2)
    for _ in range(6):
        move(api, game_id, players, seat_to_move(api, game_id))
    events = api.service.store.read(game_id)
    for version in range(4, len(events) + 1):
        state = fold_upto(events, version).state
        for seat in (0, 1):
            body = api.client.get(f"/v1/games/{game_id}/replay?version={version}",
                                  headers=players[seat]).json
            assert body["view"] == LOOT.view(state, seat)
            assert "deck" not in body["view"] and "hands" not in body["view"]


def test_replay_of_an_unknown_version_is_not_found(api):
    game_id, players = api.table("tally", 1)
    response = api.client.get(f"/v1/games/{game_id}/replay?version=999", headers=players[0])
    assert response.status_code == 404
    assert response.json["code"] == "version_not_found"


def _counting_reads(service) -> list[int]:
    """Count the events the service reads from Redis from now on (one entry per read)."""
    counts: list[int] = []
    read = service.store.read

    def counted(*args, **kwargs):
        events = read(*args, **kwargs)
        counts.append(len(events))
        return events

    service.store.read = counted
    return counts


def _long_tally(api, adds: int) -> tuple[str, list[dict[str, str]]]:
    game_id, players = api.table("tally", 1, {"target": 10_000_000})
    for version in range(api.log_length(game_id), api.log_length(game_id) + adds):
        api.service.act(game_id, 0, {"type": "add", "amount": 1}, version, f"add-{version}")
    return game_id, players


@pytest.mark.skipif("tally" not in REGISTRY, reason="no tally")
def test_replay_deep_in_a_long_game_folds_from_the_nearest_snapshot(api):
    game_id, players = _long_tally(api, 400)
    api.service._cache.clear()  # a cold service: nothing cached
    counts = _counting_reads(api.service)
    for version in (37, 210, 398):
        body = api.client.get(f"/v1/games/{game_id}/replay?version={version}",
                              headers=players[0]).json
        assert body["version"] == version
    # Per replay: the latest tail (cold once) and at most one snapshot interval plus one event.
    assert max(counts[1:]) <= SNAPSHOT_EVERY + 1, counts
    assert api.service.replay(game_id, 210).data == \
        fold_upto(api.service.store.read(game_id), 210).data


@pytest.mark.skipif("tally" not in REGISTRY, reason="no tally")
def test_explain_deep_in_a_long_game_reads_a_window_not_the_log(api):
    game_id, players = _long_tally(api, 400)
    api.service.projection(game_id)
    counts = _counting_reads(api.service)
    body = api.client.get(f"/v1/games/{game_id}/events/200/explain", headers=players[0]).json
    assert sum(counts) <= 4 * SNAPSHOT_EVERY + 4, counts
    assert body["batch"] == [200, 200]
    assert body["before"] == fold_upto(api.service.store.read(game_id), 199).state


@pytest.mark.skipif("tally" not in REGISTRY, reason="no tally")
def test_a_takeback_deep_in_a_long_game_reads_only_what_it_takes_back(api):
    game_id, players = _long_tally(api, 400)
    api.service.projection(game_id)
    counts = _counting_reads(api.service)
    response = api.client.post(f"/v1/games/{game_id}/undo", headers=players[0], json={})
    assert response.status_code == 200, response.json
    assert sum(counts) <= 4 * SNAPSHOT_EVERY + 4, counts


@pytest.mark.skipif("tally" not in REGISTRY, reason="no tally")
def test_a_takeback_reaches_back_at_most_max_takeback_events(api):
    from service.app.history import MAX_TAKEBACK

    game_id, players = _long_tally(api, MAX_TAKEBACK + 20)
    latest = api.log_length(game_id)
    counts = _counting_reads(api.service)
    response = api.client.post(f"/v1/games/{game_id}/undo", headers=players[0],
                               json={"to_version": 10})
    assert response.status_code == 422 and response.json["code"] == "invalid_undo_target"
    assert sum(counts) == 0 and api.log_length(game_id) == latest
    response = api.client.post(f"/v1/games/{game_id}/undo", headers=players[0],
                               json={"to_version": latest - MAX_TAKEBACK})
    assert response.status_code == 200, response.json


@pytest.mark.skipif("maskmen" not in REGISTRY, reason="no maskmen")
def test_maskmen_replay_after_the_end_never_shows_the_set_aside_cards(seeded_api):
    # maskmen.md §2: unused cards are set aside face down and nobody sees them, ever.
    api = seeded_api
    maskmen = REGISTRY["maskmen"]
    game_id, players = api.table("maskmen", 2)
    api.play_to_end(game_id, players)
    events = api.service.store.read(game_id)
    viewers = [(0, players[0]), (1, players[1]), (SPECTATOR, {})]
    for version in range(1, len(events) + 1, 3):
        state = fold_upto(events, version).state
        if not state or not state.get("set_aside"):
            continue
        for viewer, headers in viewers:
            text = api.client.get(f"/v1/games/{game_id}/replay?version={version}",
                                  headers=headers).get_data(as_text=True)
            shown = [card for card in state["set_aside"] if f'"{card}"' in text]
            assert not shown, f"replay at {version} shows {viewer} the set-aside {shown}"
            assert maskmen.secrets_after_end(state, viewer) >= set(state["set_aside"])


# --- takebacks ----------------------------------------------------------------------------------

def test_takeback_against_a_bot_is_granted_at_once_and_keeps_every_event(seeded_api):
    api = seeded_api
    players = [api.player("ann")]
    game_id = api.create(players[0], "loot", [{"kind": "human"}, {"kind": "bot", "level": "basic"}])
    api.client.post(f"/v1/games/{game_id}/start", headers=players[0])
    assert seat_to_move(api, game_id) == 0
    before = api.service.projection(game_id)
    kinds = {c["type"] for c in api.get(game_id, players[0])["legal_commands"]}
    move(api, game_id, players, 0, "play_merchant" if "play_merchant" in kinds else "draw")
    length = api.log_length(game_id)
    response = api.client.post(f"/v1/games/{game_id}/undo", headers=players[0], json={})
    if "play_merchant" not in kinds:
        assert response.json["code"] == "undo_past_hidden_information"
        return
    assert response.status_code == 200, response.json
    after = api.service.projection(game_id)
    assert after.state == before.state and after.position == before.position
    types = [e.type for e in api.service.store.read(game_id, length + 1)]
    assert types == ["undo_requested", "rewound"]
    assert api.service.store.read(game_id, 1, length) == api.service.store.read(game_id)[:length]


def test_takeback_against_a_human_waits_for_acceptance(seeded_api):
    api = seeded_api
    game_id, players = api.table("loot", 2)
    seat = until_a_merchant_can_be_played(api, game_id, players)
    before = api.service.projection(game_id)
    move(api, game_id, players, seat, "play_merchant")
    asked = api.client.post(f"/v1/games/{game_id}/undo", headers=players[seat], json={})
    assert asked.status_code == 200, asked.json
    assert asked.json["undo"]["waiting"] == [1 - seat]
    assert api.service.projection(game_id).state != before.state
    answered = api.client.post(f"/v1/games/{game_id}/undo/answer", headers=players[1 - seat],
                               json={"accept": True})
    assert answered.status_code == 200, answered.json
    after = api.service.projection(game_id)
    assert after.state == before.state and after.data["undo"] is None
    assert [e.type for e in api.service.store.read(game_id)[-2:]] == ["undo_accepted", "rewound"]


def test_declined_takeback_changes_nothing(seeded_api):
    api = seeded_api
    game_id, players = api.table("loot", 2)
    seat = until_a_merchant_can_be_played(api, game_id, players)
    move(api, game_id, players, seat, "play_merchant")
    state = api.service.projection(game_id).state
    api.client.post(f"/v1/games/{game_id}/undo", headers=players[seat], json={})
    response = api.client.post(f"/v1/games/{game_id}/undo/answer", headers=players[1 - seat],
                               json={"accept": False})
    assert response.status_code == 200
    assert api.service.projection(game_id).state == state
    assert api.service.projection(game_id).data["undo"] is None


def test_takeback_past_a_card_draw_is_refused(seeded_api):
    api = seeded_api
    game_id, players = api.table("loot", 2)
    seat = seat_to_move(api, game_id)
    move(api, game_id, players, seat, "draw")
    length = api.log_length(game_id)
    response = api.client.post(f"/v1/games/{game_id}/undo", headers=players[seat], json={})
    assert response.status_code == 422
    assert response.json["code"] == "undo_past_hidden_information"
    assert api.log_length(game_id) == length


def test_asking_whether_a_takeback_is_possible_answers_as_asking_would_and_changes_nothing(
        seeded_api):
    api = seeded_api
    game_id, players = api.table("loot", 2)
    seat = seat_to_move(api, game_id)
    move(api, game_id, players, seat, "draw")
    length = api.log_length(game_id)
    check = api.client.get(f"/v1/games/{game_id}/undo", headers=players[seat])
    assert check.status_code == 200
    assert check.json["possible"] is False
    assert check.json["code"] == "undo_past_hidden_information"
    assert "revealed hidden information" in check.json["detail"]
    assert api.log_length(game_id) == length

    seat = until_a_merchant_can_be_played(api, game_id, players)
    move(api, game_id, players, seat, "play_merchant")
    check = api.client.get(f"/v1/games/{game_id}/undo", headers=players[seat]).json
    assert check["possible"] is True and check["waiting"] == [1 - seat]
    asked = api.client.post(f"/v1/games/{game_id}/undo", headers=players[seat], json={})
    assert asked.json["undo"]["to_version"] == check["to_version"]
    again = api.client.get(f"/v1/games/{game_id}/undo", headers=players[seat]).json
    assert again["possible"] is False and again["code"] == "undo_pending"


def test_only_a_seated_player_may_ask_whether_a_takeback_is_possible(seeded_api):
    api = seeded_api
    game_id, _ = api.table("loot", 2)
    response = api.client.get(f"/v1/games/{game_id}/undo", headers=api.player("eve"))
    assert response.status_code == 403 and response.json["code"] == "not_seated"


def test_a_move_repeated_after_a_takeback_meets_the_same_random_outcome(seeded_api):
    api = seeded_api
    game_id, players = api.table("loot", 2)
    seat = until_a_merchant_can_be_played(api, game_id, players)
    before = api.service.projection(game_id)
    move(api, game_id, players, seat, "play_merchant")
    api.client.post(f"/v1/games/{game_id}/undo", headers=players[seat], json={})
    api.client.post(f"/v1/games/{game_id}/undo/answer", headers=players[1 - seat],
                    json={"accept": True})
    assert api.service.projection(game_id).position == before.position
    move(api, game_id, players, seat, "draw")
    drawn = api.service.store.read(game_id)[-2:]
    # The same draw without the takeback, decided on the state before it at the same position.
    twin = LOOT.decide(before.state, {"type": "draw"}, seat, api.service_rng(game_id, before))
    assert [e.data for e in drawn if e.type == "card_drawn"] == \
        [e.data for e in twin if e.type == "card_drawn"]


@pytest.mark.skipif("tally" not in REGISTRY, reason="no tally")
def test_a_takeback_to_a_version_already_taken_back_is_refused(api):
    """A target inside a stretch an earlier takeback undid is no position of the game as it
    stands: rewinding there would redo the moves taken back (a bot's among them) and hide
    again what the first rewind showed everyone (the flaky Mag Blast leak scan: a fighter in
    the returning zone, shown again by a takeback, went back to its owner's hand)."""
    game_id, players = _long_tally(api, 6)
    first = api.log_length(game_id)  # six adds: versions first - 5 .. first
    response = api.client.post(f"/v1/games/{game_id}/undo", headers=players[0],
                               json={"to_version": first - 4})
    assert response.status_code == 200, response.json
    rewound = api.log_length(game_id)
    api.service.act(game_id, 0, {"type": "add", "amount": 1}, rewound, "add-after")
    latest = api.log_length(game_id)
    for dead in range(first - 3, rewound - 1):  # taken back by the rewind (or its request)
        response = api.client.post(f"/v1/games/{game_id}/undo", headers=players[0],
                                   json={"to_version": dead})
        assert response.status_code == 422, (dead, response.json)
        assert response.json["code"] == "invalid_undo_target", (dead, response.json)
        assert response.json["details"]["version"] == rewound
    assert api.log_length(game_id) == latest
    for alive in (rewound, first - 4, first - 5):  # the rewind itself, or before the stretch
        state = api.service.replay(game_id, alive).state
        response = api.client.post(f"/v1/games/{game_id}/undo", headers=players[0],
                                   json={"to_version": alive})
        assert response.status_code == 200, (alive, response.json)
        assert api.service.projection(game_id).state == state
        api.service.act(game_id, 0, {"type": "add", "amount": 1}, api.log_length(game_id),
                        f"add-again-{alive}")


def test_nothing_to_take_back_is_a_clear_error(api):
    game_id, players = api.table("tally", 2)
    response = api.client.post(f"/v1/games/{game_id}/undo", headers=players[0], json={})
    assert response.status_code == 422
    assert response.json["code"] == "nothing_to_undo"


# --- explain and disputes -----------------------------------------------------------------------

def test_explain_names_the_sender_the_command_and_the_checks(seeded_api):
    api = seeded_api
    game_id, players = api.table("loot", 2)
    seat = seat_to_move(api, game_id)
    command = move(api, game_id, players, seat)
    version = api.get(game_id)["version"]
    mine = api.client.get(f"/v1/games/{game_id}/events/{version}/explain",
                          headers=players[seat]).json
    assert mine["seat"] == seat and mine["command"] == command
    assert mine["checks"] and mine["events"] and mine["before"]["hand"] is not None
    theirs = api.client.get(f"/v1/games/{game_id}/events/{version}/explain",
                            headers=players[1 - seat]).json
    assert theirs["command"] == {"type": command["type"]}


def test_a_dispute_is_recorded_and_ruled_at_once(seeded_api):
    api = seeded_api
    game_id, players = api.table("loot", 2)
    seat = seat_to_move(api, game_id)
    move(api, game_id, players, seat)
    version = api.get(game_id)["version"]
    response = api.client.post(f"/v1/games/{game_id}/disputes", headers=players[1 - seat],
                               json={"version": version, "reason": "that draw looks wrong"})
    assert response.status_code == 201, response.json
    opened, ruled = response.json["events"]
    assert opened["type"] == "dispute_opened" and opened["data"]["version"] == version
    assert ruled["type"] == "dispute_ruled" and ruled["data"]["upheld"] is False
    assert "seed" not in str(ruled["data"]).lower() or "committed seed" in ruled["data"]["finding"]


def test_an_unanswered_takeback_lapses_after_the_reaction_clock(seeded_api):
    from workers.scheduling import due_jobs

    api = seeded_api
    game_id, players = api.table("loot", 2, {"reaction_seconds": 30})
    seat = until_a_merchant_can_be_played(api, game_id, players)
    move(api, game_id, players, seat, "play_merchant")
    api.client.post(f"/v1/games/{game_id}/undo", headers=players[seat], json={})
    projection = api.service.projection(game_id)
    undo = projection.data["undo"]
    lapse = [d for d in due_jobs(projection) if d.kind == "undo"]
    assert [(d.seat, d.since, d.at) for d in lapse] == \
        [(seat, undo["at_version"], undo["at"] / 1000 + 30)]
    assert api.service.lapse_undo(game_id, undo["at_version"] - 1) is None  # a stale alarm
    outcome = api.service.lapse_undo(game_id, undo["at_version"])
    assert [e.type for e in outcome.events] == ["undo_declined"]
    assert api.service.projection(game_id).data["undo"] is None


# --- the audit transcript -----------------------------------------------------------------------

def test_the_audit_transcript_is_published_at_the_end_and_verifies_offline(seeded_api):
    from events.audit import verify

    api = seeded_api
    game_id, players = api.table("loot", 2)
    early = api.client.get(f"/v1/games/{game_id}/audit", headers=players[0])
    assert early.status_code == 403 and early.json["code"] == "audit_not_available"
    api.play_to_end(game_id, players)
    body = api.client.get(f"/v1/games/{game_id}/audit", headers=players[1]).json
    assert body["seed"] == "tablestream-test-seed" and body["game"] == "loot"
    assert body["events"][-1]["type"] == "seed_revealed"
    finding = verify(body)
    assert finding.ok, str(finding)
    assert finding.commands == len(body["commands"]) > 0


def test_an_auditor_may_read_the_transcript_of_a_running_game(seeded_api):
    api = seeded_api
    game_id, _ = api.table("loot", 2)
    _, token = api.app.extensions["tablestream"].accounts.create("judge", ["auditor"])
    response = api.client.get(f"/v1/games/{game_id}/audit",
                              headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200
    assert response.json["seed"] == "tablestream-test-seed"


def test_a_copy_for_a_batch_folds_as_a_full_copy_and_leaves_the_original_alone(seeded_api):
    import pickle

    from events.projector import apply, with_batch_ends

    api = seeded_api
    game_id, players = api.table("loot", 2)
    api.play_to_end(game_id, players)
    events = api.service.store.read(game_id)
    batches: list[list] = []
    for event, _ in with_batch_ends(events):
        if batches and batches[-1][-1].cmd == event.cmd:
            batches[-1].append(event)
        else:
            batches.append([event])
    plays = 0
    for batch in batches[1:]:
        before = fold_upto(events, batch[0].version - 1)
        kept = pickle.dumps(before.data)
        after = before.copy_for(batch)
        for event, end in with_batch_ends(batch):
            apply(after, event, None if event.type != "rewound" else before, end)
        assert after.data == fold_upto(events, batch[-1].version).data
        assert pickle.dumps(before.data) == kept
        plays += all(e.type not in ("game_started", "game_finished") for e in batch)
    assert plays > 10  # the cheap copy (a move's batch, no platform event) was tried
