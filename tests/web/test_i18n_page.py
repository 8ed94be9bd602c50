"""The page in the player's language (issue 28): a whole game of every title played by clicking
at phone size (390x844) in Korean shows no English word of the page's catalog (card ids, game
ids and codes aside), and in English no Hangul; the language follows the browser's and a choice
on the page is remembered."""

from __future__ import annotations

import random
import re

import pytest
from playwright.sync_api import Page

from service.web import i18n
from tests.web.conftest import PHONE, SCREENSHOTS
from tests.web.driving import BOT_TABLES, page_width_overflow, play_to_end

pytestmark = pytest.mark.e2e

HANGUL = re.compile("[\u1100-\u11ff\u3130-\u318f\uac00-\ud7a3]")
# A whole English word: letters only, not part of an id ("M2a", "ann-loot", "ship-12", a game id).
WORD = re.compile(r"(?<![\w-])[A-Za-z]{3,}(?![\w-])")
FIELD = re.compile(r"\{\w+\}")
# What a player reads, less the language switch (each language is named in itself there).
SCREEN_TEXT = """() => {
  const who = [...document.getElementById('who').childNodes]
    .filter((n) => n.id !== 'language').map((n) => n.innerText ?? n.textContent).join(' ');
  return [who, document.getElementById('main').innerText,
    document.getElementById('toast').innerText].join('\\n');
}"""


def messages(locale: str) -> dict:
    return i18n.catalog_json(locale)["messages"]


def english_ui_words() -> set[str]:
    """The words of the page's English catalog that its Korean catalog does not use itself."""
    english = " ".join(FIELD.sub(" ", key) for key in messages("en"))
    english += " " + " ".join(FIELD.sub(" ", f) for v in messages("en").values()
                              if isinstance(v, list) for f in v)
    korean = " ".join(v if isinstance(v, str) else " ".join(v) for v in messages("ko").values())
    return ({w.lower() for w in WORD.findall(english)}
            - {w.lower() for w in WORD.findall(korean)})


def say(locale: str, msgid: str, **fields) -> str:
    text = messages(locale).get(msgid, msgid)
    text = text[0] if isinstance(text, list) else text
    return FIELD.sub(lambda m: str(fields.get(m.group(0)[1:-1], m.group(0))), text)


def new_page(browser, site, locale: str) -> Page:
    """A phone-sized page whose browser speaks ``locale`` (navigator.language, Accept-Language)."""
    context = browser.new_context(viewport=PHONE, base_url=site, locale=locale)
    context.set_default_timeout(30_000)
    return context.new_page()


def sign_in(page: Page, lang: str, name: str) -> None:
    page.goto("/")
    page.get_by_label(say(lang, "Your name")).fill(name)
    page.get_by_role("button", name=say(lang, "Sign in")).click()
    page.get_by_role("heading", name=say(lang, "New game")).wait_for()


def create_game(page: Page, lang: str, game: str) -> None:
    seats, options = BOT_TABLES[game]
    page.get_by_label(say(lang, "Game"), exact=True).select_option(game)
    page.get_by_label(say(lang, "Players")).select_option(str(len(seats) + 1))
    for index, kind in enumerate(seats, start=1):
        page.get_by_label(say(lang, "Seat {n}", n=index + 1)).select_option(kind)
    if options:
        page.locator("summary", has_text=say(lang, "Options")).click()
        for name, value in options.items():
            page.locator(f"#opt-{name}").select_option(value)
    page.get_by_role("button", name=say(lang, "Create game")).click()
    page.wait_for_url("**/#/games/*")
    page.locator("#version").wait_for()


class Screen:
    """What the page shows at each move, checked for words of the wrong language."""

    def __init__(self, page: Page, lang: str) -> None:
        self.page, self.lang, self.seen = page, lang, 0
        self.foreign = english_ui_words() if lang == "ko" else None
        self.found: dict[str, str] = {}
        self.too_wide = 0

    def check(self, _button=None) -> None:
        text = self.page.evaluate(SCREEN_TEXT)
        self.seen += 1
        self.too_wide = max(self.too_wide, page_width_overflow(self.page))  # longer words
        if self.lang == "ko":
            for match in WORD.finditer(text):
                word = match.group(0)
                if word.lower() in self.foreign and word not in self.found:
                    self.found[word] = text[max(0, match.start() - 80):match.end() + 40]
                    self.found[word] = self.found[word].replace("\n", " | ")
        else:
            for match in HANGUL.finditer(text):
                self.found.setdefault(match.group(0), text[max(0, match.start() - 60):
                                                           match.start() + 60])


@pytest.mark.parametrize("lang", ["ko", "en"])
@pytest.mark.parametrize("game", sorted(BOT_TABLES))
def test_a_whole_game_in_one_language_shows_no_word_of_the_other(browser, site, game, lang):
    page = new_page(browser, site, {"ko": "ko-KR", "en": "en-US"}[lang])
    try:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        sign_in(page, lang, f"ann-{game}")
        assert page.evaluate("document.documentElement.lang") == lang
        screen = Screen(page, lang)
        screen.check()
        create_game(page, lang, game)
        mid = SCREENSHOTS / f"i18n-{game}-{lang}-mid.png"
        play_to_end(page, random.Random(game), each=screen.check,
                    screenshot=lambda: page.screenshot(path=mid))
        page.locator("#result").wait_for()
        screen.check()
        assert page.locator("#result").inner_text().startswith(say(lang, "Game over."))
        # The events and the replay slider, in the same language.
        page.get_by_label(say(lang, "Version"), exact=True).fill("2")
        page.locator("#board[data-version='2']").wait_for()
        screen.check()
        if screen.found:
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=SCREENSHOTS / f"i18n-{game}-{lang}.png", full_page=True)
        assert not screen.found, "words of the wrong language on screen:\n" + "\n".join(
            f"{word!r}: ...{around}..." for word, around in screen.found.items())
        assert screen.seen > 3
        assert screen.too_wide <= 0, f"the page grew {screen.too_wide} px wider than the phone"
    finally:
        page.context.close()


def test_the_language_follows_the_browser_and_a_choice_on_the_page_is_remembered(browser, site):
    page = new_page(browser, site, "ko-KR")
    try:
        page.goto("/")
        page.get_by_role("button", name="입장").wait_for()  # navigator.language: Korean
        assert page.evaluate("document.documentElement.lang") == "ko"
        page.locator("#language").select_option("en")
        page.get_by_role("button", name="Sign in").wait_for()
        page.reload()
        page.get_by_role("button", name="Sign in").wait_for()  # remembered over the browser's
        assert page.evaluate("localStorage.getItem('tablestream.lang')") == "en"
        page.locator("#language").select_option("ko")
        page.get_by_label("이름").fill("민지")
        page.get_by_role("button", name="입장").click()
        page.get_by_role("heading", name="새 게임").wait_for()
        # Titles and numbers in the language: the games' Korean names in the form.
        page.locator("#new-game option", has_text="루트").wait_for(state="attached")
        options = page.locator("#new-game option").all_inner_texts()
        assert "루트" in options and "맥 블래스트" in options and "마스크맨" in options
    finally:
        page.context.close()


def test_a_language_the_page_lacks_falls_back_to_english(browser, site):
    page = new_page(browser, site, "fr-FR")
    try:
        page.goto("/")
        page.get_by_role("button", name="Sign in").wait_for()
        assert page.evaluate("document.documentElement.lang") == "en"
    finally:
        page.context.close()


def test_a_countdown_shows_a_drawn_stopwatch_and_seconds_in_korean(browser, site):
    page = new_page(browser, site, "ko-KR")
    try:
        sign_in(page, "ko", "ann-clock")
        page.get_by_label("게임", exact=True).select_option("loot")
        page.locator("summary", has_text="옵션").click()
        page.get_by_label("차례 시간(초)").fill("600")
        page.get_by_role("button", name="게임 만들기").click()
        page.wait_for_url("**/#/games/*")
        countdown = page.locator(".prompt.mine .countdown")
        countdown.wait_for()
        assert countdown.locator("svg.icon").count() == 1  # the ⏱ glyph has no font here
        assert "⏱" not in countdown.inner_text()
        assert re.fullmatch(r"\s*\d{3}초", countdown.inner_text())
        assert page.locator(".prompt.mine").inner_text().startswith("나: 내 차례")
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=SCREENSHOTS / "i18n-ko-countdown.png")
    finally:
        page.context.close()


def sentences(browser, site, lang: str, game: str, events: list[dict],
              names: list[str]) -> list[str]:
    """``events`` as the log panel words them (log.js with the game's board module), in a page
    whose browser speaks ``lang``, to a reader at seat 0."""
    page = new_page(browser, site, {"ko": "ko-KR", "en": "en-US"}[lang])
    try:
        page.goto("/")
        page.get_by_role("button", name=say(lang, "Sign in")).wait_for()
        return page.evaluate("""async ([game, events, names]) => {
            const app = document.querySelector('script[src="app.js"]').src;
            const log = await import(new URL('log.js', app));
            const board = await import(new URL(`boards/${game}.js`, app));
            return events.map((e) => log.sentence(e, game, names, board, 0));
        }""", [game, events, names])
    finally:
        page.context.close()


@pytest.mark.parametrize("lang, expected", [
    ("en", "Captured Cy's Perth into the front zone."),
    ("ko", "Cy의 Perth을(를) 나포해 앞 구역에 두었습니다."),
])
def test_a_mag_blast_capture_says_whose_ship_it_was_in_the_page_language(browser, site, lang,
                                                                         expected):
    # It once read "전투함 나포: from seat 2; ...; 구역 n": English words and wire numbers.
    captured = {"type": "ship_captured", "seat": 0,
                "data": {"seat": 0, "ship": "Perth", "from_seat": 2, "zone": "n"}}
    assert sentences(browser, site, lang, "magblast", [captured], ["Ann", "Bo", "Cy"]) == [
        expected]


def event_examples(name: str) -> list[dict]:
    """One event of each kind (type and wording fields) that random games of ``name`` make at
    every seat count, platform events included (tests/audit/recorder.py), as seat 0 and a
    spectator receive them."""
    from events.projector import is_platform_event
    from games import REGISTRY
    from games.core import SPECTATOR, Event
    from tests.audit.recorder import record_game

    game, found = REGISTRY[name], {}
    options = {"scenario": "south"} if name == "wotr" else None
    for play, seats in enumerate(range(game.min_seats, game.max_seats + 1)):
        for event in record_game(name, seats, f"examples-{seats}", play, options).events:
            for viewer in (0, SPECTATOR):
                shown = None if is_platform_event(event.type) else game.redact(
                    Event(event.type, event.data), viewer)
                data = event.data if is_platform_event(event.type) else shown and shown.data
                words = tuple(sorted((k, v) for k, v in (data or {}).items()
                                     if isinstance(v, str) and not v[-1:].isdigit()))
                found.setdefault((event.type, data is None, words), {
                    "type": event.type, "data": data, "seat": event.data.get("seat")})
    return list(found.values())


# What a line must never show in English: a wire id ("ship-14" said "ship 14", "kalgon"), or a
# possessive made from "you".
WIRE_IN_ENGLISH = re.compile(r"\bship \d+\b|\byou's\b|\b(?:brotherhood|bzzgzzrt|freep|glorp|kalgon|"
                             r"mazons|mhee|recyclons|tribot)\b")


@pytest.mark.parametrize("lang", ["ko", "en"])
@pytest.mark.parametrize("game", sorted(BOT_TABLES))
def test_every_kind_of_event_a_game_makes_reads_in_the_page_language(browser, site, game, lang):
    # A random game shows only some kinds of event; this one renders every kind random games
    # make. Mag Blast's capture once read "from seat 2", its hand raid "이유 bridge hit", a
    # Direct Hit "target kalgon".
    names = {"ko": ["앤", "보", "카이", "도윤", "은서", "하준", "지아", "서연"],
             "en": ["Ann", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"]}[lang]
    lines = sentences(browser, site, lang, game, event_examples(game), names)
    if lang == "ko":
        foreign = english_ui_words()
        wrong = {line for line in lines for word in WORD.findall(line) if word.lower() in foreign}
    else:
        wrong = {line for line in lines if WIRE_IN_ENGLISH.search(line) or HANGUL.search(line)}
    assert not wrong, "\n".join(sorted(wrong))
