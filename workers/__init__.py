"""Background workers (DESIGN.md, Workers): RQ jobs that play bot seats and enforce turn clocks,
the scheduler that issues them after every append, and the sweeper that re-issues lost ones.

Three queues, so no kind of work waits behind a slower kind (issue 23 items 6 and 7):
``<queue>`` holds turn clocks, their warnings, takeback lapses and the quick bots (random,
basic), ``<queue>-search`` the searching bots (expert, whose think time is seconds), and
``<queue>-webhooks`` webhook deliveries (a silent receiver holds one for its whole deadline).
`tablestream serve` runs a worker for each; a worker started without a role serves all three,
the first before the others."""

from __future__ import annotations

import os

QUEUE_ENV = "TABLESTREAM_QUEUE"
DEFAULT_QUEUE = "tablestream"
SEARCH_SUFFIX = "-search"
WEBHOOKS_SUFFIX = "-webhooks"
# A worker's role: which of the queues it serves, in the order it takes jobs from them.
ROLES = ("all", "clocks", "search", "webhooks")


def queue_name() -> str:
    """The RQ queue clocks and quick bots use: $TABLESTREAM_QUEUE, else ``tablestream``."""
    return os.environ.get(QUEUE_ENV) or DEFAULT_QUEUE


def queue_names(role: str = "all", base: str | None = None) -> list[str]:
    """The queues a worker of ``role`` serves, the first one first (``base``: the main queue's
    name, default ``queue_name()``)."""
    base = base or queue_name()
    lanes = {"clocks": [base], "search": [base + SEARCH_SUFFIX],
             "webhooks": [base + WEBHOOKS_SUFFIX]}
    if role == "all":
        return [base, base + SEARCH_SUFFIX, base + WEBHOOKS_SUFFIX]
    return lanes[role]
