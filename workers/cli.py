"""The ``tablestream worker`` and ``tablestream selfplay`` commands."""

from __future__ import annotations

import json
from typing import Any

import click

from games.core import DEFAULT_THINK_MS
from workers import ROLES

# Names only: importing workers.runner would load rq and redis into every `tablestream`
# command, and `audit verify` must run offline with neither.
WORKER_CLASS_NAMES = ("fork", "simple")


@click.command()
@click.option("--scheduler/--no-scheduler", default=True, show_default=True,
              help="run the clock loop too (turn clocks need one somewhere)")
@click.option("--burst", is_flag=True, help="quit when the queue is empty")
@click.option("--workers", type=int, default=1, show_default=True,
              help="worker processes (a pool when > 1)")
@click.option("--worker-class", type=click.Choice(WORKER_CLASS_NAMES), default="simple",
              show_default=True, help="simple: jobs in-process (fastest); fork: one per job")
@click.option("--queue", default=None, help="[default: $TABLESTREAM_QUEUE or tablestream]")
@click.option("--role", type=click.Choice(ROLES), default="all", show_default=True,
              help="clocks: clocks and quick bots; search: expert bots; webhooks: deliveries; "
              "all: every queue, clocks first")
@click.option("--log-level", default="WARNING", show_default=True)
def worker(scheduler: bool, burst: bool, workers: int, worker_class: str, queue: str | None,
           role: str, log_level: str) -> None:
    """Run RQ workers for bot seats and turn clocks on $QUEUE_REDIS_URL (or the store's Redis)."""
    from workers.runner import run

    run(with_scheduler=scheduler, burst=burst, workers=workers, worker_class=worker_class,
        queue=queue, role=role, log_level=log_level)


@click.command()
@click.argument("game")
@click.option("--games", "count", type=int, default=100, show_default=True)
@click.option("--seats", default="basic,random", show_default=True,
              help="bot level per seat, comma-separated")
@click.option("--seed", default="selfplay", show_default=True)
@click.option("--rotate/--no-rotate", default=True, show_default=True,
              help="move the levels one seat on each game, so position does not bias win rates")
@click.option("--options", "options_json", default="{}", show_default=True,
              help='the game\'s options as JSON, e.g. \'{"team_play": true}\' (see the catalog)')
@click.option("--think-ms", type=click.IntRange(1, 60_000), default=DEFAULT_THINK_MS,
              show_default=True, help="an expert seat's think time per decision (sets its "
              "playout budget, so a run replays exactly)")
@click.option("--progress", "every", type=click.IntRange(0), default=0, show_default=True,
              help="also print the figures so far after every N games (0: only at the end)")
def selfplay(game: str, count: int, seats: str, seed: str, rotate: bool,
             options_json: str, think_ms: int, every: int) -> None:
    """Play whole games between bots in-process (rules only) and print win rates and games/s."""
    from games import REGISTRY
    from workers.selfplay import format_report
    from workers.selfplay import selfplay as play

    if game not in REGISTRY:
        raise click.BadParameter(f"known games: {', '.join(sorted(REGISTRY))}", param_hint="GAME")
    levels = [level.strip() for level in seats.split(",") if level.strip()]
    rules = REGISTRY[game]
    if not rules.min_seats <= len(levels) <= rules.max_seats:
        raise click.BadParameter(f"{rules.title} takes {rules.min_seats} to {rules.max_seats} "
                                 "seats", param_hint="--seats")
    unknown = sorted(set(levels) - set(rules.bot_levels))
    if unknown:
        raise click.BadParameter(f"unknown levels {unknown}; {rules.title} has "
                                 f"{', '.join(rules.bot_levels)}", param_hint="--seats")
    options = _game_options(rules, options_json)
    def progress(report: Any) -> None:
        click.echo(f"[after {report.games} of {count} games]\n{format_report(report)}")

    click.echo(format_report(play(game, count, levels, options, seed=seed, rotate=rotate,
                                  think_ms=think_ms, progress=progress, every=every)))


def _game_options(rules: Any, options_json: str) -> dict[str, Any]:
    """``--options`` parsed and checked against the game's option schema (as POST /games does)."""
    from marshmallow import ValidationError

    try:
        options = json.loads(options_json)
    except json.JSONDecodeError as exc:
        raise click.BadParameter(f"not JSON: {exc}", param_hint="--options") from None
    if not isinstance(options, dict):
        raise click.BadParameter("must be a JSON object", param_hint="--options")
    try:
        rules.load_options(options)
    except ValidationError as exc:
        raise click.BadParameter(json.dumps(exc.messages), param_hint="--options") from None
    return options
