"""War of the Ring with two seats a side (issue 24 point 7; wotr.md decisions block: "two seats
per side sharing its dice, alternating", §16 after the rulebook's multiplayer chapter): which
Nations each seat commands, the order of the seats, hidden hands per seat, the seat that decides
in a battle, the result, and bots in every seat."""

from __future__ import annotations

import pytest

from games.core import AUDITOR, Rejected, Rng
from games.wotr import GAME, seats
from games.wotr.data import DECKS, FP, SH
from tests.games.dsl import given_state
from tests.games.wotr_helpers import NO_CARD, attack, move

GONDOR, WITCH_KING, ROHAN, SARUMAN = 0, 1, 2, 3


def _game(seats: int = 4) -> dict:
    return GAME.fold(GAME.setup(seats, GAME.load_options({"scenario": "south"}), Rng("seats")))


def _acting(state: dict, seat: int, dice: dict[str, list[str]]) -> dict:
    """``state`` in the action phase with ``dice`` left and ``seat`` to use the next die."""
    state = {**state, "dice": dice, "battle": None, "action": None}
    side = FP if seat in (GONDOR, ROHAN) else SH
    state["turn"] = side
    state["next"] = {**state["next"], side: seat}
    return state


def _step(state, seat, command, rng=None):
    return given_state(GAME, state).when(command, seat, rng or Rng("step")).then_state()


def test_four_seats_command_the_nations_of_the_rulebooks_four_player_game():
    """§16 [DZ-multi]: "Player 1: Gondor (also controls the Elves) — Player 2: Rohan (also
    controls the North and Dwarves) … Player 1: The Witch-king (the Sauron Nation) — Player 2:
    Saruman and Sauron Allies (Isengard and Southron & Easterling Nations)"."""
    state = _game()
    nations = {seat: GAME.view(state, seat)["nations"] for seat in range(4)}
    assert nations == {GONDOR: ["gondor", "elves"], WITCH_KING: ["sauron"],
                       ROHAN: ["rohan", "north", "dwarves"], SARUMAN: ["isengard", "southrons"]}
    assert [GAME.view(state, seat)["side"] for seat in range(4)] == [FP, SH, FP, SH]
    three = _game(3)
    assert [GAME.view(three, seat)["nations"] for seat in range(3)] == [
        ["elves", "dwarves", "north", "rohan", "gondor"], ["sauron"], ["isengard", "southrons"]]


def test_the_seats_of_a_side_share_its_dice_and_alternate_non_leading_first():
    """Decisions block: "two seats per side sharing its dice, alternating"; [DZ-multi]: "The
    non-Leading Player on the Free Peoples team chooses an Action die … Then the non-Leading
    Player in the Shadow team …, followed by the Leading Player on the Free Peoples team, and
    then the Leading Player on the Shadow team"; Gondor and the Witch-king lead in round 1 and
    the token passes to the teammate every round."""
    state = _game()
    order = []
    for _ in range(6):
        (seat,) = GAME.pending(state)
        order.append(seat)
        die = sorted(state["dice"][FP if seat % 2 == 0 else SH])[0]
        state = _step(state, seat, {"type": "skip_die", "die": die})
    assert order == [ROHAN, SARUMAN, GONDOR, WITCH_KING, ROHAN, SARUMAN]
    later = {**state, "round": 2}
    assert seats.leading(later, FP) == ROHAN and seats.first_to_act(later, FP) == GONDOR
    assert seats.leading(later, SH) == SARUMAN and seats.first_to_act(later, SH) == WITCH_KING


def test_a_seat_moves_and_attacks_only_with_the_armies_in_its_charge():
    """[DZ-multi]: "Each player only controls certain Nations and can only use his Action dice
    … to recruit, move, or fight with Armies of these Nations"; a mixed army is in the charge of
    the seat with the most units in it."""
    state = _acting(_game(), GONDOR, {FP: ["muster_army"], SH: ["army"]})
    state["armies"]["Folde"] = {"rohan": [2, 0, 0]}
    given_state(GAME, state).when(move("Folde", "Westemnet", die="muster_army"),
                                  GONDOR).rejected("not_your_nation")
    froms = {c["from"] for c in GAME.legal_commands(state, GONDOR) if c["type"] == "move"}
    assert "Folde" not in froms and "Minas Tirith" in froms
    state["armies"]["Folde"] = {"rohan": [1, 0, 0], "gondor": [2, 0, 0]}
    assert "Folde" in {c["from"] for c in GAME.legal_commands(state, GONDOR)
                       if c["type"] == "move"}  # mixed, but Gondor has the most units


def test_a_seat_musters_and_makes_diplomacy_only_for_its_own_nations():
    state = _acting(_game(), GONDOR, {FP: ["muster"], SH: ["army"]})
    recruits = {r["nation"] for c in GAME.legal_commands(state, GONDOR) if c["type"] == "muster"
                for r in c["recruits"]}
    nations = {c["nation"] for c in GAME.legal_commands(state, GONDOR)
               if c["type"] == "diplomacy"}
    assert recruits <= {"gondor", "elves"} and nations <= {"gondor", "elves"}
    assert "gondor" in nations
    given_state(GAME, state).when({"type": "diplomacy", "die": "muster", "nation": "rohan"},
                                  GONDOR).rejected("not_your_nation")


def test_each_seat_has_its_own_hidden_hand_even_from_its_teammate():
    """[DZ-multi] each player keeps his own hand (the players of a team cannot show each other
    their cards); the side's round draw goes to its Leading seat; the hand limit is 4."""
    state = _game()
    assert state["hands"][str(GONDOR)] and state["hands"][str(WITCH_KING)]  # round 1 leaders
    assert state["hands"][str(ROHAN)] == [] and state["hands"][str(SARUMAN)] == []
    card = state["hands"][str(GONDOR)][0]
    assert GAME.view(state, GONDOR)["hand"] == [card]
    assert GAME.view(state, ROHAN)["hand"] == []
    assert card in GAME.secrets(state, ROHAN) and card not in GAME.secrets(state, GONDOR)
    assert GAME.view(state, ROHAN)["hand_counts"][str(GONDOR)] == 1
    drawn = next(e for e in GAME.setup(4, GAME.load_options({"scenario": "south"}),
                                       Rng("seats")) if e.type == "card_drawn")
    assert GAME.redact(drawn, ROHAN).data == {"side": FP, "seat": GONDOR}
    assert GAME.redact(drawn, GONDOR) == drawn
    full = _acting(_game(), ROHAN, {FP: ["event"], SH: ["army"]})
    full["hands"][str(ROHAN)] = list(DECKS[FP][1:5])
    full["decks"][FP] = [c for c in full["decks"][FP] if c not in DECKS[FP][1:5]]
    after = _step(full, ROHAN, {"type": "draw_card", "die": "event"})
    assert GAME.pending(after) == {ROHAN: GAME.pending(after)[ROHAN]}
    assert GAME.pending(after)[ROHAN].kinds == ("discard",)  # 5 cards: over the limit of 4


def test_the_seat_in_charge_of_the_defending_army_plays_its_combat_card():
    """The attacking seat and the seat in charge of the defending army decide for their sides:
    here the Witch-king attacks a Rohan army, so Rohan's seat (not Gondor's) chooses the Free
    Peoples' card, from its own hand, after the attacker (§5.1)."""
    state = _acting(_game(), WITCH_KING, {FP: ["event"], SH: ["army"]})
    state["armies"] = {"Westemnet": {"rohan": [2, 0, 0]}, "Folde": {"sauron": [3, 0, 0]}}
    for nation in ("sauron", "rohan"):
        state["politics"][nation] = {"step": 0, "active": True}
    state["hands"][str(ROHAN)] = [DECKS[FP][5]]
    state["decks"][FP].remove(DECKS[FP][5])
    state = _step(state, WITCH_KING, attack("Folde", "Westemnet", (3, 0, 0)))
    assert set(GAME.pending(state)) == {WITCH_KING}
    state = _step(state, WITCH_KING, NO_CARD)
    assert set(GAME.pending(state)) == {ROHAN}
    cards = {c["card"] for c in GAME.legal_commands(state, ROHAN)}
    assert cards <= {"", DECKS[FP][5]}
    assert GAME.legal_commands(state, GONDOR) == []


def test_the_winning_side_wins_for_both_its_seats():
    state = _game()
    state.update(over=True, winner=FP, reason="ring_destroyed")
    result = GAME.result(state)
    assert result["winners"] == [GONDOR, ROHAN]
    assert result["ranking"] == [[GONDOR, ROHAN], [WITCH_KING, SARUMAN]]
    assert set(result["scores"]) == {"0", "1", "2", "3"}


@pytest.mark.parametrize("seats", [3, 4])
def test_bots_of_every_level_take_any_seat(seats):
    """Bots can take any seat: random, basic and expert play a whole 3- or 4-seat game."""
    levels = ["expert", "basic", "random", "basic"][:seats]
    bots = [GAME.bot(level) for level in levels]
    log = GAME.setup(seats, GAME.load_options({"scenario": "south", "max_rounds": 3}),
                     Rng("levels", seats))
    state = GAME.fold(log)
    for step in range(3000):
        if GAME.result(state):
            break
        seat = sorted(GAME.pending(state))[0]
        command = bots[seat](GAME.seen(state, seat, log), Rng("bot", step))
        events = GAME.decide(state, command, seat, Rng("play", step))
        state = GAME.fold(events, state)
        log += events
    assert GAME.result(state)
    assert GAME.view(state, AUDITOR)["seats"] == seats


# --- the lone Free Peoples player of a 3-seat game (wotr.md §16) -------------------------------

LONE_FP, WK3, SARUMAN3 = 0, 1, 2  # the three seats of a 3-player game
RULE_3P = ("[DZ-multi] three-player game: \"The Free Peoples player cannot use two consecutive "
           "actions on the same Nation (e.g., he cannot use two consecutive actions to recruit "
           "and move Gondor troops). He can use two consecutive actions on mixed Armies but not "
           "on the same individual Army.\"")


def _three(armies: dict, fp_dice: list[str], sh_dice: list[str] | None = None) -> dict:
    """A 3-seat ``south`` game in the action phase, the Free Peoples to act with ``fp_dice``,
    ``armies`` on the map and every Nation At War."""
    state = {**_game(3), "battle": None, "action": None, "turn": FP,
             "dice": {FP: list(fp_dice), SH: list(sh_dice or [])}}
    state["armies"] = armies
    for nation in state["politics"]:
        state["politics"][nation] = {"step": 0, "active": True}
    return state


def _froms(state: dict, kind: str = "move") -> set[str]:
    return {c["from"] for c in GAME.legal_commands(state, LONE_FP) if c["type"] == kind}


def test_the_lone_free_peoples_player_may_not_act_twice_in_a_row_with_the_same_nation():
    """RULE_3P: recruit Gondor, then the Gondor army may not move (nor Gondor muster) until
    another Nation has acted; the Shadow's actions in between do not count."""
    armies = {"Minas Tirith": {"gondor": [3, 0, 1]}, "Edoras": {"rohan": [2, 0, 0]},
              "Minas Morgul": {"sauron": [5, 0, 1]}}
    state = _three(armies, ["muster_army", "muster_army", "muster_army"], ["army"])
    state = _step(state, LONE_FP, {"type": "muster", "die": "muster_army", "recruits": [
        {"nation": "gondor", "kind": "regular", "region": "Pelargir"}]})
    state["control"]["Pelargir"] = FP
    assert GAME.view(state, WK3)["fp_acted"] == {"nations": ["gondor"], "armies": [],
                                                "before": None}  # public
    assert "fp last acted with gondor: not again in a row (3 players)" in GAME.view(
        state, WK3)["summary"]
    state = _step(state, WK3 if GAME.pending(state).get(WK3) else SARUMAN3,
                  {"type": "skip_die", "die": "army"})
    assert set(GAME.pending(state)) == {LONE_FP}
    refused = given_state(GAME, state).when(move("Minas Tirith", "Lossarnach",
                                                 die="muster_army"), LONE_FP)
    refused.rejected("same_nation_twice")
    legal = GAME.legal_commands(state, LONE_FP)
    assert "Minas Tirith" not in _froms(state) and "Pelargir" not in _froms(state)
    assert "Edoras" in _froms(state)
    assert not any(r["nation"] == "gondor" for c in legal if c["type"] == "muster"
                   for r in c["recruits"])
    assert {c["nation"] for c in legal if c["type"] == "diplomacy"} == set()  # all At War
    state = _step(state, LONE_FP, move("Edoras", "Folde", (2, 0, 0), die="muster_army"))
    assert state["fp_acted"]["nations"] == ["rohan"]
    assert "Minas Tirith" in _froms(state) and "Folde" not in _froms(state)


def test_the_refusal_names_the_nation_and_the_rule():
    armies = {"Minas Tirith": {"gondor": [3, 0, 1]}, "Edoras": {"rohan": [2, 0, 0]}}
    state = _three(armies, ["muster", "muster_army"])
    state["politics"]["gondor"] = {"step": 1, "active": True}
    state = _step(state, LONE_FP, {"type": "diplomacy", "die": "muster", "nation": "gondor"})
    with pytest.raises(Rejected) as refused:
        GAME.decide(state, move("Minas Tirith", "Osgiliath", (1, 0, 0), die="muster_army"),
                    LONE_FP, Rng("x"))
    assert refused.value.code == "same_nation_twice"
    assert refused.value.details == {"nations": ["gondor"]}
    assert "three-player" in str(refused.value) and "gondor" in str(refused.value)


def test_a_mixed_army_may_follow_a_nation_but_not_act_twice_in_a_row():
    """RULE_3P: "he can move a Gondor Army once and then a Gondor/Rohan Army, but cannot act
    twice with the same Gondor/Rohan Army"."""
    armies = {"Pelargir": {"gondor": [2, 0, 0]},
              "Minas Tirith": {"gondor": [2, 0, 1], "rohan": [2, 0, 0]}}
    state = _three(armies, ["army", "army", "army"])
    state = _step(state, LONE_FP, move("Pelargir", "Lamedon", (2, 0, 0), die="army"))
    state = _step(state, LONE_FP, {"type": "end_action"})
    assert "Minas Tirith" in _froms(state)  # mixed: allowed after a Gondor action
    state = _step(state, LONE_FP, move("Minas Tirith", "Lossarnach", (4, 0, 1), die="army"))
    # no second army: the Gondor one at Lamedon acted in the action before
    assert state["action"] is None
    assert state["fp_acted"]["armies"] == ["Lossarnach", "Minas Tirith"]
    assert "Lossarnach" not in _froms(state)
    given_state(GAME, state).when(move("Lossarnach", "Osgiliath", die="army"),
                                  LONE_FP).rejected("same_nation_twice")
    assert "Lamedon" in _froms(state)  # the Gondor army may act again


def test_the_second_army_of_one_army_die_is_part_of_the_same_action():
    """Two armies moved with one Army die are one action: both may be Gondor's, and the next
    action is then checked against Gondor; drawing a card acts with no Nation."""
    armies = {"Pelargir": {"gondor": [2, 0, 0]}, "Minas Tirith": {"gondor": [3, 0, 1]},
              "Edoras": {"rohan": [2, 0, 0]}}
    state = _three(armies, ["army", "army", "event", "muster_army"])
    state = _step(state, LONE_FP, move("Edoras", "Folde", (2, 0, 0), die="army"))
    state = _step(state, LONE_FP, {"type": "end_action"})
    state = _step(state, LONE_FP, move("Pelargir", "Lamedon", (2, 0, 0), die="army"))
    assert {c["from"] for c in GAME.legal_commands(state, LONE_FP)
            if c["type"] == "second_move"} >= {"Minas Tirith"}
    state = _step(state, LONE_FP, {"type": "second_move", "from": "Minas Tirith",
                                   "to": "Lossarnach", "figures": {"regular": 3, "elite": 0,
                                                                   "leader": 1}})
    assert state["fp_acted"] == {"nations": ["gondor"], "armies": [],
                                 "before": {"nations": ["rohan"], "armies": []}}
    assert _froms(state) == {"Folde"}
    state = _step(state, LONE_FP, {"type": "draw_card", "die": "event"})
    assert state["fp_acted"]["nations"] == []
    assert {"Lamedon", "Lossarnach", "Folde"} <= _froms(state)


@pytest.mark.parametrize("count", [2, 4])
def test_the_rule_binds_only_the_lone_free_peoples_player_of_a_three_seat_game(count):
    """With a seat a side (2) the Free Peoples may act with Gondor twice in a row; with two
    seats a side (4) they alternate anyway and no record is kept."""
    state = GAME.fold(GAME.setup(count, GAME.load_options({"scenario": "south"}), Rng("seats")))
    state.update(battle=None, action=None, turn=FP, dice={FP: ["army", "army"], SH: []})
    if count == 4:
        state["next"] = {**state["next"], FP: GONDOR}
    state["armies"] = {"Pelargir": {"gondor": [2, 0, 0]}, "Minas Tirith": {"gondor": [3, 0, 1]}}
    state["politics"]["gondor"] = {"step": 0, "active": True}
    events = given_state(GAME, state).when(move("Pelargir", "Lamedon", (2, 0, 0), die="army"),
                                           GONDOR).events
    assert "acted_with" not in {e.type for e in events}
    state = _step(state, GONDOR, move("Pelargir", "Lamedon", (2, 0, 0), die="army"))
    state = _step(state, GONDOR, {"type": "end_action"})
    assert state["fp_acted"] is None and GAME.view(state, GONDOR)["fp_acted"] is None
    if count == 2:
        _step(state, GONDOR, move("Minas Tirith", "Lossarnach", (3, 0, 1), die="army"))


def test_random_three_seat_games_never_act_twice_in_a_row_with_a_nation():
    """Bots pick from the legal commands, so a random 3-seat game obeys RULE_3P: no two
    consecutive Free Peoples actions share a Nation."""
    for n in range(3):
        state = GAME.fold(GAME.setup(3, GAME.load_options({"scenario": "south"}),
                                     Rng(f"three-{n}")))
        last: list[str] = []
        for step in range(5_000):
            if GAME.result(state) is not None:
                break
            (seat, *_) = sorted(GAME.pending(state))
            legal = GAME.legal_commands(state, seat)
            command = legal[Rng(f"three-bot-{n}", step).below(len(legal))]
            events = GAME.decide(state, command, seat, Rng(f"three-game-{n}", step))
            for event in events:
                if event.type == "acted_with" and not event.data.get("more"):
                    assert not set(event.data["nations"]) & set(last), (step, command)
                    last = event.data["nations"]
            state = GAME.fold(events, state)
        assert GAME.result(state) is not None
