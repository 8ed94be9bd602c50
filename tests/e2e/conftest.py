"""End-to-end fixtures: the real `tablestream serve` (gunicorn + gevent) as a subprocess."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest
import requests

from tests import unlimited


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def serving(redis_url: str, data_dir, *options: str,
            settings: dict[str, str] | None = None) -> Iterator[str]:
    """`tablestream serve` on a free port against ``redis_url``; yields its base URL.
    ``settings``: environment variables over tests/unlimited.py's."""
    port = free_port()
    env = {**os.environ, "REDIS_URL": redis_url, "TABLESTREAM_DATA": str(data_dir),
           **unlimited.ENV, **(settings or {})}
    # A session of its own, so teardown can stop gunicorn's workers even if serve is killed.
    process = subprocess.Popen([sys.executable, "-m", "service.clients.cli", "serve",
                                "--port", str(port),
                                "--job-workers", "0", *options], env=env,
                               stdout=subprocess.DEVNULL, start_new_session=True)
    base = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        try:
            if requests.get(f"{base}/games/catalog", timeout=5).status_code == 200:
                break
        except requests.RequestException:
            time.sleep(0.1)
    else:
        stop(process)
        pytest.fail("the server did not come up")
    try:
        yield base
    finally:
        stop(process)


@pytest.fixture
def server(redis_url, tmp_path):
    """`tablestream serve` on a free port against the test Redis; yields its base URL."""
    with serving(redis_url, tmp_path) as base:
        yield base


def stop(process: subprocess.Popen) -> None:
    """Stop `serve` and everything it started (SIGTERM, then SIGKILL to the whole group)."""
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        pass
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
