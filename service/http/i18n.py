"""The reader's language at the HTTP edge (issue 28), through Flask-Babel.

Each request's locale is, in order: the language the signed-in player chose
(``PUT /v1/account/locale``), the best supported one ``Accept-Language`` names, English. Every
answer says which in ``Content-Language`` (and ``Vary: Accept-Language``). Flask-Babel selects
and caches the locale per request; the catalogs are
service.app.i18n's (read from the ``.po`` files).
"""

from __future__ import annotations

import logging
from typing import Any

import flask_babel
from flask import Flask, Response, g, has_request_context, request
from flask_babel import Babel, Domain, get_locale
from werkzeug.utils import cached_property

from service.app import i18n
from service.app.errors import ServiceError

log = logging.getLogger(__name__)


class CatalogDomain(Domain):
    """Flask-Babel's gettext over service.app.i18n's catalogs (every domain merged)."""

    def get_translations(self) -> Any:
        return i18n.translations(current_locale())


class TablestreamBabel(Babel):
    @cached_property
    def domain_instance(self) -> Domain:
        return CatalogDomain(domain=self.domain)


def select_locale() -> str:
    """Flask-Babel's locale selector: the player's choice, else Accept-Language, else English
    (English outside a request: a worker's or a test's app context)."""
    if not has_request_context():
        return i18n.DEFAULT_LOCALE
    chosen = _player_choice()
    if chosen in i18n.SUPPORTED_LOCALES:
        return chosen
    return i18n.negotiate(request.headers.get("Accept-Language")) or i18n.DEFAULT_LOCALE


def _player_choice() -> str | None:
    from service.http.context import URL_TOKEN_ENDPOINTS, bearer_token, ctx

    player_id = g.get("player_id")
    try:
        tablestream = ctx()
        if player_id is None:
            token = bearer_token(from_url=request.endpoint in URL_TOKEN_ENDPOINTS)
            if not token:
                return None
            player_id = tablestream.accounts.authenticate(token)["id"]
        return tablestream.accounts.locale(player_id)
    except ServiceError:
        return None  # a wrong token: the answer (a 401) is in the header's language
    except Exception as exc:  # the store away: the answer is a 503, in the header's language
        log.debug("no locale preference read: %s", exc)
        return None


def current_locale() -> str:
    """This request's locale (English outside a request), worked out once per request: a move's
    answer and every stream's picture ask for it per prompt label."""
    name = g.get("locale_name") if has_request_context() else None
    if name is None:
        locale = get_locale()
        name = i18n.DEFAULT_LOCALE if locale is None else str(locale)
        if has_request_context():
            g.locale_name = name
    return name


def refresh_locale() -> None:
    """Choose this request's locale again (the player just chose another)."""
    flask_babel.refresh()
    g.pop("locale_name", None)


def localize(text: Any) -> Any:
    """``text`` (a Text, a plain string from the catalogs, or anything else) in this request's
    language."""
    return i18n.say(text, current_locale())


def localize_lines(lines: list[Any]) -> list[Any]:
    """Each of ``lines`` in this request's language (the locale looked up once: a view's
    summary has a line per army)."""
    locale = current_locale()
    return [i18n.say(line, locale) for line in lines]


def localize_all(value: Any) -> Any:
    """Field errors (marshmallow's nested messages) in this request's language."""
    return i18n.say_all(value, current_locale())


def content_language(response: Response) -> Response:
    """after_request: the answer's language, and that it varies with Accept-Language."""
    response.headers["Content-Language"] = current_locale()
    response.vary.add("Accept-Language")
    return response


def install(app: Flask) -> None:
    TablestreamBabel(app, locale_selector=select_locale,
                     default_translation_directories=str(i18n.TRANSLATIONS))
    app.after_request(content_language)
