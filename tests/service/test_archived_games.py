"""Finished games leave Redis memory for their archive (issue 13) and read as before: the game,
its event pages, replay at every version, explain, the audit transcript (which verifies), live
streams, the lobby and the player's games; a retried command gets its first answer."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from events.audit import verify
from service.clients.audit_cli import audit
from tests.service.conftest import Api

LIVE_PARTS = ("log", "meta", "secret", "cmds", "snap", "snaps")


def _live_keys(api: Api, game_id: str) -> list[str]:
    client = api.service.store.client
    return [part for part in LIVE_PARTS if client.exists(f"{{g:{game_id}}}:{part}")]


def _finished_loot(api: Api) -> tuple[str, list[dict[str, str]], list[tuple]]:
    """A 2-player Loot game played to its end over HTTP, each move with a command id; the
    moves as sent: (headers, command, expected version, command id)."""
    game_id, players = api.table("loot", 2)
    ids: list[tuple] = []

    def choose(legal, step):
        return legal[step % len(legal)]

    for step in range(5000):
        public = api.get(game_id)
        if public["status"] == "finished":
            return game_id, players, ids
        seat = int(sorted(public["pending"])[0])
        mine = api.get(game_id, players[seat])
        command = {k: v for k, v in choose(mine["legal_commands"], step).items()
                   if k != "expected_version"}
        ids.append((players[seat], command, mine["version"], f"move-{step}"))
        response = api.send(game_id, players[seat], command, mine["version"],
                            command_id=ids[-1][3])
        assert response.status_code == 200, response.json
    raise AssertionError("the game did not end")


def _everything(api: Api, game_id: str, players, auditor) -> dict:
    """Every read of the game, at every version, as seat 0, a spectator and the auditor."""
    last = api.get(game_id)["version"]
    out: dict = {"game": [api.get(game_id, h) for h in (players[0], {}, auditor)]}
    get = api.client.get
    out["events"] = [get(f"/v1/games/{game_id}/events?from=1&limit=500", headers=h).json
                     for h in (players[0], {}, auditor)]
    out["replay"] = [get(f"/v1/games/{game_id}/replay?version={v}", headers=players[0]).json
                     for v in range(1, last + 1)]
    out["explain"] = [get(f"/v1/games/{game_id}/events/{v}/explain", headers=auditor).json
                      for v in range(1, last + 1, 7)]
    out["audit"] = get(f"/v1/games/{game_id}/audit").json
    return out


@pytest.fixture
def auditor(api: Api) -> dict[str, str]:
    _, token = api.app.extensions["tablestream"].accounts.create("judge", ["auditor"])
    return {"Authorization": f"Bearer {token}"}


def test_an_archived_game_reads_replays_explains_and_audits_as_before(api, make_app, auditor):
    game_id, players, _ = _finished_loot(api)
    before = _everything(api, game_id, players, auditor)
    assert api.service.archive(game_id)
    assert _live_keys(api, game_id) == []
    assert _everything(api, game_id, players, auditor) == before
    # A process that never saw the game live (no caches) reads it from the archive alone.
    fresh = Api(make_app())
    assert _everything(fresh, game_id, players, auditor) == before
    assert _live_keys(api, game_id) == []  # reading kept no snapshot or key in memory
    assert verify(before["audit"]).ok


def test_the_audit_transcript_of_an_archived_game_verifies_offline(api, tmp_path):
    game_id, _, _ = _finished_loot(api)
    api.service.archive(game_id)
    doc = api.client.get(f"/v1/games/{game_id}/audit").json
    path = tmp_path / "game.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    result = CliRunner().invoke(audit, ["verify", str(path)])
    assert result.exit_code == 0, result.output
    assert result.output.rstrip().endswith("OK")


def test_a_command_retried_after_archiving_gets_its_first_answer(api):
    game_id, _, moves = _finished_loot(api)
    headers, command, version, command_id = moves[-1]
    first = api.send(game_id, headers, command, version, command_id=command_id)
    api.service.archive(game_id)
    again = api.send(game_id, headers, command, version, command_id=command_id)
    assert first.status_code == again.status_code == 200, (first.json, again.json)
    assert again.json["version"] == first.json["version"]
    assert again.json["events"] == first.json["events"]
    other = api.send(game_id, headers, {"type": "no_such_move"}, version,
                     command_id=command_id)
    assert other.status_code == 422 and other.json["code"] == "idempotency_key_reused"
    new = api.send(game_id, headers, command, first.json["version"], command_id="after")
    assert new.status_code == 422 and new.json["code"] == "game_over"


def test_a_dispute_after_archiving_is_refused_with_game_archived(api):
    game_id, players, _ = _finished_loot(api)
    api.service.archive(game_id)
    response = api.client.post(f"/v1/games/{game_id}/disputes", headers=players[0],
                               json={"version": 5, "reason": "too late"})
    assert response.status_code == 409
    assert response.headers["Content-Type"] == "application/problem+json"
    assert response.json["code"] == "game_archived"
    assert _live_keys(api, game_id) == []


def test_the_live_stream_of_an_archived_game_replays_and_ends(api):
    game_id, _, _ = _finished_loot(api)
    last = api.get(game_id)["version"]
    api.service.archive(game_id)
    ended = api.client.get(f"/v1/games/{game_id}/events/stream",
                           headers={"Last-Event-ID": str(last)})
    assert ended.status_code == 200 and ended.get_data(as_text=True) == ": connected\n\n"
    tail = api.client.get(f"/v1/games/{game_id}/events/stream",
                          headers={"Last-Event-ID": str(last - 3)}).get_data(as_text=True)
    assert [line for line in tail.splitlines() if line.startswith("id: ")] == \
        [f"id: {v}" for v in range(last - 2, last + 1)]


def test_the_finished_filters_list_an_archived_game(api):
    game_id, players, _ = _finished_loot(api)
    api.service.archive(game_id)
    mine = api.client.get("/v1/me/games?filter=finished", headers=players[0]).json
    assert [g["id"] for g in mine] == [game_id]
    assert mine[0]["status"] == "finished" and mine[0]["result"]
    lobby = api.client.get("/v1/games?status=finished&game=loot&limit=500").json
    assert game_id in [g["id"] for g in lobby]
