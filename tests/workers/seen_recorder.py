"""``python -m tests.workers.seen_recorder [worker options]``: the real RQ worker
(``python -m workers``), with every ``Seen`` an expert bot is handed appended as a JSON line to
``$TABLESTREAM_SEEN_LOG`` before it decides. The leak test reads the file back: it can only
record what the worker really passed in, since the worker runs in its own process."""

from __future__ import annotations

import json
import os
import sys

from games.core import Command, Rng, Seen
from games.expert import Expert
from workers.__main__ import main

_decide = Expert.__call__


def _recording(self: Expert, seen: Seen, rng: Rng) -> Command:
    with open(os.environ["TABLESTREAM_SEEN_LOG"], "a", encoding="utf-8") as out:
        out.write(json.dumps({"game": self.game.name, "seat": seen.seat, "view": seen.view,
                              "legal": seen.legal, "events": [e.to_dict() for e in seen.events],
                              "think_ms": seen.think_ms, "live": seen.live}) + "\n")
    return _decide(self, seen, rng)


if __name__ == "__main__":
    Expert.__call__ = _recording  # type: ignore[method-assign]
    sys.exit(main())
