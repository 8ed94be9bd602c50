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
