"""The games' marshmallow schemas as JSON Schema, for the catalog and the OpenAPI document.

Clients learn each game's options and commands from here, so a game added to the registry
appears in both with no hand-written description.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from marshmallow import Schema

from games.core import Game


@cache
def _plugin() -> MarshmallowPlugin:
    plugin = MarshmallowPlugin(schema_name_resolver=lambda schema: None)  # nested: inline
    APISpec("json-schema", "1", "3.1.0", plugins=[plugin])  # init_spec wires the converter
    return plugin


def json_schema(schema: Schema | type[Schema]) -> dict[str, Any]:
    """One marshmallow schema as a JSON Schema object."""
    instance = schema() if isinstance(schema, type) else schema
    return _plugin().converter.schema2jsonschema(instance)


def options_json_schema(game: Game) -> dict[str, Any]:
    """A game's options as JSON Schema, without its test-only ones (not offered to clients)."""
    body = json_schema(game.options)
    hidden = game.test_only_options
    if hidden:
        body = {**body, "properties": {k: v for k, v in body.get("properties", {}).items()
                                       if k not in hidden}}
        if "required" in body:
            body["required"] = [k for k in body["required"] if k not in hidden]
    return body


def command_json_schema(game: Game, kind: str) -> dict[str, Any]:
    """The full body of ``kind`` as POSTed: its ``type``, its fields, and the envelope fields
    (``expected_version``, ``command_id``) every command carries."""
    body = json_schema(game.commands[kind])
    properties = {"type": {"type": "string", "enum": [kind]}, **body.get("properties", {}),
                  "expected_version": {"type": "integer", "minimum": 0, "description":
                                       "The game version the command was decided against"},
                  "command_id": {"type": "string", "minLength": 1, "maxLength": 128,
                                 "description": "Idempotency key: a retry with the same id "
                                                "returns the first answer"}}
    return {"type": "object", "properties": properties,
            "required": ["type", *body.get("required", []), "expected_version"],
            "additionalProperties": False}
