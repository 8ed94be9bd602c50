"""Self-play: whole games between bot levels with the rules alone."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from service.clients.cli import main
from tests.workers.conftest import GAMES
from workers.selfplay import play_one, selfplay, wilson_interval


@pytest.mark.parametrize("game", GAMES)
def test_self_play_finishes_every_game_and_counts_each_seat(game):
    levels = ["random", "basic", "random"] if game != "tally" else ["random"] * 3
    report = selfplay(game, 12, levels)
    assert report.games == report.finished == 12
    assert sum(report.plays.values()) == 12 * 3
    assert 12 <= sum(report.wins.values()) <= 36
    assert report.games_per_second > 0


def test_self_play_is_reproducible_from_its_seed():
    from games import get_game

    game = get_game("tally")
    assert play_one(game, ["random"] * 2, "s1") == play_one(game, ["random"] * 2, "s1")


def test_the_selfplay_command_prints_win_rates_and_games_per_second():
    result = CliRunner().invoke(main, ["selfplay", "tally", "--games", "20",
                                       "--seats", "random,random"])
    assert result.exit_code == 0, result.output
    assert "games/s" in result.output and "win rate" in result.output


def test_the_selfplay_command_refuses_an_unknown_level():
    result = CliRunner().invoke(main, ["selfplay", "tally", "--seats", "genius,random"])
    assert result.exit_code != 0 and "genius" in result.output


def test_worker_class_names_offered_by_the_cli_are_the_runners():
    from workers.cli import WORKER_CLASS_NAMES
    from workers.runner import WORKER_CLASSES

    assert sorted(WORKER_CLASS_NAMES) == sorted(WORKER_CLASSES)


def test_the_selfplay_command_plays_with_the_options_it_is_given():
    result = CliRunner().invoke(main, ["selfplay", "loot", "--games", "4", "--seats",
                                       "random,random,random,random",
                                       "--options", '{"teams": true}'])
    assert result.exit_code == 0, result.output
    assert '"teams": true' in result.output


@pytest.mark.parametrize("options", ['{"teams": "maybe"}', "[1]", "{not json"])
def test_the_selfplay_command_refuses_bad_options_before_playing(options):
    result = CliRunner().invoke(main, ["selfplay", "loot", "--games", "4",
                                       "--seats", "random,random", "--options", options])
    assert result.exit_code != 0 and "--options" in result.output
    assert "games/s" not in result.output


def test_team_loot_self_play_credits_both_partners():
    report = selfplay("loot", 6, ["random"] * 4, {"teams": True})
    assert report.finished == 6
    # With teams, every finished game has exactly the two partners of one team as winners.
    assert sum(report.wins.values()) == 12


def test_win_rates_come_with_a_95_percent_wilson_interval():
    low, high = wilson_interval(70, 100)
    assert round(low, 3) == 0.604 and round(high, 3) == 0.781
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] == 1.0
    result = CliRunner().invoke(main, ["selfplay", "tally", "--games", "20",
                                       "--seats", "random,random"])
    assert "95% CI" in result.output


def test_the_selfplay_command_prints_each_levels_decisions_per_second():
    result = CliRunner().invoke(main, ["selfplay", "loot", "--games", "2",
                                       "--seats", "basic,random"])
    assert result.exit_code == 0, result.output
    for level in ("basic", "random"):
        line = next(ln for ln in result.output.splitlines() if ln.strip().startswith(level))
        assert "decisions/s" in line
    report = selfplay("loot", 2, ["basic", "random"])
    assert report.decisions["basic"] > 0 and report.decisions_per_second("basic") > 0


def test_the_selfplay_command_prints_the_figures_so_far_every_n_games():
    result = CliRunner().invoke(main, ["selfplay", "tally", "--games", "6",
                                       "--seats", "random,random", "--progress", "2"])
    assert result.exit_code == 0, result.output
    assert "[after 2 of 6 games]" in result.output and "[after 4 of 6 games]" in result.output
    assert "[after 6 of 6 games]" not in result.output  # the final report is printed once
    assert result.output.count("win rate") == 3  # two progress reports and the final one
