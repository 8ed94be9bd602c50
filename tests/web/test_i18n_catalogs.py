"""The message catalogs (issue 28): every language has every key the others have, the web page's
catalog holds exactly what the page asks for, no sentence on the page bypasses it, games.po names
every card, ship, region and nation the data files hold, and /play/i18n/<locale>.json serves the
catalogs with English beneath."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from flask import Flask

import service.web
from service.web import i18n

STATIC = Path(i18n.__file__).parent / "static"
GAMES = Path(__file__).parents[2] / "games"
FIELD = re.compile(r"\{\w+\}")


@pytest.mark.parametrize("domain", ["web", "games"])
def test_every_language_translates_every_key_the_others_have(domain):
    catalogs = {locale: i18n.read(locale, domain) for locale in i18n.LANGUAGES}
    assert all(len(c) for c in catalogs.values())
    assert i18n.missing_keys(catalogs) == {locale: [] for locale in i18n.LANGUAGES}


def test_a_catalog_that_misses_a_key_or_leaves_it_untranslated_is_caught():
    english = i18n.read("en", "web")
    korean = i18n.read("ko", "web")
    dropped = next(iter(m.id for m in korean if m.id and not isinstance(m.id, tuple)))
    short = Catalog(locale="ko")
    for message in korean:
        if message.id and message.id != dropped:
            short.add(message.id, message.string, context=message.context)
    short.add("Only in Korean", "", context=None)  # present but untranslated: missing too
    gaps = i18n.missing_keys({"en": english, "ko": short})
    assert gaps["ko"] == [f"|{dropped}"]
    assert gaps["en"] == []


@pytest.mark.parametrize("domain", ["web", "games"])
def test_a_translation_keeps_the_fields_of_its_english(domain):
    for message in i18n.read("ko", domain):
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        wanted = set(FIELD.findall("".join(ids))) - {"{n}"}
        for string in strings:
            assert set(FIELD.findall(string)) - {"{n}"} == wanted, (message.id, string)


def test_the_web_catalog_holds_exactly_the_messages_the_page_asks_for():
    asked = i18n.page_messages()
    for locale in i18n.LANGUAGES:
        held = {(m.id[0] if isinstance(m.id, tuple) else m.id): (m.id[1] if isinstance(m.id, tuple)
                else None) for m in i18n.read(locale, "web") if m.id}
        assert held == asked, (f"{locale}/web.po drifted from the page: run "
                               "`python -m service.web.i18n` and translate the new entries")


# --- no sentence bypasses the catalog ---------------------------------------------------------

# Prose: two words, or a capitalised word of three letters or more.
PROSE = re.compile(r"[A-Za-z]{2,}[,.:;!?]? +[A-Za-z(]|^[A-Z][a-z]{2,}")
# A literal that is the message of t()/tn() (either form) or term()'s English fallback.
CATALOG_CALL = re.compile(r"(?<![\w.$])(t|tn|term)\(\s*$|(?<![\w.$])tn\(\s*(['\"`]).*?\2\s*,\s*$"
                          r"|(?<![\w.$])term\([^()]*,\s*$")
# Literals no player reads: class names, selectors, headers, keys, console and error text.
NOT_SHOWN = re.compile(r"class:\s*\[?(?:[^\])}]*,\s*)?$|console\.\w+\($|new Error\($"
                       r"|querySelector(All)?\($|closest\($|headers?\S*\s*$|\[\s*$|\.key === $")


def literals(text: str):
    """Each string literal of a script: (offset, end, its static parts); a template literal's
    ${...} parts are left out. Comments and regular expression literals are skipped."""
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            i = text.find("\n", i) % (n + 1) or n
            continue
        if text.startswith("/*", i):
            i = text.find("*/", i) + 2
            continue
        if c == "/" and re.search(r"[(,=:\[!&|?{};]\s*$|return\s*$", text[max(0, i - 20):i]):
            j, in_class = i + 1, False
            while j < n and (text[j] != "/" or in_class):
                if text[j] == "\\":
                    j += 1
                elif text[j] in "[]":
                    in_class = text[j] == "["
                j += 1
            i = j + 1
            continue
        if c in "'\"`":
            j, parts, buf = i + 1, [], ""
            while j < n and text[j] != c:
                if text[j] == "\\":
                    buf, j = buf + text[j:j + 2], j + 2
                elif c == "`" and text.startswith("${", j):
                    parts.append(buf)
                    buf, depth, j = "", 1, j + 2
                    while j < n and depth:
                        if text[j] in "'\"`":
                            quote, j = text[j], j + 1
                            while j < n and text[j] != quote:
                                j += 2 if text[j] == "\\" else 1
                        depth += {"{": 1, "}": -1}.get(text[j], 0)
                        j += 1
                else:
                    buf, j = buf + text[j], j + 1
            yield i, j + 1, [*parts, buf]
            i = j + 1
            continue
        i += 1


def bypasses(text: str) -> list[tuple[int, str]]:
    found = []
    for offset, end, parts in literals(text):
        start = text.rfind("\n", 0, offset) + 1
        line = text[start:text.find("\n", offset)]
        before = text[max(0, offset - 200):offset]
        if "i18n-ignore" in line or CATALOG_CALL.search(before) or NOT_SHOWN.search(before):
            continue
        literal = text[offset:end]
        if re.match(r"\s*:\s*t\(\s*" + re.escape(literal) + r"\s*\)", text[end:]):
            continue  # a wire text as the key of its own translation: { 'x y': t('x y') }
        shown = [p for p in parts if PROSE.search(p) and not p.lstrip().startswith(("#", "."))]
        if shown:
            found.append((text.count("\n", 0, offset) + 1, shown[0].strip()))
    return found


def test_the_scan_finds_a_sentence_written_around_the_catalog():
    script = ("el('p', {}, t('Fine.'));\nel('p', { class: 'card x' }, 'Not fine at all');\n"
              "h('b', {}, `Seat ${n} to play`);\nconst r = /a b/; term('k', 'English fallback');\n"
              "const m = { 'the key': t('the key'), 'one key': t('other') };\n")
    assert bypasses(script) == [(2, "Not fine at all"), (3, "Seat"), (5, "one key")]


def test_no_sentence_on_the_page_bypasses_the_catalog():
    found = [f"{path.relative_to(STATIC)}:{line}: {text!r}"
             for path in sorted(STATIC.rglob("*.js")) if path.name != "i18n.js"
             for line, text in bypasses(path.read_text(encoding="utf-8"))]
    assert found == [], ("words shown without t()/tn() (or mark a literal no player reads "
                         "// i18n-ignore):\n" + "\n".join(found))


# --- games.po: every name in the data files ---------------------------------------------------

def game_terms() -> dict[str, str]:
    """Every name the games' data files hold, by the key games.po gives it."""
    mb = json.loads((GAMES / "magblast" / "cards.json").read_text())
    fb = json.loads((GAMES / "faker_blue" / "cards.json").read_text())
    mm = json.loads((GAMES / "maskmen" / "maskmen.json").read_text())
    lo = json.loads((GAMES / "loot" / "cards.json").read_text())
    wm = json.loads((GAMES / "wotr" / "map.json").read_text())
    wc = json.loads((GAMES / "wotr" / "cards.json").read_text())
    terms = {f"magblast.ship.{s['id']}": s["name"] for s in mb["ships"]}
    terms |= {f"magblast.command_ship.{c['id']}": c["name"] for c in mb["command_ships"]}
    terms |= {f"magblast.class.{c['class']}": c["name"] for c in mb["classes"]}
    terms |= {f"magblast.action.{a['kind']}": a["name"] for a in mb["actions"]}
    terms |= {f"magblast.zone.{z['id']}": z["name"] for z in mb["zones"]}
    terms |= {f"faker_blue.card.{k['kind']}": k["name"] for k in fb["kinds"]}
    terms |= {f"maskmen.wrestler.{w['id']}": w["name"] for w in mm["wrestlers"]}
    terms |= {f"loot.colour.{c}": c.capitalize() for c in lo["colours"]}
    terms |= {f"wotr.region.{r}": r for r in wm["regions"]}
    terms |= {f"wotr.nation.{n}": None for n in wm["nations"]}
    for card in wc["combat"].values():
        for event in card["events"]:
            key = re.sub(r"[^a-z0-9]+", "_", event.lower().replace("'", "_")).strip("_")
            terms[f"wotr.event.{key}"] = None
    return terms


def test_games_po_names_every_card_ship_region_and_nation_of_the_data_files():
    held = {m.context: m.id for m in i18n.read("en", "games") if m.id}
    missing = {key: name for key, name in game_terms().items()
               if key not in held and not key.startswith("wotr.event.")}
    assert missing == {}
    wrong = {key: (held[key], name) for key, name in game_terms().items()
             if name is not None and key in held and held[key] != name}
    assert wrong == {}, "games.po's English drifted from the data files"


def test_the_korean_names_are_the_rulebooks_where_they_give_one():
    korean = {m.context: m.string for m in i18n.read("ko", "games") if m.id}
    assert korean["game.loot"] == "루트"
    assert korean["game.maskmen"] == "마스크맨"
    assert korean["game.faker_blue"] == "페이커 블루"
    assert korean["game.magblast"] == "맥 블래스트"  # the seed's own spelling
    assert korean["game.wotr"].startswith("반지의 전쟁")
    assert korean["wotr.side.fp"] == "자유민족" and korean["wotr.side.sh"] == "암흑군단"
    fb = json.loads((GAMES / "faker_blue" / "cards.json").read_text())
    assert all(korean[f"faker_blue.card.{k['kind']}"] == k["korean"] for k in fb["kinds"])


# --- the JSON the page loads -----------------------------------------------------------------

def test_the_page_catalog_is_served_per_language_with_plural_forms_and_terms():
    app = Flask(__name__)
    app.register_blueprint(service.web.blp)
    client = app.test_client()
    korean = client.get("/play/i18n/ko.json")
    assert korean.status_code == 200
    body = korean.get_json()
    assert body["locale"] == "ko" and body["plural"] == ["other"]
    assert body["languages"] == i18n.LANGUAGES
    assert body["messages"]["Sign in"] == "입장"
    assert body["messages"]["{n} card"] == ["카드 {n}장"]
    assert body["terms"]["wotr.region.Minas Tirith"] == "미나스 티리스"
    english = client.get("/play/i18n/en.json").get_json()
    assert english["plural"] == ["one", "other"]
    assert english["messages"]["{n} card"] == ["{n} card", "{n} cards"]
    assert set(body["messages"]) == set(english["messages"])
    assert client.get("/play/i18n/xx.json").status_code == 404


def test_a_string_a_language_lacks_falls_back_to_english(monkeypatch):
    real = i18n.read

    def without_sign_in(locale, domain):
        catalog = real(locale, domain)
        if locale == "ko" and domain == "web":
            catalog.delete("Sign in")
        return catalog

    monkeypatch.setattr(i18n, "read", without_sign_in)
    i18n.catalog_json.cache_clear()
    try:
        assert i18n.catalog_json("ko")["messages"]["Sign in"] == "Sign in"
        assert i18n.catalog_json("ko")["messages"]["Sign out"] == "로그아웃"
    finally:
        i18n.catalog_json.cache_clear()
