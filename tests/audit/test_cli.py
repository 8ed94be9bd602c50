"""``tablestream audit verify FILE`` (issue 4): exit 0 with a summary, or 1 naming the version;
it runs offline, importing neither Redis nor Flask."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from service.clients.audit_cli import audit
from tests.audit.recorder import export, record_game, rehash

ROOT = Path(__file__).resolve().parents[2]
SEED = "cli-seed"


@pytest.fixture(scope="module")
def clean() -> dict:
    return export(record_game("loot", 3, SEED, 2), SEED)


def write(tmp_path: Path, doc: dict, name: str = "game.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def tampered(doc: dict) -> tuple[dict, int, int]:
    """A forged command, its version, and the last version of the move before it."""
    doc = json.loads(json.dumps(doc))
    target = [e for e in doc["events"] if e.get("command")][20]
    target["command"] = {"type": "no_such_move"}
    before = min(e["version"] for e in doc["events"] if e["cmd"] == target["cmd"]) - 1
    return rehash(doc), target["version"], before


def test_verify_ok(tmp_path, clean):
    result = CliRunner().invoke(audit, ["verify", str(write(tmp_path, clean))])
    assert result.exit_code == 0, result.output
    assert "loot" in result.output
    assert f"Events: {len(clean['events'])}" in result.output
    assert f"Commands re-run: {len(clean['commands'])}" in result.output
    assert "Result: winners" in result.output
    assert result.output.rstrip().endswith("OK")


def test_verify_names_the_bad_version(tmp_path, clean):
    doc, version, _ = tampered(clean)
    result = CliRunner().invoke(audit, ["verify", str(write(tmp_path, doc))])
    assert result.exit_code == 1
    assert f"FAILED at version {version}: " in result.output
    assert "unknown_command" in result.output


def test_verify_a_dispute_up_to_a_version(tmp_path, clean):
    doc, version, earlier = tampered(clean)
    path = write(tmp_path, doc)
    before = CliRunner().invoke(audit, ["verify", "--version", str(earlier), str(path)])
    assert before.exit_code == 0, before.output
    at = CliRunner().invoke(audit, ["verify", "--version", str(version), str(path)])
    assert at.exit_code == 1 and f"FAILED at version {version}" in at.output


def test_verify_without_the_seed_is_not_a_pass(tmp_path):
    rec = record_game("tally", 2, SEED, 0, stop_after=5)
    result = CliRunner().invoke(audit, ["verify", "-v", str(write(tmp_path, export(rec, None)))])
    assert result.exit_code == 2
    assert "NOT VERIFIED" in result.output and "hash chain intact" in result.output


def test_verify_rejects_non_json(tmp_path):
    path = tmp_path / "junk.json"
    path.write_text("not json", encoding="utf-8")
    result = CliRunner().invoke(audit, ["verify", str(path)])
    assert result.exit_code == 1 and "FAILED" in result.output


def test_registered_on_the_tablestream_command(tmp_path, clean):
    from service.clients.cli import main

    result = CliRunner().invoke(main, ["audit", "verify", str(write(tmp_path, clean))])
    assert result.exit_code == 0, result.output
    assert "OK" in result.output


def test_offline_in_a_fresh_process(tmp_path, clean):
    """No server and no Redis: `tablestream audit verify` imports neither redis nor flask."""
    good, bad = write(tmp_path, clean), write(tmp_path, tampered(clean)[0], "bad.json")
    script = (
        "import sys\n"
        "from service.clients.cli import main\n"
        "codes = []\n"
        f"for path in ({str(good)!r}, {str(bad)!r}):\n"
        "    try:\n"
        "        main(['audit', 'verify', path])\n"
        "    except SystemExit as exc:\n"
        "        codes.append(exc.code)\n"
        "print('RESULT', codes, sorted(m for m in ('redis', 'rq', 'flask') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, check=True)
    assert "RESULT [0, 1] []" in done.stdout, done.stdout + done.stderr


def test_python_dash_m(tmp_path, clean):
    done = subprocess.run([sys.executable, "-m", "service.clients.audit_cli", "verify",
                           str(write(tmp_path, clean))], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.rstrip().endswith("OK")
