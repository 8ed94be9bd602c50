"""Background workers (DESIGN.md, Workers): RQ jobs that play bot seats and enforce turn clocks,
the scheduler that issues them after every append, and the sweeper that re-issues lost ones."""

from __future__ import annotations

import os

QUEUE_ENV = "TABLESTREAM_QUEUE"
DEFAULT_QUEUE = "tablestream"


def queue_name() -> str:
    """The RQ queue bots and clocks use: $TABLESTREAM_QUEUE, else ``tablestream``."""
    return os.environ.get(QUEUE_ENV) or DEFAULT_QUEUE
