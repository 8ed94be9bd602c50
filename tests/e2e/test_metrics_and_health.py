"""The real `tablestream serve` (gunicorn and a worker), scraped as an operator would."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from urllib.parse import urlparse, urlunparse

import pytest
import requests

from tests import unlimited
from tests.e2e.conftest import free_port, stop
from tests.service.test_health_docs_and_cors import _metric

pytestmark = pytest.mark.e2e

METRICS_DB = 7  # a database of its own: this test's worker sweeps every game it can see


@pytest.fixture
def served_with_worker(redis_url, tmp_path):
    url = urlunparse(urlparse(redis_url)._replace(path=f"/{METRICS_DB}"))
    port = free_port()
    env = {**os.environ, "REDIS_URL": url, **unlimited.ENV,
           "TABLESTREAM_DATA": str(tmp_path), "TABLESTREAM_QUEUE": f"metrics-{port}"}
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    process = subprocess.Popen([sys.executable, "-m", "service.clients.cli", "serve",
                                "--port", str(port),
                                "--job-workers", "1"], env=env, stdout=subprocess.DEVNULL,
                               start_new_session=True)
    root = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        try:
            if requests.get(f"{root}/readyz", timeout=5).status_code == 200:
                break
        except requests.RequestException:
            pass
        time.sleep(0.2)
    else:
        stop(process)
        pytest.fail("serve did not become ready (Redis writable and a worker heartbeat)")
    yield root
    stop(process)


def test_one_scrape_adds_up_every_api_process_and_the_worker(served_with_worker):
    root = served_with_worker
    base = f"{root}/v1"
    token = requests.post(f"{base}/players", json={"name": "ann"}, timeout=10).json()["token"]
    headers = {"Authorization": f"Bearer {token}"}
    created = requests.post(f"{base}/games", headers=headers, timeout=10, json={
        "game": "loot", "seats": [{"kind": "bot", "level": "random"}] * 2})
    game_id = created.json()["id"]  # a table of bots starts by itself
    deadline = time.monotonic() + 60
    while requests.get(f"{base}/games/{game_id}", timeout=10).json()["status"] != "finished":
        assert time.monotonic() < deadline, "the bots did not finish the game"
        time.sleep(0.2)
    for _ in range(20):  # two gunicorn processes: several requests land on each
        requests.get(f"{base}/games/catalog", timeout=10)
    page = requests.get(f"{root}/metrics", timeout=10).text
    assert _metric(page, "tablestream_http_requests_total",
                   route="/v1/games/catalog", status="200") >= 20
    assert _metric(page, "tablestream_bot_turn_seconds_count") > 10  # counted in the worker
    assert _metric(page, "tablestream_move_seconds_count", sender="bot") > 10
    assert 'tablestream_queue_jobs{state="waiting"}' in page
    # The API processes time their garbage collector (loading the app alone sets it off).
    assert _metric(page, "tablestream_gc_seconds_total") > 0
    ready = requests.get(f"{root}/readyz", timeout=10).json()
    assert ready == {"status": "ready", "checks": {"store": "ok", "worker": "ok"}}
