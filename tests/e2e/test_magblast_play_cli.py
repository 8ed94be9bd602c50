"""The terminal client plays Mag Blast (issue 10, requirement 5): `tablestream play` takes seat 0
of a running server's game while a second human, a plain REST client, plays seat 1."""

from __future__ import annotations

import random
import threading
import time

import pytest
import requests
from click.testing import CliRunner

from service.clients.cli import main

pytestmark = pytest.mark.e2e


def _random_legal_player(base: str, token: str, game_id: str, stop: threading.Event) -> None:
    """Seat 1 plays a random legal command. Not the first one: the terminal player always takes
    its default (choice 1), and two first-legal players can loop for ever, legally (squadron
    damage heals at the end of the turn, a full hand draws nothing): 2 of 30 seeds never end.
    Against a random seat 1, 500 seeds ended within 184 terminal moves."""
    headers = {"Authorization": f"Bearer {token}"}
    pick = random.Random(game_id)
    while not stop.is_set():
        view = requests.get(f"{base}/games/{game_id}", headers=headers, timeout=10).json()
        if view["status"] == "finished":
            return
        if not view["legal_commands"]:
            time.sleep(0.02)
            continue
        requests.post(f"{base}/games/{game_id}/commands", headers=headers, timeout=10,
                      json={**pick.choice(view["legal_commands"]),
                            "expected_version": view["version"]})


def test_the_terminal_client_plays_a_whole_mag_blast_game(server):
    ann = requests.post(f"{server}/players", json={"name": "ann"}, timeout=10).json()["token"]
    bob = requests.post(f"{server}/players", json={"name": "bob"}, timeout=10).json()["token"]
    created = requests.post(f"{server}/games", headers={"Authorization": f"Bearer {ann}"},
                            json={"game": "magblast", "seats": [{"kind": "human"},
                                                                {"kind": "human"}],
                                  "options": {"sound_effects": "off"}}, timeout=10).json()
    game_id = created["id"]
    assert requests.post(f"{server}/games/{game_id}/join",
                         headers={"Authorization": f"Bearer {bob}"}, timeout=10).ok
    stop = threading.Event()
    other = threading.Thread(target=_random_legal_player, args=(server, bob, game_id, stop))
    other.start()
    try:
        result = CliRunner().invoke(main, ["play", "--server", server, "--token", ann,
                                           "--game", game_id, "--poll", "0.05"],
                                    input="\n" * 5000)
    finally:
        stop.set()
        other.join(timeout=30)
    assert result.exit_code == 0, result.output[-2000:]
    assert "Game over." in result.output
    assert "Place fleet" in result.output  # the choices, explained in words
