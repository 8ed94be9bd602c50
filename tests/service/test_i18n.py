"""Korean beside English (issue 28): the reader's language chosen by Accept-Language or the
player's preference, problem details said in it (the code stays English), and catalogs that
translate every message they hold."""

from __future__ import annotations

import inspect
import re
import secrets
import string
import unicodedata
from pathlib import Path

import marshmallow.fields
import marshmallow.validate
import pytest
from babel.messages.pofile import read_po

from service.app import i18n
from tests.service.conftest import Api

KO = {"Accept-Language": "ko-KR,ko;q=0.9,en;q=0.8"}
EN = {"Accept-Language": "en-US,en;q=0.9"}


def _loot_table(api: Api) -> tuple[str, list[dict[str, str]]]:
    return api.table("loot", 2)


@pytest.mark.parametrize(("language", "detail", "title"), [
    (EN, "You have nothing to decide right now.", "Rule violation"),
    (KO, "지금은 결정할 것이 없습니다.", "규칙 위반"),
])
def test_a_rule_rejection_is_worded_in_the_language_the_client_asks_for(api, language, detail,
                                                                        title):
    game_id, players = _loot_table(api)
    waiting = players[1 - int(sorted(api.get(game_id)["pending"])[0])]
    response = api.client.post(f"/v1/games/{game_id}/commands",
                               headers={**waiting, **language},
                               json={"type": "draw",
                                     "expected_version": api.get(game_id)["version"]})
    assert response.status_code == 422
    assert response.json["code"] == "not_your_turn"  # stable, never translated
    assert response.json["detail"] == detail and response.json["title"] == title
    assert response.headers["Content-Language"] == ("ko" if language is KO else "en")


def test_a_rule_rejection_keeps_its_parameters_in_korean(api):
    game_id, players = _loot_table(api)
    mover = players[int(sorted(api.get(game_id)["pending"])[0])]
    response = api.client.post(f"/v1/games/{game_id}/commands", headers={**mover, **KO},
                               json={"type": "fly",
                                     "expected_version": api.get(game_id)["version"]})
    assert response.json["code"] == "unknown_command"
    assert response.json["detail"] == "루트에는 'fly' 명령이 없습니다."  # games.po's name


@pytest.mark.parametrize(("language", "detail", "field_error"), [
    (EN, "The request does not match its schema.", "Missing data for required field."),
    (KO, "요청이 스키마와 맞지 않습니다.", "필수 필드의 값이 없습니다."),
])
def test_a_validation_error_is_worded_in_the_language_the_client_asks_for(api, language, detail,
                                                                         field_error):
    response = api.client.post("/v1/games", headers={**api.player(), **language},
                               json={"seats": [{"kind": "human"}]})
    assert response.status_code == 400 and response.json["code"] == "invalid_request"
    assert response.json["detail"] == detail
    assert response.json["errors"]["json"]["game"] == [field_error]


def test_a_validation_error_with_a_bound_keeps_the_bound_in_korean(api):
    response = api.client.put("/v1/account/locale", headers={**api.player(), **KO},
                              json={"locale": "xx"})
    assert response.status_code == 400
    assert response.json["errors"]["json"]["locale"] == ["다음 중 하나여야 합니다: en, ko."]


@pytest.mark.parametrize(("language", "words"), [
    (EN, "At most 1 new players every 60 seconds"),
    (KO, "새 플레이어: 60초에 최대 1개까지입니다."),
])
def test_a_rate_limit_answer_is_worded_in_the_language_the_client_asks_for(make_app, language,
                                                                          words):
    api = Api(make_app(limits={"players_per_minute": 1}))
    address = {"REMOTE_ADDR": f"10.28.{len(words) % 250}.{secrets.randbelow(250) + 1}"}
    assert api.client.post("/v1/players", json={"name": "ann"}, headers=language,
                           environ_base=address).status_code == 201
    refused = api.client.post("/v1/players", json={"name": "bob"}, headers=language,
                              environ_base=address)
    assert refused.status_code == 429 and refused.json["code"] == "rate_limited"
    assert words in refused.json["detail"]
    assert refused.json["title"] == ("요청이 너무 많음" if language is KO else "Too many requests")


@pytest.mark.parametrize(("header", "expected"), [
    (None, "en"), ("ko", "ko"), ("ko-KR", "ko"), ("fr-FR, ko;q=0.5, en;q=0.4", "ko"),
    ("en;q=0.3, ko;q=0.9", "ko"), ("fr, de", "en"), ("ko;q=0, en", "en"), ("*", "en"),
])
def test_every_answer_says_its_language_in_content_language(api, header, expected):
    response = api.client.get("/v1/health/live", headers={"Accept-Language": header} if header
                              else {})
    assert response.headers["Content-Language"] == expected
    assert "Accept-Language" in response.headers.get("Vary", "")


def test_a_players_chosen_language_wins_over_accept_language_until_forgotten(api):
    ann = api.player()
    assert api.client.get("/v1/account/locale", headers=ann).json == {
        "locale": None, "supported": ["en", "ko"]}
    chosen = api.client.put("/v1/account/locale", headers={**ann, **EN}, json={"locale": "ko"})
    assert chosen.status_code == 200 and chosen.json["locale"] == "ko"
    assert chosen.headers["Content-Language"] == "ko"
    missing = api.client.get("/v1/games/g_doesnotexist0", headers={**ann, **EN})
    assert missing.headers["Content-Language"] == "ko"
    assert missing.json["code"] == "game_not_found" and missing.json["title"] == "찾을 수 없음"
    api.client.put("/v1/account/locale", headers=ann, json={"locale": None})
    assert api.client.get("/v1/account/locale", headers={**ann, **EN}).headers[
        "Content-Language"] == "en"


def test_the_terminals_language_comes_from_lang_and_falls_back_to_english():
    assert i18n.locale_from_environment({"LANG": "ko_KR.UTF-8"}) == "ko"
    assert i18n.locale_from_environment({"LANG": "C.UTF-8"}) == "en"
    assert i18n.locale_from_environment({"LANGUAGE": "fr:ko", "LANG": "en_US.UTF-8"}) == "ko"
    assert i18n.locale_from_environment({}) == "en"


def test_a_translation_missing_from_a_catalog_is_said_in_english():
    assert i18n.say(i18n.Text("No such words {x} anywhere.", x=1), "ko") == \
        "No such words 1 anywhere."


# --- the catalogs ------------------------------------------------------------------------------

CATALOGS = sorted(i18n.TRANSLATIONS.glob("*/LC_MESSAGES/*.po"))


def _read(path: Path):
    with path.open("rb") as po:
        return read_po(po, locale=path.parent.parent.name)


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def test_every_supported_locale_has_the_server_catalog():
    for locale in i18n.SUPPORTED_LOCALES:
        assert i18n.catalog_path(locale, "messages").exists(), locale


@pytest.mark.parametrize("path", CATALOGS, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_every_message_of_a_catalog_has_a_translation_with_the_same_parameters(path):
    """A missing translation, or one that drops or invents a {field}, fails here."""
    untranslated, wrong = [], []
    for message in _read(path):
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple | list) else (message.id,)
        strings = message.string if isinstance(message.string, tuple | list) \
            else (message.string,)
        if not all(strings):
            untranslated.append(ids[0])
        elif "python-brace-format" in message.flags or "{" in ids[0]:
            if any(_fields(s) != _fields(ids[-1]) | _fields(ids[0]) for s in strings):
                wrong.append(ids[0])
    assert not untranslated, f"{path}: untranslated: {untranslated}"
    assert not wrong, f"{path}: a translation's parameters differ from the message's: {wrong}"


def _missing(locales: dict[str, set]) -> dict[str, set]:
    """Per supported locale, the keys another locale's catalog of the domain has and it lacks."""
    union = set().union(*locales.values())
    return {locale: union - locales.get(locale, set()) for locale in i18n.SUPPORTED_LOCALES}


def test_every_locale_holds_the_same_messages_in_every_domain():
    by_domain: dict[str, dict[str, set]] = {}
    for path in CATALOGS:
        ids = {(m.context, m.id if isinstance(m.id, str) else tuple(m.id))
               for m in _read(path) if m.id}
        by_domain.setdefault(path.stem, {})[path.parent.parent.name] = ids
    for domain, locales in by_domain.items():
        for locale, missing in _missing(locales).items():
            assert not missing, f"{locale}/{domain}.po misses {sorted(map(str, missing))[:10]}"


def test_a_key_one_catalog_lacks_is_caught():
    assert _missing({"en": {"a", "b"}, "ko": {"a"}}) == {"en": set(), "ko": {"b"}}


def test_the_catalogs_hold_every_message_the_sources_mark(tmp_path):
    """A message added to the code and not run through `make catalogs` fails here."""
    template = tmp_path / "messages.pot"
    i18n.extract(template)
    with template.open("rb") as pot:
        marked = {m.id if isinstance(m.id, str) else tuple(m.id) for m in read_po(pot) if m.id}
    for locale in i18n.SUPPORTED_LOCALES:
        held = {m.id if isinstance(m.id, str) else tuple(m.id)
                for m in _read(i18n.catalog_path(locale, "messages")) if m.id}
        missing = marked - held
        assert not missing, f"run `make catalogs`; {locale} lacks {sorted(map(str, missing))[:10]}"


def test_every_marshmallow_message_is_one_the_catalog_can_translate():
    known = set(i18n.VALIDATION_TEMPLATES)
    found: set[str] = set()
    for _, cls in inspect.getmembers(marshmallow.fields, inspect.isclass):
        found |= set(getattr(cls, "default_error_messages", {}).values())
    for _, cls in inspect.getmembers(marshmallow.validate, inspect.isclass):
        found |= {v for k, v in vars(cls).items() if isinstance(v, str)
                  and (k.startswith("message") or k in ("default_message", "error"))}
    found = {re.sub(r"\{(\w+)!r\}", r"{\1}", m) for m in found
             if "_op}" not in m and m not in ("greater than", "greater than or equal to",
                                             "less than", "less than or equal to")}
    assert found <= known, sorted(found - known)


def test_korean_handles_and_names_compare_in_one_form_whatever_their_encoding(api):
    from service.app.accounts import normalised_name
    from service.auth.handles import fold

    composed, decomposed = "민지", unicodedata.normalize("NFD", "민지")
    assert composed != decomposed  # conjoining jamo: ㅁ ㅣ ㄴ ㅈ ㅣ
    assert fold(decomposed) == fold(composed) and fold("\uff2dinji") == fold("minji")
    assert normalised_name(" " + decomposed) == composed
    # Hangul syllables sort in 가나다 order once in one form.
    assert sorted(fold(n) for n in ["하늘", decomposed, "가람"]) == ["가람", "민지", "하늘"]
    ann = api.player(decomposed)
    assert api.client.get("/v1/me", headers=ann).json["name"] == composed


def test_a_push_is_worded_in_the_players_language_else_in_the_subscribing_ones(api):
    from service.app.push import PushSubscriptions, payload

    ann = api.player()
    player_id = api.client.get("/v1/me", headers=ann).json["id"]
    push = PushSubscriptions(api.app.extensions["tablestream"].accounts.redis)
    subscribed_in_korean = {"locale": "ko"}
    assert push._locale(player_id, subscribed_in_korean) == "ko"
    assert push._locale(player_id, {"locale": None}) == "en"
    api.client.put("/v1/account/locale", headers=ann, json={"locale": "en"})
    assert push._locale(player_id, subscribed_in_korean) == "en"
    notice = {"kind": "your_turn", "game": "faker_blue", "game_id": "g_1"}
    assert payload(notice, "ko")["title"] == "내 차례입니다"
    assert payload(notice, "ko")["body"] == "페이커 블루 게임 g_1"
    assert payload(notice)["body"] == "faker_blue game g_1"


def test_a_prompt_label_in_a_game_view_is_in_the_readers_language(api):
    game_id, players = api.table("maskmen", 3)
    leader = int(sorted(api.get(game_id)["pending"])[0])
    korean = api.client.get(f"/v1/games/{game_id}", headers={**players[leader], **KO}).json
    english = api.client.get(f"/v1/games/{game_id}", headers={**players[leader], **EN}).json
    assert english["pending"][str(leader)]["label"] == "lead a wrestler"
    assert korean["pending"][str(leader)]["label"] == "레슬러를 먼저 내기"


def test_explain_words_its_checks_in_the_readers_language(api):
    game_id, players = _loot_table(api)
    seat = int(sorted(api.get(game_id)["pending"])[0])
    mine = api.get(game_id, players[seat])
    draw = next(c for c in mine["legal_commands"] if c["type"] == "draw")
    assert api.send(game_id, players[seat], draw, mine["version"]).status_code == 200
    version = api.get(game_id)["version"]
    url = f"/v1/games/{game_id}/events/{version}/explain"
    english = api.client.get(url, headers={**players[seat], **EN}).json["checks"]
    korean = api.client.get(url, headers={**players[seat], **KO}).json["checks"]
    assert english[0] == f"It was seat {seat}'s decision and draw was allowed then."
    assert korean[0] == f"좌석 {seat}의 결정이었고, 그때 뽑기은(는) 허용된 명령이었습니다."
    assert len(korean) == len(english) and all("Then:" not in line for line in korean)


def test_a_name_in_a_rejection_is_the_name_games_po_gives_it():
    from games.core import Rejected

    refused = Rejected("colour_taken", "{colour} is already in use on this ship.",
                       {"colour": "blue"})
    assert refused.message == "blue is already in use on this ship."
    assert refused.details == {"colour": "blue"}  # the facts stay ids
    assert i18n.say(refused.message, "ko") == "파랑은(는) 이 배에서 이미 쓰이고 있습니다."


def test_a_prompt_naming_a_card_by_its_id_names_it_in_korean():
    """Mag Blast asks "respond to direct_hit?": the id is said by games.po's name for it."""
    from games.core import Text
    from service.app import i18n as catalogs

    label = Text("respond to {card}?", card="direct_hit")
    assert catalogs.say(label, "en") == "respond to direct_hit?"
    assert catalogs.say(label, "ko") == "직격에 응수할까요?"


def test_war_of_the_rings_summary_lines_are_in_the_readers_language(api):
    """The lines a War of the Ring view puts first (for the terminal client) are said again in
    Korean, names of sides and regions included; English reads as the rules wrote it."""
    game_id, players = api.table("wotr", 2, {"scenario": "south"})
    english = api.get(game_id, players[0])["view"]["summary"]
    korean = api.client.get(f"/v1/games/{game_id}", headers={**players[0], **KO}).json
    lines = korean["view"]["summary"]
    assert english[0].startswith("round 1/") and "VP fp" in english[0]
    assert len(lines) == len(english)
    assert "라운드" in lines[0] and "승점 자유민족" in lines[0]
    assert lines[1].startswith("주사위 자유민족")
    assert any(line.startswith("손패: ") for line in lines)
    assert not any(line.startswith(("round", "dice", "hand:")) for line in lines)
