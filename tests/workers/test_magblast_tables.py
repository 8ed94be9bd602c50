"""Mag Blast over HTTP only (issue 10, requirement 2): 2 humans and 2 bots with a real worker.
A scripted deal (the ``deal`` scenario option) puts the cards for a Blast -> Evasive Action ->
Temporal Flux -> Temporal Flux chain in the humans' hands; the humans answer it one at a time,
then one human lets the reaction clock run out inside a window, and the game plays to its end."""

from __future__ import annotations

import pytest

import games
from games.core import Rng
from tests.workers.conftest import wait_for
from tests.workers.test_e2e import _create, _events, _get, _player
from tests.workers.test_tables_with_bots import play_humans

pytestmark = [pytest.mark.e2e,
              pytest.mark.skipif("magblast" not in games.REGISTRY, reason="no magblast")]

FIRST = ["ship-01", "ship-02", "ship-03", "ship-04"]  # hull 1+2+2+3: seat 0 starts
DEAL = {
    "races": ["freep", "tribot", "mazons", "brotherhood"],
    "fleets": [[*FIRST, "ship-05", "ship-06"],
               ["ship-34", "ship-35", "ship-36", "ship-37", "ship-38", "ship-39"],
               ["ship-13", "ship-14", "ship-15", "ship-16", "ship-17", "ship-18"],
               ["ship-40", "ship-41", "ship-42", "ship-43", "ship-19", "ship-20"]],
    "hands": [["laser_blast-1", "temporal_flux-1", "laser_blast-2", "laser_blast-3",
               "beam_blast-1"],
              ["beam_blast-2", "beam_blast-3", "beam_blast-4", "beam_blast-5", "beam_blast-6"],
              ["evasive_action-1", "temporal_flux-2", "evasive_action-2", "beam_blast-7",
               "beam_blast-8"],
              ["beam_blast-10", "beam_blast-11", "beam_blast-12", "beam_blast-13",
               "beam_blast-14"]],
}
ZONES = ("n", "e", "s", "w")


def _send(api, game_id, headers, command):
    view = _get(api, game_id, headers)
    response = api.post(f"/v1/games/{game_id}/commands", headers=headers,
                        json={**command, "expected_version": view["version"]})
    assert response.status_code == 200, response.json
    return response.json


def _asked(api, game_id, seat):
    return wait_for(lambda: str(seat) in _get(api, game_id)["pending"] and
                    list(_get(api, game_id)["pending"]) == [str(seat)],
                    timeout=20, message=f"seat {seat} to be asked")


def test_two_humans_answer_a_four_card_chain_and_a_reaction_clock_expires(api, worker_process):
    worker_process()
    ann, bob = _player(api, "ann"), _player(api, "bob")
    seats = [{"kind": "human"}, {"kind": "bot", "level": "basic"}, {"kind": "human"},
             {"kind": "bot", "level": "random"}]
    game_id = _create(api, ann, "magblast", seats,
                      {"reaction_seconds": 2, "max_timeouts": 3, "deal": DEAL})
    assert api.post(f"/v1/games/{game_id}/join", headers=bob).status_code == 200
    assert api.post(f"/v1/games/{game_id}/start", headers=ann).status_code == 200

    # Setup: everyone places at once; the humans send their own placements.
    _send(api, game_id, ann, {"type": "place_fleet", "zones": dict(zip(ZONES, FIRST,
                                                                       strict=True))})
    _send(api, game_id, bob, {"type": "place_fleet", "zones": dict(zip(
        ZONES, ["ship-13", "ship-14", "ship-15", "ship-16"], strict=True))})
    wait_for(lambda: _get(api, game_id)["view"]["phase"] == "reinforce",
             timeout=20, message="the fleets to be revealed")
    assert _get(api, game_id)["view"]["turn"] == 0
    _send(api, game_id, ann, {"type": "end_phase"})
    _send(api, game_id, ann, {"type": "end_phase"})

    # Blast -> Evasive Action -> Temporal Flux -> Temporal Flux, one seat asked at a time; the
    # bots are asked too (every opponent may answer with a Flux) and pass.
    _send(api, game_id, ann, {"type": "blast", "card": "laser_blast-1", "ship": "ship-01",
                              "target": "ship-13", "sound": "pew pew"})
    _asked(api, game_id, 2)
    _send(api, game_id, bob, {"type": "respond", "card": "evasive_action-1"})
    _asked(api, game_id, 0)
    _send(api, game_id, ann, {"type": "respond", "card": "temporal_flux-1"})
    _asked(api, game_id, 2)
    _send(api, game_id, bob, {"type": "respond", "card": "temporal_flux-2"})
    _asked(api, game_id, 0)  # asked although her Flux is spent: being asked tells nothing
    assert [c["type"] for c in _get(api, game_id, ann)["legal_commands"]] == ["no_response"]
    _send(api, game_id, ann, {"type": "no_response"})
    wait_for(lambda: _get(api, game_id)["view"]["chain"] is None, timeout=20,
             message="the last bot asked to pass and the chain to resolve")
    view = _get(api, game_id, ann)
    assert "ship-13" not in view["view"]["under"]  # the Evasive Action stood
    cancelled = [(e["data"]["card"], e["data"]["by"]) for e in _events(api, game_id)
                 if e["type"] == "card_cancelled"]
    assert cancelled == [("temporal_flux-1", "flux"), ("laser_blast-1", "evade")]

    # A second Blast: Bob is asked (his ship is the target) and lets the clock run.
    _send(api, game_id, ann, {"type": "blast", "card": "laser_blast-2", "ship": "ship-02",
                              "target": "ship-14", "sound": "zap"})
    _asked(api, game_id, 2)
    assert _get(api, game_id, bob)["pending"]["2"]["clock"] == "reaction"
    wait_for(lambda: any(e["type"] == "clock_expired" and e["data"]["seat"] == 2
                         for e in _events(api, game_id)), timeout=20,
             message="the reaction clock to expire")
    wait_for(lambda: _get(api, game_id)["view"]["under"].get("ship-14"), timeout=20,
             message="the Blast to land")
    assert _get(api, game_id)["view"]["under"]["ship-14"] == [["laser_blast-2", 1]]
    assert "evasive_action-2" in _get(api, game_id, bob)["view"]["hand"]

    final, sent = play_humans(api, game_id, {0: ann, 2: bob}, Rng("magblast-http"))
    assert final["result"]["winners"]
    assert {seat for seat, _ in sent} <= {0, 2}
    assert {e["seat"] for e in _events(api, game_id)
            if e["type"] == "card_played"} & {1, 3}, "the bots played cards"
