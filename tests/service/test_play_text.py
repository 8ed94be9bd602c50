"""`tablestream play` reads like a game: names, the table in words, choices explained."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from service.clients import play_text
from service.clients.cli import main
from tests.e2e.conftest import free_port


@pytest.fixture(autouse=True)
def english_terminal(monkeypatch):
    """These tests read English: a terminal in English, whatever a test before left behind."""
    monkeypatch.setenv("LANG", "C.UTF-8")
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(play_text, "LOCALE", "en")


@pytest.mark.parametrize("game", ["loot", "maskmen", "faker_blue", "wotr"])
def test_the_table_names_players_and_says_whose_turn_it_is(api, game):
    game_id, players = api.table(game, 2)
    public = api.get(game_id)
    seat = int(sorted(public["pending"])[0])
    mine = api.get(game_id, players[seat])
    lines = play_text.render(mine)
    text = "\n".join(lines)
    assert "p0" in text and "p1" in text  # the players' names, not seat numbers
    assert "YOUR TURN" in text and "(you)" in text
    assert "Your hand" in text
    theirs = "\n".join(play_text.render(api.get(game_id, players[1 - seat])))
    assert "waiting for" in theirs and "YOUR TURN" not in theirs
    for command in mine["legal_commands"]:
        described = play_text.describe_command(command, mine)
        assert described[0].isupper() and "expected_version" not in described


def test_wotr_cards_are_named_by_their_event_and_combat_title():
    assert play_text.describe_card("wotr", "the_spirit_of_mordor") == (
        "The Spirit of Mordor (Scouts, initiative 1)")


def test_a_result_ends_with_the_games_own_words_for_how_it_ended():
    """Issue 24 point 8: War of the Ring's round limit reads as the Free Peoples holding out."""
    summary = "The Free Peoples held out to the end of round 1: the Ring reached Mount Doom."
    game = {"seats": [{"seat": 0, "name": "ann"}, {"seat": 1, "name": "bob"}],
            "result": {"winners": [0], "scores": {"0": 0, "1": 2}, "summary": summary}}
    assert play_text.result_text(game) == (
        "Game over. Winner: ann. Scores: ann 0, bob 2. " + summary)


def test_loot_cards_are_named_as_a_player_would():
    assert play_text.describe_card("loot", "M8a") == "M8a (merchant, 8 gold)"
    assert play_text.describe_card("loot", "P-blue-1a") == "P-blue-1a (blue pirate, 1 skull)"
    assert play_text.describe_card("loot", "C-gold") == "C-gold (gold captain)"
    assert play_text.describe_card("loot", "ADM") == "ADM (the admiral)"


def test_what_the_others_did_is_told_with_their_names(api):
    game_id, players = api.table("loot", 2)
    public = api.get(game_id)
    seat = int(sorted(public["pending"])[0])
    mine = api.get(game_id, players[seat])
    api.send(game_id, players[seat], {"type": "draw"}, mine["version"])
    other = api.get(game_id, players[1 - seat])
    events = api.client.get(f"/v1/games/{game_id}/events",
                            headers=players[1 - seat]).json["events"]
    told = [play_text.narrate(e, other) for e in events]
    assert f"p{seat} sat down." in told
    drawn = next(t for t, e in zip(told, events, strict=True) if e["type"] == "card_drawn")
    assert drawn.startswith(f"p{seat}:") and "hidden" not in drawn  # the draw, not the card
    assert "P-" not in drawn and "M" not in drawn.split(":", 1)[1].replace("drawn", "")


def test_the_client_says_plainly_when_the_server_is_down_and_honours_tablestream_url():
    url = f"http://127.0.0.1:{free_port()}/v1"
    result = CliRunner().invoke(main, ["play", "--name", "ann", "--new", "loot"],
                                env={"TABLESTREAM_URL": url})
    assert result.exit_code != 0
    assert f"Cannot reach the Tablestream server at {url}" in result.output
    assert "Traceback" not in result.output


def test_the_client_finds_a_local_server_on_port():
    result = CliRunner().invoke(main, ["play", "--name", "ann", "--new", "loot"],
                                env={"PORT": "1", "TABLESTREAM_URL": ""})
    assert "http://127.0.0.1:1/v1" in result.output


def test_faker_blue_and_mag_blast_cards_are_named_not_only_numbered():
    assert play_text.describe_card("faker_blue", "vampire-3") == "vampire-3 (Vampire)"
    assert play_text.describe_card("faker_blue", "vampire") == "Vampire"  # a kind, as used
    assert play_text.describe_card("magblast", "laser_blast-2") == "laser_blast-2 (Laser Blast)"
    assert play_text.describe_card("magblast", "ship-04") == "ship-04 (Scular, Scout)"
    assert play_text.describe_card("magblast", "kalgon") == "Overseers of Kalgon"


MAG_BLAST_VIEW = {
    "phase": "attack", "races": ["kalgon", "glorp"], "alive": [True, False],
    "zones": [{"n": ["ship-04"], "e": [], "s": [], "w": []}, {"n": [], "e": [], "s": [], "w": []}],
    "under": {"ship-04": [["laser_blast-2", 1], ["beam_blast-1", 1]],
              "kalgon": [["mag_blast-1", 3]]},
    "hand": ["laser_blast-3"], "dealt": [], "action_deck": 80, "fleet_deck": 40,
    "hand_counts": [1, 0], "chain": None, "dh": None, "proposal": None, "effects": [],
    "returning": []}


def test_the_mag_blast_table_shows_each_fleet_by_zone_with_its_damage_against_its_hull():
    text = "\n".join(play_text.magblast_page(MAG_BLAST_VIEW, ["ann", "bob"], "magblast"))
    assert "Phase: attack" in text
    assert "ann: Overseers of Kalgon 3/8" in text
    assert "  front: ship-04 (Scular, Scout) 2/3" in text  # two hits under a hull of 3
    assert "bob (out): The Glorp 0/8" in text
    assert "Your hand: laser_blast-3 (Laser Blast)" in text
    assert "Action deck: 80; fleet deck: 40; hands: ann 1, bob 0" in text
    assert "None" not in text and "dh" not in text  # nothing under way, nothing shown


def test_a_new_mag_blast_game_shows_the_fleet_each_player_was_dealt_to_place(api):
    game_id, players = api.table("magblast", 2)
    text = "\n".join(play_text.render(api.get(game_id, players[0])))
    assert "Phase: setup" in text and "Your hand: " in text
    dealt = re.search(r"Your fleet to place: (.*)", text)[1].split("), ")
    assert len(dealt) == 6 and all(re.match(r"ship-\d+ \(\w", s) for s in dealt)


def test_the_mag_blast_table_reads_in_korean(monkeypatch):
    monkeypatch.setattr(play_text, "LOCALE", "ko")
    text = "\n".join(play_text.magblast_page(MAG_BLAST_VIEW, ["ann", "bob"], "magblast"))
    assert "단계: 공격" in text and "앞: ship-04 (스큘라, 정찰함) 2/3" in text
    assert "내 손패: laser_blast-3 (레이저포)" in text
    assert play_text.describe_card("faker_blue", "vampire-3") == "vampire-3 (뱀파이어)"


def test_the_terminal_names_cards_and_the_table_in_korean(monkeypatch):
    monkeypatch.setattr(play_text, "LOCALE", "ko")
    assert play_text.describe_card("loot", "M8a") == "M8a (상선, 8 골드)"
    assert play_text.describe_card("loot", "P-blue-1a") == "P-blue-1a (파랑 해적선, 해골 1개)"
    assert play_text.describe_card("wotr", "the_spirit_of_mordor").endswith(", 우선권 1)")
    assert play_text.narrate({"type": "game_started", "version": 2, "data": {}},
                             {"seats": [], "you": None}) == "게임이 시작됩니다."


def _ids(value) -> set[str]:
    """The ASCII words of the string values in an event's data or a command (card, region and
    ship ids, which the terminal may show as they are), not of its keys."""
    if isinstance(value, dict):
        return set().union(*(_ids(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(_ids(v) for v in value)) if value else set()
    return set(re.findall(WORD, value)) if isinstance(value, str) else set()


WORD = r"[A-Za-z][\w-]*"
ENGLISH = ("drawn", "played", "card", "move", "attack", "seat", "target", "started", "play",
           "none", "True", "False")


@pytest.mark.parametrize("game", ["loot", "maskmen", "faker_blue", "magblast", "wotr", "tally"])
def test_game_events_and_choices_are_told_in_korean(api, monkeypatch, game):
    """Issue 28: a game's events and legal commands name their kind and fields in Korean; only
    ids (cards, regions, ships), numbers and the players' names stay as they are."""
    game_id, players = api.table(game, 2)
    for _step in range(4):
        public = api.get(game_id)
        if public["status"] == "finished":
            break
        seat = int(sorted(public["pending"])[0])
        mine = api.get(game_id, players[seat])
        api.send(game_id, players[seat], mine["legal_commands"][0], mine["version"])
    public = api.get(game_id)
    seat = int(sorted(public["pending"])[0]) if public["pending"] else 0
    mine = api.get(game_id, players[seat])
    events = api.client.get(f"/v1/games/{game_id}/events", headers=players[seat]).json["events"]
    monkeypatch.setattr(play_text, "LOCALE", "ko")
    told = [(play_text.narrate(e, mine), e.get("data")) for e in events
            if e["type"] not in play_text.PLATFORM]
    told += [(play_text.describe_command(c, mine), c) for c in mine["legal_commands"]]
    assert len(told) > len(mine["legal_commands"]) and mine["legal_commands"]
    for text, source in told:
        allowed = _ids({k: v for k, v in (source or {}).items() if k != "type"})
        text = re.sub(r"[\w-]*…", "", text)  # an id cut short by the line's limit
        names = {"p0", "p1", "v40K"}  # the players', and games.po's Korean "리사이클론 v40K"
        english = set(re.findall(WORD, text)) - allowed - names
        assert not english, (text, source)
        assert not any(re.search(rf"\b{word}\b", text) for word in ENGLISH if word not in allowed)


def test_every_games_event_and_command_types_have_korean_words(monkeypatch):
    """A new event or command type of a game gets its words in play_words.py (and Korean in
    messages.po), or this names it."""
    import importlib

    from games import REGISTRY

    monkeypatch.setattr(play_text, "LOCALE", "ko")
    missing = []
    for name, game in REGISTRY.items():
        events = importlib.import_module(f"games.{name}.shapes").EVENTS
        for identifier in [*events, *game.commands]:
            if re.search(r"[A-Za-z]", play_text.words(identifier)):
                missing.append(f"{name}: {identifier}")
    assert not missing


def test_ids_of_regions_nations_and_cards_in_an_event_or_a_choice_are_named_in_korean(
        monkeypatch):
    monkeypatch.setattr(play_text, "LOCALE", "ko")
    game = {"game": "wotr", "seats": [{"seat": 0, "name": "ann"}, {"seat": 1, "name": "bob"}],
            "you": 0}
    move = {"src": "Minas Tirith", "dst": "Osgiliath", "figures": {"gondor": [1, 0, 0]}}
    assert play_text.narrate({"type": "army_moved", "seat": 0, "data": move}, game) == (
        "ann (나): 군대 이동 — 출발 미나스 티리스, 도착 오스길리아스, 피규어 곤도르 1, 0, 0.")
    assert play_text.describe_command(
        {"type": "move", "from": "Minas Tirith", "to": "Osgiliath"}, game) == (
        "이동: 출발 미나스 티리스; 도착 오스길리아스")
    assert play_text.describe_command(
        {"type": "use", "card": "assassin", "target": 1, "redirect": None},
        {**game, "game": "faker_blue"}) == "사용: 카드 암살자; 대상 bob; 돌릴 대상 없음"
    # Mag Blast's copies of a card by the card's name; "bomber" by the game it is in.
    magblast = {**game, "game": "magblast"}
    assert play_text.describe_command({"type": "play_card", "card": "beam_blast-4"},
                                      magblast) == "카드 내기: 카드 beam_blast-4 (입자빔포)"
    assert play_text.describe_command({"type": "play_card", "card": "bomber-2"},
                                      magblast) == "카드 내기: 카드 bomber-2 (폭격기)"
