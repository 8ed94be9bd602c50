"""A client generated from the OpenAPI document plays every title (issue 14), and one generated
from openapi.yaml plays a game by long poll alone (issue 26)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import requests

pytestmark = pytest.mark.e2e

SCRIPT = Path(__file__).parent / "client" / "play_every_game.py"
LONG_POLL_SCRIPT = Path(__file__).parent / "client" / "play_by_long_poll.py"
COMMITTED = Path(__file__).parents[2] / "openapi.yaml"
BIN = Path(sys.executable).parent


def generate(document: Path, tmp_path: Path) -> dict[str, str]:
    """Generate ``tablestream_client`` from ``document`` into ``tmp_path``; the environment
    that runs the generator's tools."""
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    generated = subprocess.run(
        [str(BIN / "openapi-python-client"), "generate", "--path", str(document), "--meta",
         "none", "--output-path", str(tmp_path / "tablestream_client")],
        capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)
    assert generated.returncode == 0, generated.stdout + generated.stderr
    return env


def check_types(script: Path, env: dict[str, str], tmp_path: Path) -> None:
    """The script is held to mypy --strict; the generated package is the generator's code."""
    typed = subprocess.run(
        [str(BIN / "mypy"), "--strict", "--follow-imports=silent", "--no-incremental",
         str(script)], capture_output=True, text=True, timeout=300,
        env={**env, "MYPYPATH": str(tmp_path)})
    assert typed.returncode == 0, typed.stdout + typed.stderr


def test_a_generated_python_client_plays_a_whole_game_of_every_title(server, tmp_path):
    document = tmp_path / "openapi.json"
    document.write_bytes(requests.get(f"{server}/openapi.json", timeout=10).content)
    env = generate(document, tmp_path)
    check_types(SCRIPT, env, tmp_path)
    played = subprocess.run(
        [sys.executable, str(SCRIPT), server.rsplit("/v1", 1)[0]], capture_output=True,
        text=True, timeout=900, env={**env, "PYTHONPATH": str(tmp_path)})
    assert played.returncode == 0, played.stdout + played.stderr
    titles = [entry["title"] for entry in requests.get(f"{server}/games/catalog",
                                                       timeout=10).json()]
    finished = [line.split(":")[0] for line in played.stdout.splitlines()
                if ": finished at version" in line and ", winners [" in line]
    assert finished == titles


def test_a_client_generated_from_openapi_yaml_plays_a_game_by_long_poll_alone(server,
                                                                             tmp_path):
    env = generate(COMMITTED, tmp_path)
    check_types(LONG_POLL_SCRIPT, env, tmp_path)
    played = subprocess.run(
        [sys.executable, str(LONG_POLL_SCRIPT), server.rsplit("/v1", 1)[0]],
        capture_output=True, text=True, timeout=600, env={**env, "PYTHONPATH": str(tmp_path)})
    assert played.returncode == 0, played.stdout + played.stderr
    lines = played.stdout.splitlines()
    assert lines[0].startswith("loot: finished at version"), played.stdout
    polls = [int(line.split(": ")[1].split()[0]) for line in lines[1:]]
    # Each player waited for the other's moves in long polls that came back with them.
    assert len(polls) == 2 and min(polls) > 0, played.stdout
    # Typed views (issue 26 item 4): each read its hand from its LootView, the winners and
    # scores from the LootResult, and the other's draws from typed events (without the card).
    assert "winners [" in lines[0] and "scores {0: " in lines[0], played.stdout
    hands = [int(line.split("largest hand ")[1].split(",")[0]) for line in lines[1:]]
    assert min(hands) >= 1, played.stdout
