"""What the generated OpenAPI document promises beyond what flask-smorest derives from the
schemas (issue 14: a contract client generators love).

- every operation has an ``operationId`` and its own ``security`` (none, optional or required);
- each game's commands are schemas of their own, united per game with a ``type`` discriminator
  and across games in ``AnyCommand``, built from the games' own marshmallow schemas, so adding
  a game adds its types; the same for each game's options;
- response headers are declared (ETag, Idempotent-Replayed, Retry-After, Location);
- ``servers`` says where the API lives when run with ``make run``.

All of it is one pure transformation of the document, ``finish_document``.
"""

from __future__ import annotations

import copy
from typing import Any

from events.projector import PLATFORM_EVENTS
from games import REGISTRY, UNLISTED
from service.app.json_schema import command_json_schema, json_schema, options_json_schema

BEARER = [{"bearer": []}]
SECURITY = {"none": [], "optional": [{}, *BEARER], "required": BEARER}

# (method, path) -> (operationId, who may call). One line per operation: a test fails when an
# operation is missing here, so a new endpoint gets a name and a security on purpose.
OPERATIONS: dict[tuple[str, str], tuple[str, str]] = {
    ("post", "/v1/players"): ("createPlayer", "none"),
    ("get", "/v1/games/catalog"): ("getCatalog", "none"),
    ("get", "/v1/games"): ("listGames", "none"),
    ("post", "/v1/games"): ("createGame", "required"),
    ("get", "/v1/games/{game_id}"): ("getGame", "optional"),
    ("post", "/v1/games/{game_id}/join"): ("joinGame", "required"),
    ("post", "/v1/games/{game_id}/leave"): ("leaveGame", "required"),
    ("post", "/v1/games/{game_id}/start"): ("startGame", "required"),
    ("post", "/v1/games/{game_id}/commands"): ("sendCommand", "required"),
    ("get", "/v1/games/{game_id}/events"): ("listEvents", "optional"),
    ("get", "/v1/games/{game_id}/events/stream"): ("streamEvents", "optional"),
    ("get", "/v1/games/{game_id}/replay"): ("getReplay", "optional"),
    ("get", "/v1/games/{game_id}/undo"): ("checkUndo", "required"),
    ("post", "/v1/games/{game_id}/undo"): ("requestUndo", "required"),
    ("post", "/v1/games/{game_id}/undo/answer"): ("answerUndo", "required"),
    ("get", "/v1/games/{game_id}/audit"): ("getAudit", "optional"),
    ("get", "/v1/games/{game_id}/events/{version}/explain"): ("explainEvent", "optional"),
    ("post", "/v1/games/{game_id}/disputes"): ("fileDispute", "required"),
    ("get", "/v1/me"): ("getMe", "required"),
    ("get", "/v1/me/games"): ("listMyGames", "required"),
    ("get", "/v1/me/events"): ("listMyNotices", "required"),
    ("get", "/v1/me/events/stream"): ("streamMyNotices", "required"),
    ("get", "/v1/me/webhooks"): ("listWebhooks", "required"),
    ("post", "/v1/me/webhooks"): ("createWebhook", "required"),
    ("delete", "/v1/me/webhooks/{webhook_id}"): ("deleteWebhook", "required"),
    ("get", "/v1/me/webhooks/{webhook_id}/deliveries"): ("listWebhookDeliveries", "required"),
    ("get", "/v1/me/push-key"): ("getPushKey", "required"),
    ("get", "/v1/me/push-subscriptions"): ("listPushSubscriptions", "required"),
    ("post", "/v1/me/push-subscriptions"): ("createPushSubscription", "required"),
    ("delete", "/v1/me/push-subscriptions/{subscription_id}"): ("deletePushSubscription",
                                                               "required"),
    ("get", "/v1/me/push-subscriptions/{subscription_id}/deliveries"): (
        "listPushDeliveries", "required"),
    ("get", "/v1/me/tokens"): ("listTokens", "required"),
    ("post", "/v1/me/tokens"): ("createToken", "required"),
    ("delete", "/v1/me/tokens/{token_id}"): ("revokeToken", "required"),
    ("post", "/v1/me/tokens/{token_id}/rotate"): ("rotateToken", "required"),
    ("post", "/v1/account"): ("signUp", "optional"),
    ("get", "/v1/account"): ("getAccount", "required"),
    ("get", "/v1/account/locale"): ("getLocale", "required"),
    ("put", "/v1/account/locale"): ("setLocale", "required"),
    ("put", "/v1/account/password"): ("setPassword", "required"),
    ("post", "/v1/account/passkeys/options"): ("passkeyRegistrationOptions", "required"),
    ("post", "/v1/account/passkeys"): ("addPasskey", "required"),
    ("delete", "/v1/account/passkeys/{passkey_id}"): ("removePasskey", "required"),
    ("get", "/v1/account/events"): ("listAccountEvents", "required"),
    ("post", "/v1/sessions"): ("signIn", "none"),
    ("post", "/v1/sessions/refresh"): ("refreshSession", "none"),
    ("post", "/v1/sessions/sign-out"): ("signOut", "none"),
    ("post", "/v1/sessions/revoke-all"): ("signOutEverywhere", "required"),
    ("post", "/v1/sessions/passkey/options"): ("passkeySignInOptions", "none"),
    ("post", "/v1/sessions/passkey"): ("passkeySignIn", "none"),
    ("get", "/v1/players/{handle}"): ("getProfile", "none"),
    ("get", "/v1/leaderboards/{game}"): ("getLeaderboard", "none"),
    ("get", "/healthz"): ("getHealth", "none"),
    ("get", "/readyz"): ("getReadiness", "none"),
}

# Relative: the server that serves the document (issue 26), so "Try it out" in /v1/docs calls
# the host and port the page came from, whatever they are.
SERVERS = [{"url": "/", "description": "The server that serves this document"}]

ANY_COMMAND = "AnyCommand"
ANY_OPTIONS = "AnyGameOptions"


def _header(description: str, schema_type: str = "string") -> dict[str, Any]:
    return {"description": description, "schema": {"type": schema_type}}


ETAG = _header('The game version in quotes, e.g. "42": send it in If-None-Match for a 304')
LOCATION = _header("The URL of what was created")
RETRY_AFTER = _header("Seconds to wait before trying again", "integer")
REPLAYED = {"description": "true when this answers a retry of a command already appended",
            "schema": {"type": "string", "enum": ["true", "false"]}}

# operationId -> status -> headers its answer carries.
RESPONSE_HEADERS: dict[str, dict[str, dict[str, Any]]] = {
    "getGame": {"200": {"ETag": ETAG}, "304": {"ETag": ETAG}},
    "sendCommand": {"200": {"Idempotent-Replayed": REPLAYED}},
    "createGame": {"201": {"Location": LOCATION}},
    "createPlayer": {"201": {"Location": LOCATION}},
    "createWebhook": {"201": {"Location": LOCATION}},
    "createToken": {"201": {"Location": LOCATION}},
    "rotateToken": {"201": {"Location": LOCATION}},
}
RETRYABLE = ("TOO_MANY_REQUESTS", "SERVICE_UNAVAILABLE")


def type_name(game_name: str, kind: str = "") -> str:
    """A component name: ``loot``, ``play_pirate`` -> ``LootPlayPirate``."""
    return "".join(part.capitalize() for part in f"{game_name}_{kind}".split("_") if part)


def hosted_games() -> list[str]:
    return [name for name in REGISTRY if name not in UNLISTED]


def game_schemas() -> dict[str, dict[str, Any]]:
    """Component schemas for every hosted game's commands (one per command, one union per
    game with a ``type`` discriminator, ``AnyCommand`` over the games) and options."""
    schemas: dict[str, dict[str, Any]] = {}
    unions = []
    for name in hosted_games():
        game = REGISTRY[name]
        mapping = {}
        for kind in game.commands:
            component = type_name(name, kind)
            schemas[component] = {"description": f"{game.title}: {kind}",
                                  **command_json_schema(game, kind)}
            mapping[kind] = f"#/components/schemas/{component}"
        union = type_name(name, "command")
        schemas[union] = {"description": f"Any {game.title} command",
                          "oneOf": [{"$ref": ref} for ref in mapping.values()],
                          "discriminator": {"propertyName": "type", "mapping": mapping}}
        unions.append(union)
        schemas[type_name(name, "options")] = {"description": f"{game.title} options",
                                               **options_json_schema(game)}
    schemas[ANY_COMMAND] = {
        "description": "A command of any hosted game: the game's own `type` names which. "
                       "Each legal command a view lists can be sent as it is.",
        "anyOf": [{"$ref": f"#/components/schemas/{union}"} for union in unions]}
    schemas[ANY_OPTIONS] = {
        "description": "The options of the game being created (see the catalog)",
        "anyOf": [{"$ref": f"#/components/schemas/{type_name(n, 'options')}"}
                  for n in hosted_games()]}
    return schemas


def finish_document(document: dict[str, Any]) -> dict[str, Any]:
    """The generated document with everything this module promises added."""
    doc = copy.deepcopy(document)
    doc["servers"] = SERVERS
    doc.pop("security", None)  # each operation says its own
    doc.setdefault("components", {}).setdefault("schemas", {}).update(game_schemas())
    for path, item in doc.get("paths", {}).items():
        for method, operation in item.items():
            if method == "parameters":
                continue
            operation_id, access = OPERATIONS.get((method, path), (None, "required"))
            if operation_id:
                operation["operationId"] = operation_id
            operation["security"] = SECURITY[access]
            for status, headers in RESPONSE_HEADERS.get(operation_id or "", {}).items():
                response = operation["responses"].setdefault(status, {"description": status})
                response.setdefault("headers", {}).update(headers)
    _typed_commands(doc)
    _typed_games(doc)
    _enveloped_lists(doc)
    _prune_unused_schemas(doc)
    responses = doc["components"].get("responses", {})
    for name in RETRYABLE:
        if name in responses:
            responses[name].setdefault("headers", {})["Retry-After"] = RETRY_AFTER
    return doc


def _typed_commands(doc: dict[str, Any]) -> None:
    """The command body, the legal commands and the game options point at the games' types."""
    ref = {"$ref": f"#/components/schemas/{ANY_COMMAND}"}
    command = doc["paths"].get("/v1/games/{game_id}/commands", {}).get("post")
    if command:
        command["requestBody"]["content"]["application/json"]["schema"] = ref
    schemas = doc["components"]["schemas"]
    if "GameOut" in schemas:
        schemas["GameOut"]["properties"]["legal_commands"]["items"] = ref
    if "GameCreate" in schemas:
        options = schemas["GameCreate"]["properties"]["options"]
        schemas["GameCreate"]["properties"]["options"] = {
            "description": options.get("description", "The game's options; see the catalog"),
            "allOf": [{"$ref": f"#/components/schemas/{ANY_OPTIONS}"}]}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _or_null(name: str, description: str) -> dict[str, Any]:
    return {"description": description, "anyOf": [_ref(name), {"type": "null"}]}


def _typed_games(doc: dict[str, Any]) -> None:
    """A game, its event page and each event typed by the game they are of (issue 26 item 4):
    ``GameOut`` and ``EventPage`` become unions discriminated by ``game``, each member with
    the game's own view, result, legal commands and events (from the game's ``shapes.py``);
    a game's events a union discriminated by ``type``, the platform's events (joins, clocks,
    takebacks) one shape beside them."""
    schemas = doc["components"]["schemas"]
    if not {"GameOut", "EventPage", "EventOut"} <= schemas.keys():
        return
    game_out, event_page, event_out = (schemas[n] for n in ("GameOut", "EventPage", "EventOut"))
    platform = copy.deepcopy(event_out)
    platform["description"] = "An event of the platform, the same in every game"
    platform["properties"]["type"] = {"type": "string", "enum": sorted(PLATFORM_EVENTS)}
    schemas["PlatformEvent"] = platform
    games, pages = {}, {}
    for name, game in REGISTRY.items():
        if game.view_shape is None:
            continue
        prefix = type_name(name)
        schemas[f"{prefix}View"] = {"description": f"What you may see of a {game.title} game",
                                    **copy.deepcopy(json_schema(game.view_shape))}
        schemas[f"{prefix}Result"] = {"description": f"How a {game.title} game ended",
                                      **copy.deepcopy(json_schema(game.result_shape))}
        mapping = {}
        for kind, shape in game.event_shapes.items():
            assert kind not in PLATFORM_EVENTS, f"{name}'s {kind} is a platform event's name"
            data, envelope = type_name(name, kind) + "Data", type_name(name, kind) + "Event"
            schemas[data] = {"description": f"{game.title}: the data of {kind}",
                             **copy.deepcopy(json_schema(shape))}
            schemas[envelope] = copy.deepcopy(event_out)
            schemas[envelope]["description"] = f"{game.title}: {kind}"
            schemas[envelope]["properties"]["type"] = {"type": "string", "enum": [kind]}
            schemas[envelope]["properties"]["data"] = _or_null(data, "Null when hidden from you")
            mapping[kind] = _ref(envelope)["$ref"]
        mapping.update((kind, _ref("PlatformEvent")["$ref"]) for kind in sorted(PLATFORM_EVENTS))
        schemas[f"{prefix}Event"] = {
            "description": f"An event of a {game.title} game, by its `type`",
            "oneOf": [{"$ref": ref} for ref in dict.fromkeys(mapping.values())],
            "discriminator": {"propertyName": "type", "mapping": mapping}}
        member = copy.deepcopy(game_out)
        member["description"] = f"A {game.title} game as you may see it"
        member["properties"]["game"] = {"type": "string", "enum": [name]}
        member["properties"]["view"] = _or_null(f"{prefix}View",
                                                "What you may see; null before the start")
        member["properties"]["result"] = _or_null(f"{prefix}Result",
                                                  "Null while the game runs")
        member["properties"]["pending"]["propertyNames"] = {"pattern": "^[0-9]+$"}
        if type_name(name, "options") in schemas:
            member["properties"]["options"] = _ref(type_name(name, "options"))
        if type_name(name, "command") in schemas:
            member["properties"]["legal_commands"]["items"] = _ref(type_name(name, "command"))
        schemas[f"{prefix}Game"] = member
        games[name] = _ref(f"{prefix}Game")["$ref"]
        page = copy.deepcopy(event_page)
        page["description"] = f"A page of a {game.title} game's events"
        page["properties"]["game"] = {"type": "string", "enum": [name]}
        page["properties"]["events"]["items"] = _ref(f"{prefix}Event")
        schemas[f"{prefix}EventPage"] = page
        pages[name] = _ref(f"{prefix}EventPage")["$ref"]
    # The move's answer and the player's list name no game at their top: their events and
    # results are any game's (each game's own union of events already holds the platform's).
    results = [_ref(f"{type_name(name)}Result") for name in games]
    if "CommandOut" in schemas:
        schemas["CommandOut"]["properties"]["events"]["items"] = {
            "anyOf": [_ref(f"{type_name(name)}Event") for name in games]}
    if "MyGame" in schemas:
        schemas["MyGame"]["properties"]["result"] = {
            "description": "How the game ended; null while it runs",
            "anyOf": [*results, {"type": "null"}]}
    schemas["GameOut"] = {"description": "A game as you may see it, typed by its `game`",
                          "oneOf": [{"$ref": ref} for ref in games.values()],
                          "discriminator": {"propertyName": "game", "mapping": games}}
    schemas["EventPage"] = {"description": "A page of a game's events, typed by its `game`",
                            "oneOf": [{"$ref": ref} for ref in pages.values()],
                            "discriminator": {"propertyName": "game", "mapping": pages}}


def _enveloped_lists(doc: dict[str, Any]) -> None:
    """A list that pages answers its bare array, or with ``envelope=true`` ``{items, next}``
    (issue 26 item 5): its answer is one or the other, the page a schema of its own
    (``TokenOutPage`` for a list of ``TokenOut``)."""
    schemas = doc["components"]["schemas"]
    for item in doc.get("paths", {}).values():
        operation = item.get("get")
        if operation is None or not any(p.get("name") == "envelope"
                                        for p in operation.get("parameters", ())):
            continue
        content = operation["responses"]["200"]["content"]["application/json"]
        array = content["schema"]
        page = array["items"]["$ref"].rsplit("/", 1)[1] + "Page"
        schemas[page] = {
            "type": "object", "description": "A page of the list (`envelope=true`)",
            "properties": {"items": copy.deepcopy(array), "next": {
                "type": ["string", "null"], "description": "The next page's `cursor`, or null "
                                                         "on the last page"}},
            "required": ["items", "next"], "additionalProperties": False}
        content["schema"] = {"oneOf": [array, _ref(page)]}


def _prune_unused_schemas(doc: dict[str, Any]) -> None:
    """Drop schemas nothing refers to (flask-smorest registers some we never use, and the
    command body's parsing schema is replaced by the games' types): linters flag them."""
    schemas = doc["components"]["schemas"]
    while True:
        text = repr({k: v for k, v in doc.items() if k != "components"}) + \
            repr({k: v for k, v in doc["components"].items()})
        unused = [name for name in schemas if f"#/components/schemas/{name}'" not in text]
        if not unused:
            return
        for name in unused:
            del schemas[name]
