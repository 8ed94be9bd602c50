"""The README's curl walkthrough works as written against `tablestream serve`."""

from __future__ import annotations

import ast
import os
import re
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

README = Path(__file__).resolve().parents[2] / "README.md"


def walkthrough() -> str:
    """The first bash block of the README: the whole-game walkthrough."""
    return re.search(r"```bash\n(.*?)```", README.read_text(), re.S).group(1)


def test_readme_walkthrough_plays_a_whole_loot_game(server):
    script = walkthrough()
    completed = subprocess.run(["bash", "-euo", "pipefail", "-c", script], capture_output=True,
                               text=True, timeout=600,
                               env={"BASE": server, "PATH": os.environ["PATH"]})
    assert completed.returncode == 0, completed.stderr
    lines = completed.stdout.strip().splitlines()
    assert lines[0] == "running"
    result = ast.literal_eval(lines[-2])  # the printed result dict (Python repr)
    assert set(result) >= {"winners", "scores", "ranking"}
    assert lines[-1].startswith("[{")


def test_readme_takeback_replay_explain_and_audit_lines_work_after_the_walkthrough(server):
    blocks = re.findall(r"```bash\n(.*?)```", README.read_text(), re.S)
    completed = subprocess.run(["bash", "-euo", "pipefail", "-c",
                                blocks[0] + "echo ---\n" + blocks[1] + "echo ---\n" + blocks[2]],
                               capture_output=True, text=True, timeout=600,
                               cwd=README.parent, env={"BASE": server, "PATH": os.environ["PATH"]})
    assert completed.returncode == 0, completed.stderr
    (README.parent / "transcript.json").unlink()
    takeback, more = completed.stdout.split("---\n")[1:]
    lines = takeback.strip().splitlines()
    assert int(lines[0]) > 4  # the move's version, after the start
    [other] = ast.literal_eval(lines[1])  # the other player must agree
    # Taken back: the decision is the mover's again.
    assert list(ast.literal_eval(lines[2])) == [str(1 - other)]
    assert len(ast.literal_eval(lines[3])) == 2  # both hands as of version 8
    assert ast.literal_eval(lines[4])  # the checks that made version 8 legal
    assert lines[-1] == "OK"  # the transcript verified offline
    assert more.strip().splitlines()[-1] == "running"  # a game with a bot runs once started
