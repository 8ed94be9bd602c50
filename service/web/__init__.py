"""The browser client: a single-page app of static files (no build step, no CDN) at /play/.

The page is a third-party client of the public API like any other: it calls only the endpoints
in openapi.yaml, with the player's own token, so it can show nothing that player may not see."""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Response, redirect, send_from_directory

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


@blp.after_request
def content_policy(response: Response) -> Response:
    response.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    return response
