"""A client generated from the served OpenAPI document plays every title (issue 14)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import requests

pytestmark = pytest.mark.e2e

SCRIPT = Path(__file__).parent / "client" / "play_every_game.py"
BIN = Path(sys.executable).parent


def test_a_generated_python_client_plays_a_whole_game_of_every_title(server, tmp_path):
    document = tmp_path / "openapi.json"
    document.write_bytes(requests.get(f"{server}/openapi.json", timeout=10).content)
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    generated = subprocess.run(
        [str(BIN / "openapi-python-client"), "generate", "--path", str(document), "--meta",
         "none", "--output-path", str(tmp_path / "tablestream_client")],
        capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)
    assert generated.returncode == 0, generated.stdout + generated.stderr
    # The script is held to mypy --strict; the generated package is the generator's code.
    typed = subprocess.run(
        [str(BIN / "mypy"), "--strict", "--follow-imports=silent", "--no-incremental",
         str(SCRIPT)], capture_output=True, text=True, timeout=300,
        env={**env, "MYPYPATH": str(tmp_path)})
    assert typed.returncode == 0, typed.stdout + typed.stderr
    played = subprocess.run(
        [sys.executable, str(SCRIPT), server.rsplit("/v1", 1)[0]], capture_output=True,
        text=True, timeout=900, env={**env, "PYTHONPATH": str(tmp_path)})
    assert played.returncode == 0, played.stdout + played.stderr
    titles = [entry["title"] for entry in requests.get(f"{server}/games/catalog",
                                                       timeout=10).json()]
    finished = [line.split(":")[0] for line in played.stdout.splitlines()
                if ": finished at version" in line]
    assert finished == titles
