"""``tablestream audit verify FILE``: check an exported transcript offline (no server, no Redis).

This module imports only click, ``events.audit`` and the rules, so ``python -m
service.clients.audit_cli verify FILE`` runs anywhere the package is installed.
"""

from __future__ import annotations

import json
import sys

import click

from events.audit import NO_SEED, verify, verify_version


@click.group()
def audit() -> None:
    """Offline audit of exported game transcripts."""


@audit.command("verify", epilog="Exit status: 0 verified; 1 a check failed (the first bad "
               "version is named); 2 no seed yet (the game is not over), so nothing could be "
               "re-run.")
@click.argument("file", type=click.File("r", encoding="utf-8"))
@click.option("--version", "upto", type=int, default=None,
              help="check only up to the move containing this version (a dispute)")
@click.option("-v", "--verbose", is_flag=True, help="list every check made")
def verify_command(file: click.utils.LazyFile, upto: int | None, verbose: bool) -> None:
    """Verify FILE ('-' for stdin): chain, seed, every recorded command re-run, the result."""
    try:
        doc = json.load(file)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        click.echo(f"FAILED: {file.name} is not JSON: {exc}")
        sys.exit(1)
    if not isinstance(doc, dict):
        click.echo(f"FAILED: {file.name} is not a transcript")
        sys.exit(1)
    finding = verify(doc) if upto is None else verify_version(doc, upto)
    seats = doc.get("seats")
    click.echo(f"Game {doc.get('game_id')}: {doc.get('game')} (rules {doc.get('rules_version')}), "
               f"{len(seats) if isinstance(seats, list) else '?'} seats")
    click.echo(f"Events: {finding.events}")
    click.echo(f"Commands re-run: {finding.commands}")
    if verbose:
        for check in finding.checks:
            click.echo(f"  - {check}")
    if finding.ok:
        click.echo(f"Result: {_result(doc.get('result'))}" if upto is None
                   else f"Checked up to version {upto}")
        click.echo("OK")
        return
    if finding.version is None:
        click.echo(f"NOT VERIFIED: {finding.reason}")
        sys.exit(2 if finding.reason == NO_SEED else 1)
    click.echo(f"FAILED at version {finding.version}: {finding.reason}")
    sys.exit(1)


def _result(result: object) -> str:
    """A one-line summary of a recorded result."""
    if not isinstance(result, dict):
        return "none (the game is not over)"
    winners = result.get("winners")
    scores = result.get("scores")
    return f"winners {json.dumps(winners)}, scores {json.dumps(scores, sort_keys=True)}"


if __name__ == "__main__":
    audit()
