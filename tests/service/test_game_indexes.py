"""The game indexes (issue 13): the lobby and the player's games follow a game from open to
running to finished, page by page, and a game is indexed before its first event."""

from __future__ import annotations

import uuid

import pytest

from service.app.errors import NotFound
from service.app.lobby import DUE, status_key


def test_the_lobby_indexes_follow_a_game_from_open_to_running_to_finished(api):
    host, guest = api.player("host"), api.player("guest")
    client = api.service.store.client
    game_id = api.create(host, "tally", [{"kind": "human"}, {"kind": "human"}],
                         {"target": 2})

    def listed(status: str | None = None) -> bool:
        query = f"?status={status}&limit=500" if status else "?limit=500"
        return game_id in [g["id"] for g in api.client.get("/v1/games" + query).json]

    def mine(which: str, headers) -> list[str]:
        return [g["id"] for g in api.client.get(f"/v1/me/games?filter={which}",
                                                headers=headers).json]

    assert listed("open") and listed() and not listed("running")
    assert mine("open", host) == [game_id] and mine("open", guest) == []
    api.client.post(f"/v1/games/{game_id}/join", headers=guest)
    api.client.post(f"/v1/games/{game_id}/start", headers=host)
    assert listed("running") and listed() and not listed("open")
    assert mine("running", guest) == [game_id] and mine("open", host) == []
    while (public := api.get(game_id))["status"] != "finished":
        seat = int(sorted(public["pending"])[0])
        mover = (host, guest)[seat]
        command = api.get(game_id, mover)["legal_commands"][0]
        assert api.client.post(f"/v1/games/{game_id}/commands", headers=mover,
                               json=command).status_code == 200
    assert listed("finished") and not listed("running") and not listed()
    assert mine("running", host) == [] and mine("finished", guest) == [game_id]
    assert client.zscore(DUE, game_id) is None
    assert client.zscore(status_key("running", "tally"), game_id) is None
    assert client.zscore(status_key("finished", "tally"), game_id) is not None


def test_pages_of_my_games_follow_each_other_newest_first(api):
    host = api.player("host")
    created = [api.create(host, "tally", 2) for _ in range(5)]
    pages = [api.client.get(f"/v1/me/games?filter={which}&limit=2&offset={offset}",
                            headers=host).json
             for which in ("all", "open") for offset in (0, 2, 4)]
    for first in (0, 3):
        ids = [g["id"] for page in pages[first:first + 3] for g in page]
        assert ids == list(reversed(created))


def test_a_game_is_in_the_open_index_before_its_first_event_and_leaves_it_if_none_came(
        api, monkeypatch):
    service = api.service
    lobby = service.lobby

    def killed(*args, **kwargs):
        raise SystemExit("the process died between creating the game and its first append")

    game_id = f"crash{uuid.uuid4().hex[:12]}"
    monkeypatch.setattr("service.app.application.new_game_id", lambda: game_id)
    monkeypatch.setattr(service.store, "append", killed)
    with pytest.raises(SystemExit):
        service.create_game("ann", "tally", {"target": 5}, [{"kind": "human"}])
    monkeypatch.undo()
    assert lobby.redis.zscore(status_key("open"), game_id) is not None
    assert lobby.redis.zscore(status_key("open", "tally"), game_id) is not None
    with pytest.raises(NotFound):
        service.projection(game_id)
    assert not lobby.reindex(service, game_id)
    assert lobby.redis.zscore(status_key("open"), game_id) is None


def test_a_game_whose_create_was_refused_leaves_every_index_at_the_next_reconcile(api):
    # issue 23 item 3: registered in the open indexes before the create, which an outage
    # refused, so it has no meta and no log: reconcile drops it, the per-type index too.
    client = api.service.store.client
    ghost = uuid.uuid4().hex[:12]
    api.service.lobby.register(ghost, "loot", 1.0)
    api.service.lobby.reconcile(api.service)
    assert client.zscore(status_key("open"), ghost) is None
    assert client.zscore(status_key("open", "loot"), ghost) is None
