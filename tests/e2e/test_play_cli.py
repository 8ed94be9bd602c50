"""`tablestream play` plays a whole game in the terminal against a running server."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from service.clients.cli import main

pytestmark = pytest.mark.e2e


def test_play_cli_creates_a_game_and_plays_it_to_the_end(server):
    result = CliRunner().invoke(main, ["play", "--server", server, "--name", "ann", "--new",
                                       "tally", "--seats", "human", "--option", "target=5",
                                       "--poll", "0.05"], input="3\n3\n")
    assert result.exit_code == 0, result.output
    assert "Created tally game" in result.output
    assert "Game over. Winner: ann (you). Scores: ann (you) 1." in result.output
    assert "YOUR TURN" in result.output and "Players: ann (you)" in result.output
