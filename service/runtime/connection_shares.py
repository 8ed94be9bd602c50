"""How many connections other than streams each API process holds, in memory shared by
gunicorn's master and its workers, so that a worker holding more than its share leaves new
connections to its siblings and hands kept-alive ones back
(service.runtime.gunicorn_worker.SharingStreamServer).

Every worker accepts from the one listening socket, and a kept-alive connection stays with the
worker that accepted it. Measured at 1,024 Loot games on two workers: 707 of the games' move
connections sat on one worker and 317 on the other, and a move took 1.33 s at the median on
the first and 0.27 s on the second (issue 29 item 3). Balancing the count of connections (as
nginx's and HAProxy's "least connections" do) evens that out, counting a client's requests
apart from its streams: a stream costs its worker about half what a move does, and with the
totals even one worker still held 777 of the 1,024 move connections.

The memory is an anonymous shared mapping made when this module is first imported, which is
in gunicorn's master (it loads service.runtime.gunicorn_conf, which imports this) before it
forks any worker: every worker inherits the same pages. The master hands each new worker a
free slot (``pre_fork``) and clears a dead worker's (``child_exit``); a process that was never
given a slot (no master of ours) counts nothing and is told it holds no more than its share.
"""

from __future__ import annotations

import mmap
import os
import struct
from typing import Any

SLOTS = 64  # API processes at once, a reload's new and old ones together
_SLOT = struct.Struct("=qq")  # pid, connections held (0, 0: free)
_HELD = struct.Struct("=q")


class ConnectionShares:
    def __init__(self, slots: int = SLOTS):
        self.slots = slots
        self._memory = mmap.mmap(-1, _SLOT.size * slots)  # MAP_SHARED | MAP_ANONYMOUS
        self._all = struct.Struct(f"={2 * slots}q")
        self.slot: int | None = None  # this process's, once it has claimed one

    # In the master.

    def assign(self, server: Any, worker: Any) -> None:
        """gunicorn's ``pre_fork``: give ``worker`` a slot no living worker holds."""
        taken = {getattr(w, "connection_slot", None) for w in server.WORKERS.values()}
        worker.connection_slot = next((s for s in range(self.slots) if s not in taken), None)
        if worker.connection_slot is not None:
            _SLOT.pack_into(self._memory, worker.connection_slot * _SLOT.size, 0, 0)

    def release(self, worker: Any) -> None:
        """gunicorn's ``child_exit``: a dead worker's connections are gone with it."""
        slot = getattr(worker, "connection_slot", None)
        if slot is not None:
            _SLOT.pack_into(self._memory, slot * _SLOT.size, 0, 0)

    # In a worker.

    def claim(self, worker: Any) -> None:
        self.slot = getattr(worker, "connection_slot", None)
        if self.slot is not None:
            _SLOT.pack_into(self._memory, self.slot * _SLOT.size, os.getpid(), 0)

    def publish(self, held: int) -> None:
        if self.slot is not None:
            _HELD.pack_into(self._memory, self.slot * _SLOT.size + 8, held)

    def over_share(self, held: int, margins: int = 1) -> bool:
        """Whether a process holding ``held`` connections holds clearly more than the least
        loaded sibling: by more than ``margins`` times a margin of a sixteenth of the
        sibling's, at least 8 (a few connections either way are noise, and every move would
        otherwise bounce)."""
        if self.slot is None:
            return False
        table = self._all.unpack_from(self._memory)
        mine = 2 * self.slot
        siblings = [table[i + 1] for i in range(0, len(table), 2) if table[i] and i != mine]
        if not siblings:
            return False
        fewest = min(siblings)
        return held > fewest + margins * max(8, fewest // 16)


SHARES = ConnectionShares()
