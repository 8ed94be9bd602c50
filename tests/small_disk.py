"""A small real disk to fill up (issue 9 item 7, issue 23): a tmpfs of a few MiB, mounted for
one test. Mounting needs root on Linux; elsewhere the tests that use it skip and say why."""

from __future__ import annotations

import contextlib
import errno
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest


class SmallDisk:
    def __init__(self, path: Path):
        self.path = path
        self.filler = path / "filler"

    def fill(self, room: int = 8192) -> None:
        """Leave about ``room`` bytes free (none, if Redis writes meanwhile)."""
        with open(self.filler, "ab", buffering=0) as handle:
            while (spare := _free_bytes(self.path) - room) > 0:
                try:
                    handle.write(b"\0" * min(spare, 1 << 20))
                except OSError as exc:  # a server writing to the disk took the rest
                    if exc.errno != errno.ENOSPC:
                        raise
                    return

    def free(self) -> None:
        self.filler.unlink(missing_ok=True)


def _free_bytes(path: Path) -> int:
    stat = os.statvfs(path)
    return stat.f_bavail * stat.f_frsize


@contextlib.contextmanager
def small_disk(mount_point: Path, size: str = "1m") -> Iterator[SmallDisk]:
    """A tmpfs of ``size`` mounted on ``mount_point`` (made if missing) for the block."""
    if sys.platform != "linux" or os.geteuid() != 0:
        pytest.skip("filling a disk needs a tmpfs mount: root on Linux")
    mount_point.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs",
                              str(mount_point)], capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    disk = SmallDisk(mount_point)
    try:
        yield disk
    finally:
        disk.free()
        subprocess.run(["umount", "-l", str(mount_point)], capture_output=True)
