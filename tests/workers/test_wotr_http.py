"""War of the Ring over HTTP only (issue 11, requirement 2): a whole ``south`` game between a
human (the Free Peoples) and a ``basic`` bot (the Shadow) with the real server and worker; the
human answers the battle prompts (combat card, casualties, retreat) and one clock expires."""

from __future__ import annotations

import pytest

from games.core import Rng
from tests.workers.test_e2e import _create, _events, _player
from tests.workers.test_tables_with_bots import play_humans

pytestmark = pytest.mark.e2e


def test_a_human_plays_a_whole_south_game_against_the_basic_bot(api, worker_process):
    worker_process()
    human = _player(api, "frodo")
    seats = [{"kind": "human"}, {"kind": "bot", "level": "basic"}]
    game_id = _create(api, human, "wotr", seats,
                      {"scenario": "south", "max_rounds": 6, "turn_seconds": 2,
                       "reaction_seconds": 2, "max_timeouts": 3})
    assert api.post(f"/v1/games/{game_id}/start", headers=human).status_code == 200

    def idle_on_the_first_action(seat: int, view: dict) -> bool:
        return view["pending"][str(seat)]["clock"] == "turn"

    final, sent = play_humans(api, game_id, {0: human}, Rng("wotr-http-7"),
                              skip_once=idle_on_the_first_action, timeout=400)
    kinds = {kind for _, kind in sent}
    assert "combat_card" in kinds, "the human chose combat cards"
    assert kinds & {"take_hit", "retreat", "withdraw", "continue_battle"}, kinds
    events = _events(api, game_id)
    assert any(e["type"] == "clock_expired" and e["data"]["seat"] == 0 for e in events)
    assert any(e["type"] == "battle_started" for e in events)
    assert final["result"]["winners"]
