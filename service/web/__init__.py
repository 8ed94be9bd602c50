"""The browser client: a single-page app of static files (no build step, no CDN) at /play/.

The page is a third-party client of the public API like any other: it calls only the endpoints
in openapi.yaml, with the player's own token, so it can show nothing that player may not see."""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Response, abort, jsonify, redirect, send_from_directory

from service.web.i18n import LANGUAGES, catalog_json

STATIC = Path(__file__).parent / "static"

# Everything from this origin, nothing inline: the page's scripts are ES modules served here and
# its styles one stylesheet (style properties set from script go through the CSSOM, which a
# policy without 'unsafe-inline' allows).
CONTENT_SECURITY_POLICY = ("default-src 'none'; script-src 'self'; style-src 'self'; "
                           "img-src 'self' data:; connect-src 'self'; manifest-src 'self'; "
                           "worker-src 'self'; base-uri 'none'; "
                           "form-action 'self'; frame-ancestors 'none'")

blp = Blueprint("web", __name__, static_folder=str(STATIC), static_url_path="/play",
                url_prefix="")


@blp.route("/")
def root() -> Response:
    """The site's root opens the web client."""
    return redirect("/play/", code=302)


@blp.route("/play/")
def index() -> Response:
    """The single page; its modules load from /play/*."""
    return send_from_directory(STATIC, "index.html")


@blp.route("/play/i18n/<locale>.json")
def messages(locale: str) -> Response:
    """The page's words in one language (issue 28), from the gettext catalogs."""
    if locale not in LANGUAGES:
        abort(404)
    response = jsonify(catalog_json(locale))
    response.cache_control.no_cache = True  # revalidated: a new release's words show at once
    return response


@blp.after_request
def content_policy(response: Response) -> Response:
    response.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    return response
