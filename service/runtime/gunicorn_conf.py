"""gunicorn settings that need code (`tablestream serve` loads this module as its config)."""

from __future__ import annotations

import os
from typing import Any

# gunicorn's own limits (its defaults, stated): a longer request line is 414, a longer header
# or more headers 431, answered before the app sees the request by
# service.runtime.gunicorn_worker in problem+json. No URL or header of the API comes near them.
limit_request_line = 4094
limit_request_field_size = 8190
limit_request_fields = 100


def child_exit(server: Any, worker: Any) -> None:
    """A dead API process's live gauges (open SSE streams) must stop counting."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)
