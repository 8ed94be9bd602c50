"""The languages Tablestream speaks, and saying a message in one of them (issue 28).

Messages are gettext catalogs under ``service/translations/<locale>/LC_MESSAGES/<domain>.po``,
extracted from the source by ``make catalogs``. Adding a language is one catalog file per domain
and one entry in ``SUPPORTED_LOCALES``; a string a catalog lacks is said in English.

The catalogs are read from the ``.po`` files themselves (compiled in memory, once a process):
no compiled ``.mo`` file is committed or built at install, so a catalog can never be older than
its source, and a clean clone runs as it is.

Rules (``games/``) and the application service import no Flask: what they say is a
``games.core.Text``, English text that keeps its template and parameters, and this module says
it again in the reader's language, at the HTTP edge, in the notices and in the terminal client.
Standard library and Babel only: workers and the terminal client use it without a request.
"""

from __future__ import annotations

import functools
import io
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from babel import Locale, UnknownLocaleError
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po
from babel.support import NullTranslations, Translations

from games.core import N_, Text

# Adding a language: its catalogs under translations/<code>/LC_MESSAGES/ and its code here.
SUPPORTED_LOCALES = ("en", "ko")
DEFAULT_LOCALE = "en"
TRANSLATIONS = Path(__file__).parents[1] / "translations"
# messages: the server and the terminal client; games: card, ship, region and game names.
DOMAINS = ("messages", "games")
# The functions whose argument is a message template, for pybabel (`make catalogs`): the rules'
# ensure/Rejected, the service's errors, Text, and gettext's own names (pybabel's defaults).
EXTRACT_KEYWORDS = ("ensure:3", "Rejected:2", "ServiceError:2", "BadRequest:2", "Unauthorized:2",
                    "Forbidden:2", "NotFound:2", "Conflict:2", "StaleVersion:2",
                    "RuleViolation:2", "RateLimited:2", "RequestTimedOut:2", "Text:1", "plural:1,2",
                    "Prompt:3")
MAX_LOCALE_LENGTH = 35  # BCP 47 tags in practice; a longer Accept-Language entry is noise


def normalise_locale(tag: str | None) -> str | None:
    """The supported locale a language tag names (``ko-KR``, ``ko_KR.UTF-8`` -> ``ko``), or
    None."""
    if not tag:
        return None
    tag = tag.strip().split(".")[0].split("@")[0].replace("-", "_")
    if not tag or len(tag) > MAX_LOCALE_LENGTH or tag in ("C", "POSIX", "*"):
        return None
    language = tag.split("_")[0].lower()
    return language if language in SUPPORTED_LOCALES else None


def negotiate(accept_language: str | None) -> str | None:
    """The supported locale an ``Accept-Language`` header prefers most (RFC 9110 §12.5.4:
    highest weight first, the header's order among equals), or None when it names none."""
    if not accept_language:
        return None
    ranked: list[tuple[float, int, str]] = []
    for index, part in enumerate(accept_language.split(",")[:32]):
        tag, _, params = part.strip().partition(";")
        weight = 1.0
        match = re.search(r"q\s*=\s*([0-9.]{1,5})", params)
        if match:
            try:
                weight = float(match.group(1))
            except ValueError:
                continue
        locale = normalise_locale(tag)
        if locale is not None and weight > 0:
            ranked.append((-weight, index, locale))
    return min(ranked)[2] if ranked else None


def locale_from_environment(environ: Mapping[str, str] | None = None) -> str:
    """The terminal's language, as gettext reads it: LANGUAGE, LC_ALL, LC_MESSAGES, LANG."""
    environ = os.environ if environ is None else environ
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(name)
        if value:
            for tag in value.split(":"):
                locale = normalise_locale(tag)
                if locale is not None:
                    return locale
            return DEFAULT_LOCALE  # set, and naming no language we speak: English
    return DEFAULT_LOCALE


def catalog_path(locale: str, domain: str) -> Path:
    return TRANSLATIONS / locale / "LC_MESSAGES" / f"{domain}.po"


@functools.cache
def translations(locale: str) -> NullTranslations:
    """Every domain's catalog of ``locale``, compiled from its ``.po`` once a process; English
    (the source language) needs none."""
    merged: NullTranslations | None = None
    if locale in SUPPORTED_LOCALES and locale != DEFAULT_LOCALE:
        for domain in DOMAINS:
            path = catalog_path(locale, domain)
            if not path.exists():
                continue
            with path.open("rb") as po:
                catalog = read_po(po, locale=locale, domain=domain)
            buffer = io.BytesIO()
            write_mo(buffer, catalog)
            buffer.seek(0)
            loaded = Translations(buffer, domain=domain)
            if merged is None:
                merged = loaded
            else:
                assert isinstance(merged, Translations)
                merged.merge(loaded)
    if isinstance(merged, Translations):
        _add_context_free_names(merged)
    return merged or NullTranslations()


def _add_context_free_names(catalog: Translations) -> None:
    """games.po keys each name by a context (``faker_blue.card.assassin``); a rejection or a
    prompt names it by its English name alone (``Assassin``) or its id (``direct_hit``). Each
    English name or id whose translation is the same in every context it has, and that no
    message of its own holds, is looked up without a context too."""
    by_name: dict[str, set[str]] = {}
    for key, value in list(catalog._catalog.items()):
        if isinstance(key, str) and "\x04" in key and value:
            context, english = key.split("\x04", 1)
            by_name.setdefault(english, set()).add(value)
            # And by the id that ends its context (a name's, not a card text's): a prompt may
            # name a card by its id (Mag Blast's "respond to direct_hit?").
            if not context.endswith("_text") and "_text." not in context:
                by_name.setdefault(context.rsplit(".", 1)[-1], set()).add(value)
    for name, values in by_name.items():
        if len(values) == 1:
            # Also lower case: the rules name a Loot colour "blue", the catalog "Blue".
            for key in (name, name.lower()):
                if key not in catalog._catalog:
                    catalog._catalog[key] = next(iter(values))


def fill_source_catalog(domain: str = "messages") -> None:
    """English, the source language: every message of its catalog says its own msgid (``make
    catalogs``), so that every catalog translates every key."""
    path = catalog_path(DEFAULT_LOCALE, domain)
    with path.open("rb") as po:
        catalog = read_po(po, locale=DEFAULT_LOCALE, domain=domain)
    for message in catalog:
        if not message.id:
            continue
        if isinstance(message.id, tuple | list):
            if not all(message.string or ()):
                message.string = tuple(message.id)
        elif not message.string:
            message.string = message.id
    with path.open("wb") as po:
        write_po(po, catalog, omit_header=False, sort_output=True, no_location=True,
                 width=100)


def gettext(message: str, locale: str) -> str:
    """``message`` in ``locale``, or as it is when its catalog lacks it."""
    return translations(locale).gettext(message) if message else message


def say(text: Any, locale: str) -> Any:
    """``text`` in ``locale``: a Text by its template and parameters (English again if the
    translation names a parameter it lacks), a plain string by itself; anything else as it is."""
    if not isinstance(text, str) or locale == DEFAULT_LOCALE:
        return text
    if isinstance(text, Text):
        chosen = translations(locale)
        if text.plural_template is not None:
            template = chosen.ngettext(text.template, text.plural_template, text.n)
        else:
            template = chosen.gettext(text.template)
        try:
            return template.format(**{k: _said_param(v, locale)
                                      for k, v in text.params.items()})
        except (KeyError, IndexError, ValueError):
            return str(text)
    return _said_plain(text, locale)


@functools.lru_cache(maxsize=8192)
def _said_plain(text: str, locale: str) -> str:
    """A plain string in ``locale``: its own catalog entry, else the first catalog template it
    is an English rendering of (``attack phase`` from ``{phase} phase``), its parameters said
    again the same way (``attack`` has an entry of its own); else as it is."""
    chosen = translations(locale)
    found = chosen.gettext(text)
    if found != text or not text:
        return found
    for template, pattern in _templates(locale):
        match = pattern.match(text)
        if match:
            params = {k: _said_plain(v, locale) for k, v in match.groupdict().items()}
            try:
                return chosen.gettext(template).format(**params)
            except (KeyError, IndexError, ValueError):
                return text
    return text


@functools.cache
def _templates(locale: str) -> tuple[tuple[str, re.Pattern[str]], ...]:
    """The catalog's templates with parameters (not ``!r`` ones, whose rendering adds quotes),
    the most specific first; a template of fewer than 4 letters of its own matches too much."""
    catalog = translations(locale)
    ids = getattr(catalog, "_catalog", {})
    found = []
    for key in ids:
        if not isinstance(key, str) or "{" not in key or "!" in key:
            continue
        literal = re.sub(r"\{\w+\}", "", key)
        if sum(c.isalpha() for c in literal) >= 4:
            found.append((key, _pattern(key)))
    found.sort(key=lambda item: -len(re.sub(r"\{\w+\}", "", item[0])))
    return tuple(found)


def _said_param(value: Any, locale: str) -> Any:
    """A template's parameter in ``locale``: a Text as a Text is, a plain string only when the
    catalogs hold it as it is (a name: ``Assassin``); a number, an id or a player's name as it
    is."""
    if isinstance(value, Text):
        return say(value, locale)
    if isinstance(value, str):
        return translations(locale).gettext(value)
    return value


def game_title(game: str, locale: str) -> str:
    """A game's title in ``locale`` (games.po's ``game.<name>``), its stable name when unknown."""
    from games import REGISTRY

    found = REGISTRY.get(game)
    if found is None:
        return game
    return translations(locale).pgettext(f"game.{game}", found.title)


def say_all(value: Any, locale: str) -> Any:
    """Every message in a nested structure of dicts and lists (marshmallow's field errors),
    each said in ``locale``."""
    if isinstance(value, dict):
        return {k: say_all(v, locale) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [say_all(v, locale) for v in value]
    if isinstance(value, str):
        return say(value, locale)
    return value


def language_name(locale: str) -> str:
    """A locale's own name for its language (``한국어``)."""
    try:
        return Locale.parse(locale).get_display_name(locale) or locale
    except (ValueError, UnknownLocaleError):
        return locale


# --- marshmallow's own messages --------------------------------------------------------------
# marshmallow words its field errors in English; the catalogs hold each template, and a message is
# matched against them at the edge and said again with the parameters it held (_said_plain). The
# set is checked against the installed marshmallow by tests/service/test_i18n.py.
_RANGE_OPS = {"min": ("greater than or equal to", "greater than"),
              "max": ("less than or equal to", "less than")}
VALIDATION_TEMPLATES = (
    N_("Missing data for required field."), N_("Field may not be null."),
    N_("Invalid input type."), N_("Invalid input."), N_("Invalid type."), N_("Invalid value."),
    N_("Unknown field."), N_("Not a valid string."), N_("Not a valid integer."),
    N_("Not a valid number."), N_("Not a valid boolean."), N_("Not a valid list."),
    N_("Not a valid tuple."), N_("Not a valid mapping type."), N_("Not a valid URL."),
    N_("Not a valid UUID."), N_("Not a valid email address."), N_("Not a valid date."),
    N_("Not a valid utf-8 string."), N_("Not a valid period of time."), N_("Number too large."),
    N_("Not a valid IP address."), N_("Not a valid IPv4 address."),
    N_("Not a valid IPv6 address."), N_("Not a valid IP interface."),
    N_("Not a valid IPv4 interface."), N_("Not a valid IPv6 interface."),
    N_("Not a valid {obj_type}."), N_("Not a valid {awareness} {obj_type}."),
    N_('"{input}" cannot be formatted as a {obj_type}.'),
    N_('"{input}" cannot be formatted as a date.'),
    N_("{input} cannot be formatted as a timedelta."),
    N_("Special numeric values (nan or infinity) are not permitted."),
    N_("String does not match expected pattern."),
    N_("Length must be between {min} and {max}."), N_("Length must be {equal}."),
    N_("Longer than maximum length {max}."), N_("Shorter than minimum length {min}."),
    N_("Must be equal to {other}."), N_("Must be one of: {choices}."),
    N_("One or more of the choices you made was in: {values}."),
    N_("One or more of the choices you made was not in: {choices}."),
    N_("Must be greater than or equal to {min}."), N_("Must be greater than {min}."),
    N_("Must be less than or equal to {max}."), N_("Must be less than {max}."),
    N_("Must be greater than or equal to {min} and less than or equal to {max}."),
    N_("Must be greater than or equal to {min} and less than {max}."),
    N_("Must be greater than {min} and less than or equal to {max}."),
    N_("Must be greater than {min} and less than {max}."),
    N_("Invalid JSON body."),
)


def _pattern(template: str) -> re.Pattern[str]:
    """A regex matching what ``template`` renders to, a named group per parameter."""
    parts = re.split(r"\{(\w+)\}", template)
    seen: set[str] = set()
    regex = ""
    for i, part in enumerate(parts):
        if i % 2 == 0:
            regex += re.escape(part.replace("{{", "{").replace("}}", "}"))
        elif part in seen:
            regex += f"(?P={part})"
        else:
            seen.add(part)
            regex += f"(?P<{part}>.+?)"
    return re.compile(regex + r"\Z", re.DOTALL)


# --- the words of HTTP itself: werkzeug's names and descriptions of errors --------------------
HTTP_TEXTS = (
    N_("Bad Request"), N_("Unauthorized"), N_("Forbidden"), N_("Not Found"),
    N_("Method Not Allowed"), N_("Not Acceptable"), N_("Conflict"), N_("Gone"),
    N_("Request Entity Too Large"), N_("Request-URI Too Long"), N_("Unsupported Media Type"),
    N_("Expectation Failed"), N_("Unprocessable Entity"), N_("Too Many Requests"),
    N_("Request Header Fields Too Large"), N_("Internal Server Error"), N_("Not Implemented"),
    N_("Service Unavailable"), N_("Service unavailable"),
    N_("The requested URL was not found on the server. If you entered the URL manually please "
       "check your spelling and try again."),
    N_("The method is not allowed for the requested URL."),
    N_("The server encountered an internal error and was unable to complete your request. "
       "Either the server is overloaded or there is an error in the application."),
    N_("The server does not support the media type transmitted in the request."),
    N_("The data value transmitted exceeds the capacity limit."),
)


# --- `make catalogs` ---------------------------------------------------------------------------

def extract(output: Path, root: Path | None = None) -> None:
    """Every marked message of the sources (babel.cfg) into the template ``output``."""
    from babel.messages.frontend import CommandLineInterface

    root = root or Path(__file__).resolve().parents[2]
    keywords = [arg for keyword in EXTRACT_KEYWORDS for arg in ("-k", keyword)]
    CommandLineInterface().run(["pybabel", "-q", "extract", "-F", str(root / "babel.cfg"),
                                *keywords, "--no-location", "--sort-output",
                                "--project=Tablestream",
                                "--copyright-holder=Tablestream contributors",
                                "-o", str(output), str(root)])


def update_catalogs() -> None:
    """Extract messages.pot, merge it into each language's messages.po (a new message arrives
    untranslated; tests/service/test_i18n.py fails until it is translated), fill English."""
    from babel.messages.frontend import CommandLineInterface

    template = TRANSLATIONS / "messages.pot"
    files = [template, *(catalog_path(locale, "messages") for locale in SUPPORTED_LOCALES)]
    before = {path: path.read_bytes() for path in files if path.exists()}
    extract(template)
    for locale in SUPPORTED_LOCALES:
        command = "update" if catalog_path(locale, "messages").exists() else "init"
        CommandLineInterface().run(["pybabel", "-q", command, "-i", str(template),
                                    "-d", str(TRANSLATIONS), "-D", "messages", "-l", locale,
                                    "--width=100",
                                    *(["--no-fuzzy-matching", "--ignore-obsolete"]
                                      if command == "update" else [])])
    fill_source_catalog()
    for path, old in before.items():
        if _undated(path.read_bytes()) == _undated(old):
            path.write_bytes(old)  # nothing changed but the date: no churn in the history
    for locale in SUPPORTED_LOCALES:
        translations.cache_clear()
        translations(locale)  # compiles, as a check


def _undated(po: bytes) -> bytes:
    return re.sub(rb'"(POT-Creation-Date|PO-Revision-Date): [^"]*"', b"", po)


if __name__ == "__main__":
    update_catalogs()
