"""Mag Blast played at random (issue 10, requirement 3): 2-8 players under every variant never
raise, conserve the 54 ships and 101 action cards after every event, offer only legal commands
that ``decide`` accepts, and never show a seat what it may not see. The default run plays
``GAMES`` games; ``MAGBLAST_GAMES=1000`` plays the full thousand."""

from __future__ import annotations

import copy
import json
import os

import pytest

from games.core import AUDITOR, SPECTATOR, Rng, Seen, random_bot
from games.magblast import GAME
from games.magblast.bot import basic_bot
from games.magblast.data import ZONE_LIMIT
from games.magblast.table import zone_counts
from tests.games.magblast_table import conserved

GAMES = int(os.environ.get("MAGBLAST_GAMES", "60"))
VARIANTS = [
    {},
    {"attack_mode": "neighbours"},
    {"no_mercy": True},
    {"sound_effects": "off"},
    {"sound_effects": "strict"},
    {"attack_mode": "neighbours", "no_mercy": True, "sound_effects": "strict"},
]
MAX_STEPS = 20_000


def playout(seats: int, seed: int, options: dict, levels=None, check=None):
    """Play to the end; ``check(state, seat, legal)`` runs before each command."""
    events = GAME.setup(seats, GAME.load_options(options), Rng(f"setup-{seed}"))
    state = GAME.fold(events)
    bots = [GAME.bot(level) for level in (levels or ["random"] * seats)]
    for step in range(MAX_STEPS):
        if GAME.result(state) is not None:
            return state, events
        pending = GAME.pending(state)
        seat = sorted(pending)[Rng(f"pick-{seed}", step).below(len(pending))]
        legal = GAME.legal_commands(state, seat)
        if check:
            check(state, seat, legal, step)
        command = bots[seat](GAME.seen(state, seat), Rng(f"bot-{seed}", step))
        new = GAME.decide(state, command, seat, Rng(f"game-{seed}", step))
        for event in new:
            state = GAME.evolve(state, event)
            assert conserved(state), f"{event.type} lost or doubled a card"
        events.extend(new)
    pytest.fail(f"no end within {MAX_STEPS} steps")


@pytest.mark.parametrize("game", range(GAMES))
def test_random_games_never_raise_and_conserve_every_card(game):
    seats = 2 + game % 7
    state, events = playout(seats, game, VARIANTS[game % len(VARIANTS)])
    assert GAME.fold(events) == state
    assert len(state["result"]["winners"]) == 1
    assert json.loads(json.dumps(state)) == state


def _every_legal_command_is_accepted(state, seat, legal, step):
    if step % 7:
        return
    before = copy.deepcopy(state)
    for command in legal:
        GAME.decide(state, command, seat, Rng("legal", step))
    assert state == before
    assert GAME.default_command(state, seat) in legal or GAME.decide(
        state, GAME.default_command(state, seat), seat, Rng("default"))


@pytest.mark.parametrize("game", range(6))
def test_the_offered_legal_commands_are_all_accepted_on_sampled_states(game):
    playout(2 + game, 100 + game, VARIANTS[game], check=_every_legal_command_is_accepted)


def _nobody_sees_a_secret(state, seat, legal, step):
    if step % 5:
        return
    for viewer in [*range(state["seats"]), SPECTATOR]:
        secret = GAME.secrets(state, viewer)
        text = json.dumps(GAME.view(state, viewer))
        leaked = [s for s in secret if f'"{s}"' in text]
        assert not leaked, f"{viewer} sees {leaked[:3]}"
    assert GAME.view(state, AUDITOR)["hands"] == state["hands"]


@pytest.mark.parametrize("game", range(3))
def test_views_never_show_a_secret(game):
    playout(3 + game, 200 + game, VARIANTS[game], check=_nobody_sees_a_secret)


def test_redacted_events_show_no_secret_of_the_moment():
    state_events = []
    events = GAME.setup(4, GAME.load_options({}), Rng("redact"))
    state = GAME.fold(events)
    for step in range(3000):
        if GAME.result(state) is not None:
            break
        seat = sorted(GAME.pending(state))[0]
        legal = GAME.legal_commands(state, seat)
        command = random_bot(Seen(seat, {}, legal), Rng("r", step))
        for event in GAME.decide(state, command, seat, Rng("g", step)):
            before = {v: GAME.secrets(state, v) for v in range(4)}
            state = GAME.evolve(state, event)
            state_events.append((event, before, {v: GAME.secrets(state, v) for v in range(4)}))
    for event, before, after in state_events:
        for viewer in range(4):
            text = json.dumps(GAME.redact(event, viewer).to_dict())
            leaked = [s for s in before[viewer] & after[viewer] if f'"{s}"' in text]
            assert not leaked, f"{event.type} shows seat {viewer} {leaked[:3]}"


@pytest.mark.parametrize("seats", [2, 5])
def test_basic_bots_finish_games(seats):
    state, _ = playout(seats, 300 + seats, {}, levels=["basic"] * seats)
    assert state["result"]["winners"]


def test_basic_beats_random_most_of_the_time():
    wins = 0
    for game in range(10):
        levels = ["basic", "random"] if game % 2 == 0 else ["random", "basic"]
        state, _ = playout(2, 400 + game, {}, levels=levels)
        wins += levels[state["result"]["winners"][0]] == "basic"
    assert wins >= 7


def test_the_basic_bot_picks_a_legal_command():
    state = GAME.fold(GAME.setup(3, GAME.load_options({}), Rng("b")))
    legal = GAME.legal_commands(state, 0)
    assert basic_bot(GAME.seen(state, 0), Rng("x")) in legal


NO_MERCY_GAMES = int(os.environ.get("MAGBLAST_NO_MERCY_GAMES", "40"))


@pytest.mark.parametrize("game", range(NO_MERCY_GAMES))
def test_no_mercy_never_ends_a_maneuver_with_a_zone_over_three_ships(game):
    """Issue 24 point 10, KR: "이동이 다 끝난 뒤에는 전투함이 한 구역당 3척까지만 놓여 있어야
    해요" (once the moves are done, a zone holds 3 ships at most), with No Mercy on: however a
    maneuver ends (the attack phase, or the turn ended by agreeing to No Mercy), the maneuvering
    fleet has at most 3 ships a zone. ``MAGBLAST_NO_MERCY_GAMES=1000`` plays the thousand."""
    last: dict = {}  # phase, turn and No Mercy before the last command (evolve works in place)
    ended = []

    def check(state, seat, legal, step):
        if last.get("phase") == "maneuver" and (
                state["phase"] != "maneuver" or state["turn"] != last["turn"]):
            counts = zone_counts(state, last["turn"])
            assert max(counts.values(), default=0) <= ZONE_LIMIT, (step, last["turn"], counts)
            ended.append(state["no_mercy"] and not last["no_mercy"])
        last.update(phase=state["phase"], turn=state["turn"], no_mercy=state["no_mercy"])

    playout(2 + game % 2, 1000 + game, {"no_mercy": True}, check=check)
    assert ended  # maneuvers ended under the check
