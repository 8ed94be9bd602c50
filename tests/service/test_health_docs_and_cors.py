"""Operating the service: health checks, the served API reference, CORS, request ids."""

from __future__ import annotations

import json
import logging
import re

import pytest
from openapi_spec_validator import validate

from service.http import create_app
from service.http.observability import ACCESS_LOGGER
from service.runtime.config import Config
from workers.scheduling import JobScheduler


@pytest.mark.standalone_redis("a cluster client connects when it is made: an app over an "
                              "unreachable Cluster fails to start instead of answering")
def test_healthz_answers_without_touching_redis(redis_url):
    app = create_app(Config(redis_url="redis://127.0.0.1:1/0", workers_enabled=False))
    response = app.test_client().get("/healthz")
    assert response.status_code == 200 and response.json == {"status": "ok"}


def test_readyz_is_ready_when_redis_is_writable_and_no_worker_is_expected(api):
    response = api.client.get("/readyz")
    assert response.status_code == 200, response.json
    assert response.json == {"status": "ready", "checks": {"store": "ok", "worker": "disabled"}}


@pytest.mark.standalone_redis("a cluster client connects when it is made: an app over an "
                              "unreachable Cluster fails to start instead of answering")
def test_readyz_is_503_problem_when_redis_is_unreachable():
    app = create_app(Config(redis_url="redis://127.0.0.1:1/0", workers_enabled=False))
    response = app.test_client().get("/readyz")
    assert response.status_code == 503
    assert response.mimetype == "application/problem+json"
    assert response.json["code"] == "not_ready" and response.headers["Retry-After"] == "5"
    assert response.json["details"]["checks"]["store"].startswith("unavailable")


def test_readyz_waits_for_a_worker_heartbeat_when_the_api_issues_jobs(redis_url, queue_redis_url,
                                                                    redis_client):
    from workers.scheduling import connection_like, queue_connection

    queue = queue_connection(queue_redis_url) if queue_redis_url else connection_like(redis_client)
    followups = JobScheduler(queue, queue="readyz-test-no-worker")
    app = create_app(Config(redis_url=redis_url, queue_redis_url=queue_redis_url,
                            rate_limit_per_second=0), followups=followups)
    response = app.test_client().get("/readyz")
    assert response.status_code == 503
    assert response.json["details"]["checks"] == {"store": "ok",
                                                  "worker": "no worker has registered"}


def test_the_openapi_document_is_served_as_json_and_matches_the_committed_one(api):
    from service.http.openapi import openapi_dict

    response = api.client.get("/v1/openapi.json")
    assert response.status_code == 200
    validate(response.json)
    assert response.json["paths"].keys() == openapi_dict()["paths"].keys()


def test_the_browsable_reference_loads_its_assets_from_the_service_not_a_cdn(api):
    page = api.client.get("/v1/docs")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "/v1/openapi.json" in html and "http://" not in html and "https://" not in html
    for asset in ("swagger-ui-bundle.js", "swagger-ui.css", "swagger-ui-standalone-preset.js"):
        served = api.client.get(f"/v1/docs/assets/static/{asset}")
        assert served.status_code == 200 and len(served.data) > 1000, asset


def test_cors_allows_only_the_configured_origins(redis_url):
    config = Config(redis_url=redis_url, workers_enabled=False, rate_limit_per_second=0,
                    cors_origins=("https://play.example",))
    client = create_app(config).test_client()
    preflight = client.options("/v1/games", headers={
        "Origin": "https://play.example", "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "Authorization, Content-Type"})
    assert preflight.headers["Access-Control-Allow-Origin"] == "https://play.example"
    assert "authorization" in preflight.headers["Access-Control-Allow-Headers"].lower()
    answer = client.get("/v1/games/catalog", headers={"Origin": "https://play.example"})
    assert answer.headers["Access-Control-Allow-Origin"] == "https://play.example"
    assert "ETag" in answer.headers["Access-Control-Expose-Headers"]
    other = client.get("/v1/games/catalog", headers={"Origin": "https://evil.example"})
    assert "Access-Control-Allow-Origin" not in other.headers


def test_no_cors_headers_unless_origins_are_configured(api):
    answer = api.client.get("/v1/games/catalog", headers={"Origin": "https://play.example"})
    assert "Access-Control-Allow-Origin" not in answer.headers


class _Lines(logging.Handler):
    def __init__(self):
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record):
        self.lines.append(record.getMessage())


def test_every_request_has_an_id_echoed_in_a_header_and_in_its_json_log_line(api):
    lines = _Lines()
    logging.getLogger(ACCESS_LOGGER).addHandler(lines)
    try:
        headers = api.player("ann")
        mine = api.client.get("/v1/games/catalog", headers={"X-Request-ID": "phone-42.a"})
        fresh = api.client.post("/v1/games", headers=headers, json={"game": "loot", "seats": [
            {"kind": "human"}, {"kind": "human"}]})
    finally:
        logging.getLogger(ACCESS_LOGGER).removeHandler(lines)
    assert mine.headers["X-Request-ID"] == "phone-42.a"
    assert len(fresh.headers["X-Request-ID"]) == 32
    logged = [json.loads(line) for line in lines.lines]
    by_id = {entry["request_id"]: entry for entry in logged}
    assert by_id["phone-42.a"]["status"] == 200
    assert by_id["phone-42.a"]["route"] == "/v1/games/catalog"
    failed = by_id[fresh.headers["X-Request-ID"]]
    assert failed["status"] == 201 and failed["method"] == "POST" and failed["player"]


def test_a_request_id_that_could_forge_log_lines_is_replaced(api):
    answer = api.client.get("/v1/games/catalog", headers={"X-Request-ID": "x\", \"admin\": 1"})
    assert answer.headers["X-Request-ID"] != "x\", \"admin\": 1"


def _metric(page: str, name: str, **labels: str) -> float:
    """The value of one sample in a Prometheus text page (0 when absent)."""
    from prometheus_client.parser import text_string_to_metric_families

    total = 0.0
    for family in text_string_to_metric_families(page):
        for sample in family.samples:
            if sample.name == name and all(sample.labels.get(k) == v for k, v in labels.items()):
                total += sample.value
    return total


def test_metrics_count_requests_by_route_and_status_and_moves_and_conflicts(api):
    before = api.client.get("/metrics").get_data(as_text=True)
    game_id, players = api.table("loot", 2)
    mine = api.get(game_id, players[0])
    seat = int(sorted(mine["pending"])[0])
    mine = api.get(game_id, players[seat])
    assert api.send(game_id, players[seat], mine["legal_commands"][0],
                    mine["version"]).status_code == 200
    stale = api.send(game_id, players[seat], mine["legal_commands"][0], mine["version"] - 1)
    assert stale.status_code == 409
    page = api.client.get("/metrics")
    assert page.status_code == 200 and page.mimetype == "text/plain"
    after = page.get_data(as_text=True)
    route = "/v1/games/<game_id>/commands"
    for name, labels, grew_by in [
            ("tablestream_http_requests_total", {"route": route, "status": "200"}, 1),
            ("tablestream_http_requests_total", {"route": route, "status": "409"}, 1),
            ("tablestream_move_seconds_count", {"sender": "human"}, 2),
            ("tablestream_http_request_seconds_count", {"route": route}, 2)]:
        assert _metric(after, name, **labels) - _metric(before, name, **labels) >= grew_by, name
    assert _metric(after, "tablestream_appends_total") > _metric(before,
                                                                 "tablestream_appends_total")
    assert _metric(after, "tablestream_append_conflicts_total") > _metric(
        before, "tablestream_append_conflicts_total")
    assert "tablestream_sse_connections" in after and "tablestream_clock_lateness_seconds" in after


def test_the_browsable_reference_may_not_be_framed_and_runs_only_its_own_scripts(api):
    """Issue 23 item 16: /v1/docs has a content policy like /play/'s."""
    import base64
    import hashlib
    import re

    page = api.client.get("/v1/docs")
    policy = page.headers["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in policy and "default-src 'none'" in policy
    assert "'unsafe-inline'" not in policy.split("script-src")[1].split(";")[0]
    [inline] = re.findall(rb"<script>(.*?)</script>", page.data, re.DOTALL)
    digest = base64.b64encode(hashlib.sha256(inline).digest()).decode()
    assert f"'sha256-{digest}'" in policy
    asset = api.client.get("/v1/docs/assets/static/swagger-ui-bundle.js")
    assert "frame-ancestors 'none'" in asset.headers["Content-Security-Policy"]


def test_random_methods_and_paths_are_labelled_other_and_do_not_grow_the_metrics(api):
    """Issue 23 item 14: label values come from a fixed set, whatever the requests."""
    import secrets

    api.client.get("/v1/nothing-here")
    api.client.open("/v1/health", method="BREW")
    before = api.client.get("/metrics").get_data(as_text=True)
    sent = []
    for _ in range(100):
        path, method, other = (secrets.token_hex(4), secrets.token_hex(4).upper(),
                               "X" + secrets.token_hex(4).upper())
        sent += [path, method, other]
        api.client.open(f"/v1/{path}", method=method)
        api.client.open("/v1/games/catalog", method=other)
    after = api.client.get("/metrics").get_data(as_text=True)
    # No label took a value from a request (the length of the text is no measure: in a full
    # run the other test processes' requests add to the same multiprocess metrics).
    assert [value for value in sent if value.lower() in after.lower()] == []
    assert set(re.findall(r'method="([^"]*)"', after)) <= {
        "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "other"}
    assert _metric(after, "tablestream_http_requests_total", method="other", route="other") \
        - _metric(before, "tablestream_http_requests_total", method="other", route="other") == 200
