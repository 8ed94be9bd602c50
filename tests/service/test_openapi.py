"""openapi.yaml is generated from the code, committed, valid, and never drifts."""

from __future__ import annotations

from pathlib import Path

import yaml
from openapi_spec_validator import validate

from service.openapi import openapi_dict, openapi_yaml

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
