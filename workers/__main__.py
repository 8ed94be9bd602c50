"""``python -m workers [--with-scheduler] [--burst]``: run Tablestream's RQ worker(s)."""

from __future__ import annotations

import argparse
import sys

from workers import ROLES
from workers.runner import WORKER_CLASSES, run


def main(argv: list[str] | None = None) -> int:
    """Parse the options and run the worker(s) until stopped."""
    parser = argparse.ArgumentParser(prog="python -m workers", description=__doc__)
    parser.add_argument("--with-scheduler", action="store_true",
                        help="also run the clock loop (turn clocks need one somewhere)")
    parser.add_argument("--burst", action="store_true", help="quit when the queue is empty")
    parser.add_argument("--workers", type=int, default=1, help="processes (a pool when > 1)")
    parser.add_argument("--worker-class", choices=sorted(WORKER_CLASSES), default="simple")
    parser.add_argument("--queue", default=None, help="default: $TABLESTREAM_QUEUE or tablestream")
    parser.add_argument("--role", choices=ROLES, default="all",
                        help="which queues: clocks (and quick bots), search, webhooks, or all")
    parser.add_argument("--log-level", default="WARNING")
    options = parser.parse_args(argv)
    run(with_scheduler=options.with_scheduler, burst=options.burst, workers=options.workers,
        worker_class=options.worker_class, queue=options.queue, role=options.role,
        log_level=options.log_level)
    return 0


if __name__ == "__main__":
    sys.exit(main())
