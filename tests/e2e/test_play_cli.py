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


def test_play_cli_speaks_korean_under_a_korean_lang(server):
    result = CliRunner().invoke(main, ["play", "--server", server, "--name", "민지", "--new",
                                       "tally", "--seats", "human", "--option", "target=5",
                                       "--poll", "0.05"], input="3\n3\n",
                                env={"LANG": "ko_KR.UTF-8", "LANGUAGE": None, "LC_ALL": None,
                                     "LC_MESSAGES": None})
    assert result.exit_code == 0, result.output
    assert "tally 게임" in result.output and "을(를) 만들었습니다" in result.output
    assert "내 차례" in result.output and "플레이어: 민지 (나)" in result.output
    assert "게임 종료. 승자: 민지 (나). 점수: 민지 (나) 1." in result.output
    assert "YOUR TURN" not in result.output and "Game over" not in result.output
