"""Bot moves through the application service (the worker job calls exactly this)."""

from __future__ import annotations

from games import REGISTRY


def test_a_bot_that_chooses_an_illegal_command_plays_its_default_move(api, monkeypatch):
    tally = REGISTRY["tally"]
    monkeypatch.setattr(tally, "bot", lambda level: lambda seen, rng: {"type": "add",
                                                                              "amount": 99})
    game_id = api.service.create_game("p_host", "tally", {"target": 50},
                                      [{"kind": "bot", "level": "random"}])
    projection = api.service.projection(game_id)
    seat, opened = next(iter(projection.opened.items()))
    outcome = api.service.bot_move(game_id, int(seat), opened["since"])
    assert [(e.type, e.data) for e in outcome.events] == [("added", {"seat": 0, "amount": 1})]


def test_a_bot_job_for_a_decision_already_taken_does_nothing(api):
    game_id = api.service.create_game("p_host", "tally", {"target": 50},
                                      [{"kind": "bot", "level": "random"}])
    projection = api.service.projection(game_id)
    seat, opened = next(iter(projection.opened.items()))
    first = api.service.bot_move(game_id, int(seat), opened["since"])
    again = api.service.bot_move(game_id, int(seat), opened["since"])
    assert again.duplicate and again.version == first.version
    assert api.service.bot_move(game_id, int(seat), opened["since"] - 1) is None
