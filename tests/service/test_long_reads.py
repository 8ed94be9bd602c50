"""Long reads (a page of 100+ events, an audit transcript) are made once per version and reader
and kept encoded (service/http/long_reads.py): never older than the log, never another
reader's, never past a refusal."""

from __future__ import annotations

import pytest


def _long_game(api, moves: int = 150):
    """A running one-seat tally game with ``moves`` events after its start."""
    game_id, (player,) = api.table("tally", 1, {"target": 10_000})
    version = api.get(game_id)["version"]
    for _ in range(moves):
        response = api.send(game_id, player, {"type": "add", "amount": 1}, version)
        assert response.status_code == 200, response.json
        version = response.json["version"]
    return game_id, player


@pytest.fixture
def long_reads(api, monkeypatch):
    """Counts the store's reads of 100 events or more."""
    store = api.service.store
    read = store.read
    counted = []

    def counting(game_id, first=1, last=None):
        events = read(game_id, first, last)
        if len(events) >= 100:
            counted.append((game_id, first, last))
        return events

    monkeypatch.setattr(store, "read", counting)
    return counted


def test_a_long_page_is_read_from_the_log_once_per_version_and_reader(api, long_reads):
    game_id, player = _long_game(api)
    first = api.client.get(f"/v1/games/{game_id}/events?limit=1000")
    again = api.client.get(f"/v1/games/{game_id}/events?limit=1000")
    assert first.status_code == again.status_code == 200
    assert again.data == first.data
    assert len(long_reads) == 1
    # The seated player's page is its own, with its commands; the spectator's has none.
    mine = api.client.get(f"/v1/games/{game_id}/events?limit=1000", headers=player)
    assert len(long_reads) == 2
    assert any("command" in e for e in mine.json["events"])
    assert not any("command" in e for e in first.json["events"])


def test_a_kept_page_is_never_older_than_the_log(api, long_reads):
    game_id, player = _long_game(api)
    before = api.client.get(f"/v1/games/{game_id}/events?limit=1000").json
    moved = api.send(game_id, player, {"type": "add", "amount": 1}, before["version"])
    assert moved.status_code == 200
    after = api.client.get(f"/v1/games/{game_id}/events?limit=1000").json
    assert after["version"] == before["version"] + 1
    assert after["events"][-1]["version"] == after["version"]
    assert len(long_reads) == 2


def test_pages_of_a_long_log_point_at_the_next_one(api):
    game_id, _ = _long_game(api)
    version = api.get(game_id)["version"]
    page = api.client.get(f"/v1/games/{game_id}/events?from=1&limit=100")
    assert page.json["next"] == 101 and 'from=101' in page.headers["Link"]
    again = api.client.get(f"/v1/games/{game_id}/events?from=1&limit=100")
    assert again.headers["Link"] == page.headers["Link"]
    last = api.client.get(f"/v1/games/{game_id}/events?from=101&limit=1000").json
    assert last["next"] is None and last["events"][-1]["version"] == version
    assert [e["version"] for e in page.json["events"] + last["events"]] == list(
        range(1, version + 1))


def test_an_audit_kept_for_an_auditor_is_still_refused_to_a_player_before_the_end(api):
    game_id, player = _long_game(api)
    _, token = api.app.extensions["tablestream"].accounts.create("judge", ["auditor"])
    judge = {"Authorization": f"Bearer {token}"}
    assert api.client.get(f"/v1/games/{game_id}/audit", headers=judge).status_code == 200
    refused = api.client.get(f"/v1/games/{game_id}/audit", headers=player)
    assert refused.status_code == 403 and refused.json["code"] == "audit_not_available"
    assert api.client.get(f"/v1/games/{game_id}/audit").status_code == 403
