"""openapi.yaml is generated from the code, committed, valid, and never drifts."""

from __future__ import annotations

from pathlib import Path

import yaml
from openapi_spec_validator import validate

from service.http.openapi import openapi_dict, openapi_yaml

COMMITTED = Path(__file__).resolve().parents[2] / "openapi.yaml"


def test_generated_openapi_document_is_valid():
    validate(openapi_dict())


def test_committed_openapi_matches_the_code():
    assert COMMITTED.exists(), "run `make openapi` and commit openapi.yaml"
    assert yaml.safe_load(COMMITTED.read_text()) == yaml.safe_load(openapi_yaml()), \
        "openapi.yaml drifted from the code: run `make openapi` and commit it"


def test_every_operation_has_a_summary_and_documents_its_errors():
    spec = openapi_dict()
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            if method == "parameters":
                continue
            assert operation.get("summary"), f"{method} {path} has no summary"
            errors = [s for s in operation["responses"] if s.startswith(("4", "5"))]
            assert errors or path.endswith(("/catalog", "/healthz")), \
                f"{method} {path} documents no errors"


def test_every_operation_has_its_own_id_and_security_and_no_global_security():
    from service.http.contract import OPERATIONS

    spec = openapi_dict()
    assert "security" not in spec and spec["servers"]
    seen = set()
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            if method == "parameters":
                continue
            assert (method, path) in OPERATIONS, f"name {method} {path} in contract.OPERATIONS"
            assert operation["operationId"] not in seen
            seen.add(operation["operationId"])
            assert "security" in operation
    assert spec["paths"]["/v1/games/catalog"]["get"]["security"] == []
    assert spec["paths"]["/v1/games/{game_id}/commands"]["post"]["security"] == [{"bearer": []}]


def test_each_games_commands_are_a_discriminated_union_built_from_its_schemas():
    from games import REGISTRY, UNLISTED

    schemas = openapi_dict()["components"]["schemas"]
    for name, game in REGISTRY.items():
        if name in UNLISTED:
            continue
        union = schemas["".join(p.capitalize() for p in f"{name}_command".split("_"))]
        assert sorted(union["discriminator"]["mapping"]) == sorted(game.commands)
        for kind, ref in union["discriminator"]["mapping"].items():
            command = schemas[ref.rsplit("/", 1)[1]]
            assert command["properties"]["type"]["enum"] == [kind]
            assert "expected_version" in command["required"]


def test_declared_headers_match_what_the_answers_carry():
    spec = openapi_dict()
    game = spec["paths"]["/v1/games/{game_id}"]["get"]["responses"]
    assert "ETag" in game["200"]["headers"]
    command = spec["paths"]["/v1/games/{game_id}/commands"]["post"]["responses"]
    assert "Idempotent-Replayed" in command["200"]["headers"]
    assert "Location" in spec["paths"]["/v1/games"]["post"]["responses"]["201"]["headers"]
    assert "Retry-After" in spec["components"]["responses"]["TOO_MANY_REQUESTS"]["headers"]


def test_the_servers_are_relative_so_try_it_out_calls_the_host_that_served_the_docs():
    from urllib.parse import urlparse

    for server in openapi_dict()["servers"]:
        parsed = urlparse(server["url"])
        assert not parsed.scheme and not parsed.netloc, server
        # Paths start with /v1: the server is the origin's root.
        assert server["url"] == "/"


def test_a_games_result_and_takeback_are_typed_with_integer_seats():
    schemas = openapi_dict()["components"]["schemas"]
    for ref in schemas["GameOut"]["discriminator"]["mapping"].values():
        game = schemas[ref.rsplit("/", 1)[1]]["properties"]
        result = schemas[game["result"]["anyOf"][0]["$ref"].rsplit("/", 1)[1]]
        assert {"winners", "scores", "ranking"} <= set(result["required"])
        assert result["properties"]["winners"]["items"]["type"] == "integer"
        assert result["properties"]["ranking"]["items"]["items"]["type"] == "integer"
        undo = game["undo"]
        assert undo["properties"]["waiting"]["items"]["type"] == "integer"
        assert undo["properties"]["by"]["type"] == "integer"
