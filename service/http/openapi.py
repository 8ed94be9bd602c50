"""The OpenAPI document, generated from the app's schemas (``make openapi`` writes it)."""

from __future__ import annotations

import yaml

from service.runtime.config import Config


def openapi_dict() -> dict:
    """Build the spec from a fresh app; no Redis is contacted to do so."""
    import redis

    from service.http import create_app

    # A client that is never used: building the spec touches no server.
    client = redis.Redis.from_url("redis://127.0.0.1:1/0", decode_responses=True)
    app = create_app(Config(redis_url="redis://127.0.0.1:1/0", workers_enabled=False),
                     redis_client=client)
    return app.extensions["tablestream.api"].spec.to_dict()


def openapi_yaml() -> str:
    return yaml.safe_dump(openapi_dict(), sort_keys=True, allow_unicode=True)
