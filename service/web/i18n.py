"""The web page's message catalogs (issue 28): gettext ``.po`` files are the one source, served
to the page as JSON at ``/play/i18n/<locale>.json``, built from them when first asked for.

``service/translations/<locale>/LC_MESSAGES/web.po`` holds the page's own words (msgid: the
English text with ``{name}`` fields; plural forms as gettext has them) and ``games.po`` the games'
names for things (msgctxt: a stable key ``<game>.<kind>.<id>``; msgid: the English name), shared
with the terminal client. A language is one pair of catalog files and one line in ``LANGUAGES``.

``python -m service.web.i18n`` brings web.po up to date with the page: every ``t('...')`` and
``tn('...', '...', n)`` in ``static/`` becomes an entry (new ones untranslated), entries the page no
longer uses go; the tests fail while a catalog misses one.
"""

from __future__ import annotations

import re
import sys
from functools import cache
from pathlib import Path
from typing import Any

from babel import Locale
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

STATIC = Path(__file__).parent / "static"
TRANSLATIONS = Path(__file__).parent.parent / "translations"
SOURCE = "en"
# The page's languages, each named in itself (the switch lists them so).
LANGUAGES = {"en": "English", "ko": "한국어"}
# gettext's plural forms are numbered in CLDR's order of categories (Babel's to_gettext).
CATEGORIES = ("zero", "one", "two", "few", "many", "other")

# t('...') / tn('...', '...' — a quoted literal with no ${} in it, as its first argument(s).
_LITERAL = r"""('(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\$]|\\.)*`)"""
CALL_T = re.compile(r"(?<![\w.$])t\(\s*" + _LITERAL)
CALL_TN = re.compile(r"(?<![\w.$])tn\(\s*" + _LITERAL + r"\s*,\s*" + _LITERAL)


def po_path(locale: str, domain: str) -> Path:
    return TRANSLATIONS / locale / "LC_MESSAGES" / f"{domain}.po"


def read(locale: str, domain: str) -> Catalog:
    with po_path(locale, domain).open("rb") as handle:
        return read_po(handle, locale=locale, domain=domain)


def plural_categories(locale: str) -> list[str]:
    """The CLDR categories in the order of gettext's plural forms for ``locale``."""
    tags = Locale.parse(locale).plural_form.tags | {"other"}
    return [tag for tag in CATEGORIES if tag in tags]


def _unquote(literal: str) -> str:
    body = literal[1:-1]
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), body)


def page_messages() -> dict[str, str | None]:
    """Every message the page's scripts ask for: msgid -> its plural msgid (or None)."""
    found: dict[str, str | None] = {}
    for script in sorted(STATIC.rglob("*.js")):
        text = script.read_text(encoding="utf-8")
        for match in CALL_TN.finditer(text):
            found[_unquote(match.group(1))] = _unquote(match.group(2))
        for match in CALL_T.finditer(text):
            found.setdefault(_unquote(match.group(1)), None)
    return found


def _translated(message: Any) -> bool:
    strings = message.string if isinstance(message.string, (list, tuple)) else [message.string]
    return all(strings)


@cache
def catalog_json(locale: str) -> dict[str, Any]:
    """The page's catalog for ``locale``: its messages and terms over English's (the fallback
    for anything it lacks), its plural categories and the languages on offer."""
    messages: dict[str, Any] = {}
    terms: dict[str, str] = {}
    names: dict[str, str] = {}
    for code in dict.fromkeys((SOURCE, locale)):
        for message in read(code, "web"):
            if message.id and _translated(message):
                key = message.id[0] if isinstance(message.id, (list, tuple)) else message.id
                string = message.string
                messages[key] = list(string) if isinstance(string, (list, tuple)) else string
        for message in read(code, "games"):
            if message.id and message.context and message.string:
                terms[message.context] = message.string
                names[message.context] = message.id
    return {"locale": locale, "plural": plural_categories(locale), "languages": LANGUAGES,
            "messages": messages, "terms": terms, "names": names}


def catalog_keys(catalog: Catalog) -> set[str]:
    """The keys a catalog translates: ``context|msgid`` for each entry whose every form has a
    translation (an entry present but untranslated is missing, as English would show)."""
    out = set()
    for message in catalog:
        if not message.id or not _translated(message):
            continue
        msgid = message.id[0] if isinstance(message.id, (list, tuple)) else message.id
        out.add(f"{message.context or ''}|{msgid}")
    return out


def missing_keys(catalogs: dict[str, Catalog]) -> dict[str, list[str]]:
    """For each language, the keys that another language's catalog (of one domain) has and its
    own lacks; empty lists when the catalogs are complete."""
    every = {locale: catalog_keys(catalog) for locale, catalog in catalogs.items()}
    union = set().union(*every.values()) if every else set()
    return {locale: sorted(union - keys) for locale, keys in every.items()}


def update_catalogs() -> dict[str, int]:
    """Rewrites each language's web.po to hold exactly the page's messages (keeping the
    translations it has; English's msgstr is the msgid). Returns the entries per language."""
    wanted = page_messages()
    sizes = {}
    for locale in LANGUAGES:
        path = po_path(locale, "web")
        old = read(locale, "web") if path.exists() else Catalog(locale=locale)
        new = Catalog(locale=locale, project="Tablestream", version="1", fuzzy=False,
                      header_comment="# Tablestream's web page, its own words (issue 28).\n"
                                     "# Updated by `python -m service.web.i18n` from the page's "
                                     "t()/tn() calls; translate the empty msgstr.")
        for msgid, plural in sorted(wanted.items()):
            key: Any = (msgid, plural) if plural else msgid
            before = old.get(msgid)
            if locale == SOURCE:
                string: Any = (msgid, plural) if plural else msgid
            elif before is not None and bool(plural) == isinstance(before.string, (list, tuple)):
                string = before.string
            else:
                string = ("",) * len(plural_categories(locale)) if plural else ""
            new.add(key, string, auto_comments=before.auto_comments if before else ())
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as handle:
            write_po(handle, new, width=100)
        sizes[locale] = len(new)
    return sizes


if __name__ == "__main__":
    print(update_catalogs(), file=sys.stderr)
