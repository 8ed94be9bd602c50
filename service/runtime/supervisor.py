"""Keeping `tablestream serve`'s processes alive (issue 9, item 5).

A child that dies (the gunicorn master, a job worker, the embedded Redis) is started again after a
backoff that doubles while it keeps dying young, and the others go on serving meanwhile; every
death and restart is logged with its cause. `serve` stops (exit status 1) only when a child cannot
be kept up: it died young ``give_up_after`` times in a row. Ctrl-C or SIGTERM stops everything in
order (exit status 0), except a child whose own stop declines: the embedded Redis while its
append-only file cannot be written (a full disk) holds acknowledged writes only in memory, so it is
left running, never killed, and `serve` says so and exits with status 1 (issue 23 item 1).
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import subprocess
import time
from collections.abc import Callable
from typing import Protocol

log = logging.getLogger("tablestream.serve")

BACKOFF_FIRST = 0.5  # seconds before the first restart of a child that just died
BACKOFF_MAX = 30.0
# A child that ran this long had started and served (a crash loop dies in its first seconds:
# an import error, a port it cannot bind, which gunicorn retries for 5 s): its next restart is
# quick again, so kills spread over hours never add up to giving up.
STABLE_AFTER = 10.0
GIVE_UP_AFTER = 8  # deaths in a row, each younger than STABLE_AFTER: it cannot recover
STOP_TIMEOUT = 10.0


class Process(Protocol):
    """What the supervisor needs of a child: subprocess.Popen has it."""

    pid: int

    def poll(self) -> int | None: ...


class Child:
    """One supervised process: how to start it, and its run of early deaths."""

    def __init__(self, name: str, start: Callable[[], Process | None], *,
                 stop: Callable[[Process], None] | None = None, own_group: bool = True,
                 running: Process | None = None):
        self.name = name
        self._start = start
        self._stop = stop
        # The child leads a process group (serve's children do): when it dies, what it forked
        # (gunicorn's workers, which hold the listening socket) is stopped with it.
        self.own_group = own_group
        self.process: Process | None = running  # already started by the caller
        self.started_at = time.monotonic()
        self.deaths = 0  # in a row, each before STABLE_AFTER
        self.restarts = 0
        self.restart_at: float | None = None

    def spawn(self) -> None:
        """Start the process (the ``start`` callable may raise: the caller counts a death)."""
        self._kill_leftovers()
        self.process = self._start()
        self.started_at = time.monotonic()
        self.restart_at = None

    def stop(self) -> bool:
        """Stop the process if it runs (its own ``stop``, else SIGTERM), without waiting; False
        when its own ``stop`` declined (returned False): the process must be left running, and
        neither waited for nor killed."""
        process = self.process
        if process is None or process.poll() is not None:
            return True
        if self._stop is not None:
            return self._stop(process) is not False
        with contextlib.suppress(ProcessLookupError):
            os.kill(process.pid, signal.SIGTERM)
        return True

    def wait(self, deadline: float) -> None:
        """Wait for the process until ``deadline`` (monotonic), then SIGKILL it."""
        process = self.process
        if process is None:
            return
        while process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(process.pid, signal.SIGKILL)
            while process.poll() is None:
                time.sleep(0.05)
        self._kill_leftovers()

    def _signal_group(self, signum: int) -> None:
        if self.own_group and self.process is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signum)

    def _kill_leftovers(self) -> None:
        self._signal_group(signal.SIGKILL)


def describe_exit(status: int) -> str:
    """Why a process ended, in words: 'was killed by SIGKILL', 'exited with status 3'."""
    if status < 0:
        try:
            name = signal.Signals(-status).name
        except ValueError:
            name = f"signal {-status}"
        return f"was killed by {name}"
    return f"exited with status {status}"


class Supervisor:
    """Runs children until stopped, restarting the dead ones with backoff."""

    def __init__(self, children: list[Child], *, backoff_first: float = BACKOFF_FIRST,
                 backoff_max: float = BACKOFF_MAX, stable_after: float = STABLE_AFTER,
                 give_up_after: int = GIVE_UP_AFTER, poll_interval: float = 0.1):
        self.children = children
        self.backoff_first = backoff_first
        self.backoff_max = backoff_max
        self.stable_after = stable_after
        self.give_up_after = give_up_after
        self.poll_interval = poll_interval
        self.stopping = False
        self.left_running: list[Child] = []  # children whose stop declined (see stop_all)
        self.on_restart: Callable[[Child], None] | None = None  # after a child came back
        self.on_death: Callable[[Child, int], None] | None = None  # with the dead pid

    def request_stop(self, *_: object) -> None:
        self.stopping = True

    def run(self) -> int:
        """Start every child, keep them up until stopped; 0 when stopped, 1 when one gave up."""
        for child in self.children:
            if child.process is None:
                self._start(child, first=True)
        status = 0
        while not self.stopping:
            failed = self._tick()
            if failed is not None:
                log.error("%s could not be kept running (%d deaths in a row); stopping",
                          failed.name, failed.deaths)
                status = 1
                break
            time.sleep(self.poll_interval)
        self.stop_all()
        return 1 if self.left_running else status

    def _tick(self) -> Child | None:
        """Notice deaths, restart children whose backoff is over; the child that gave up."""
        now = time.monotonic()
        for child in self.children:
            if child.restart_at is not None:
                if now >= child.restart_at:
                    self._start(child)
                    if child.restart_at is None and self.on_restart is not None:
                        self.on_restart(child)
                if child.deaths >= self.give_up_after:
                    return child
                continue
            process = child.process
            status = process.poll() if process is not None else None
            if process is None or status is None:
                continue
            # What it forked (gunicorn's workers, still holding the port) goes with it, gently.
            child._signal_group(signal.SIGTERM)
            if self.on_death is not None:
                self.on_death(child, process.pid)
            lived = now - child.started_at
            self._schedule_restart(child, f"{describe_exit(status)} after {lived:.1f}s", lived)
            if child.deaths >= self.give_up_after:
                return child
        return None

    def _start(self, child: Child, first: bool = False) -> None:
        try:
            child.spawn()
        except Exception as exc:  # a start that fails is a death like any other
            if first:
                child.started_at = time.monotonic()
            self._schedule_restart(child, f"could not start: {exc}", 0.0)
            return
        if not first:
            child.restarts += 1
            pid = child.process.pid if child.process is not None else "?"
            log.warning("%s restarted (pid %s, restart %d)", child.name, pid, child.restarts)

    def _schedule_restart(self, child: Child, why: str, lived: float) -> None:
        child.deaths = 1 if lived >= self.stable_after else child.deaths + 1
        delay = min(self.backoff_max, self.backoff_first * 2 ** (child.deaths - 1))
        child.restart_at = time.monotonic() + delay
        if child.deaths < self.give_up_after:
            log.warning("%s %s; restarting it in %.1fs", child.name, why, delay)
        else:
            log.error("%s %s", child.name, why)

    def restart_now(self, child: Child) -> None:
        """Restart a healthy child at once (e.g. with new settings); not counted as a death."""
        if not self._stop_or_leave(child):
            return
        child.wait(time.monotonic() + STOP_TIMEOUT)
        self._start(child)

    def stop_all(self) -> None:
        """Stop every child; the first-listed (Redis) last, so the others finish their writes.

        A child whose stop declines is left running: never waited for, never killed (a SIGKILL
        of the embedded Redis that cannot write its append-only file loses acknowledged moves).
        """
        first, rest = self.children[:1], self.children[1:]
        stopping = [child for child in rest if self._stop_or_leave(child)]
        deadline = time.monotonic() + STOP_TIMEOUT
        for child in stopping:
            child.wait(deadline)
        for child in first:
            if self._stop_or_leave(child):
                child.wait(time.monotonic() + STOP_TIMEOUT)

    def _stop_or_leave(self, child: Child) -> bool:
        if child.stop():
            return True
        self.left_running.append(child)
        pid = child.process.pid if child.process is not None else "?"
        log.error("%s (pid %s) declined to stop and is LEFT RUNNING, not killed: stop it "
                  "yourself once it can (see the message above)", child.name, pid)
        return False


def popen(args: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    """Start a child of `serve` in a process group of its own (see ``detach_from_terminal``)."""
    return subprocess.Popen(args, env=env, preexec_fn=detach_from_terminal)


def detach_from_terminal() -> None:
    """In a child: leave the terminal's process group, so Ctrl-C reaches only `serve`, which
    then stops each child cleanly; and die with `serve` if it is killed outright (Linux)."""
    os.setpgid(0, 0)
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass
