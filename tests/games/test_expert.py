"""The ``expert`` level (games/expert.py, issue 12): honest, deterministic, and legal."""

from __future__ import annotations

import json

import pytest

from games import get_game
from games.core import Event, Rng
from games.expert import PRUNE_AFTER, Expert, _Race

EXPERT_GAMES = ["loot", "maskmen", "faker_blue", "magblast", "wotr"]


def _midgame(game, seed: str, steps: int):
    """A 2-player game played by ``basic`` bots for ``steps`` decisions: its log and state."""
    log = game.setup(2, game.load_options({}), Rng(seed, 0))
    state = game.fold(log)
    basic = game.bot("basic")
    for step in range(steps):
        pending = sorted(game.pending(state))
        if not pending:
            break
        seat = pending[0]
        command = basic(game.seen(state, seat, log), Rng(f"{seed}:bot", step))
        events = game.decide(state, command, seat, Rng(seed, step + 1))
        state = game.fold(events, state)
        log += events
    return log, state


def _swapped(log: list[Event], a: str, b: str) -> list[Event]:
    """The same log with card ids ``a`` and ``b`` exchanged everywhere."""
    def swap(text: str) -> str:
        return (text.replace(f'"{a}"', '"\0"').replace(f'"{b}"', f'"{a}"')
                .replace('"\0"', f'"{b}"'))
    return [Event(e.type, json.loads(swap(json.dumps(e.data)))) for e in log]


def _hidden_twin(game, log, state, seat):
    """Another true state the seat cannot tell apart: two of the cards hidden from it (of
    different kinds) exchanged in the whole log, chosen so its view and redacted log match."""
    hidden = sorted(game.secrets(state, seat))
    for i, a in enumerate(hidden):
        for b in hidden[i + 1:]:
            if a.rsplit("-", 1)[0] == b.rsplit("-", 1)[0]:
                continue  # two copies of one kind would change nothing that matters
            twin_log = _swapped(log, a, b)
            twin = game.fold(twin_log)
            if twin != state and game.seen(twin, seat, twin_log) == game.seen(state, seat, log):
                return twin_log, twin
    pytest.fail("no pair of hidden cards could be exchanged unseen")


@pytest.mark.parametrize("game_name", EXPERT_GAMES)
def test_the_expert_decides_the_same_when_only_hidden_cards_differ(game_name):
    game = get_game(game_name)
    for seed in ("honest-1", "honest-2"):
        log, state = _midgame(game, seed, 9)
        seat = min(game.pending(state))
        twin_log, twin = _hidden_twin(game, log, state, seat)
        assert twin != state
        expert = Expert(game)
        seen, seen_twin = game.seen(state, seat, log, 40), game.seen(twin, seat, twin_log, 40)
        chosen = expert(seen, Rng("same"))
        assert expert(seen_twin, Rng("same")) == chosen
        assert chosen in seen.legal


@pytest.mark.parametrize("game_name", EXPERT_GAMES)
def test_the_expert_is_offered_and_plays_a_legal_command(game_name):
    game = get_game(game_name)
    assert "expert" in game.bot_levels
    log, state = _midgame(game, "legal", 5)
    seat = min(game.pending(state))
    seen = game.seen(state, seat, log, 20)
    assert game.bot("expert")(seen, Rng("e")) in seen.legal


@pytest.mark.parametrize("game_name", EXPERT_GAMES)
def test_a_sampled_world_keeps_everything_the_seat_sees(game_name):
    # The hook's worlds are in the seat's information set: the seat's view of a world is its
    # view of the real game (the hidden cards aside, nothing it can see differs).
    game = get_game(game_name)
    log, state = _midgame(game, "worlds", 11)
    seat = min(game.pending(state))
    seen = game.seen(state, seat, log)
    for index in range(5):
        world = game.sample_state(seen, Rng("w", index))
        assert game.view(world, seat) == seen.view
        assert game.legal_commands(world, seat) == seen.legal


def test_the_budget_is_a_count_derived_from_the_think_time():
    game = get_game("faker_blue")
    log, state = _midgame(game, "budget", 3)
    seat = min(game.pending(state))
    expert = Expert(game)
    assert expert.budget(game.seen(state, seat, log, 250)) == int(250 * game.playouts_per_ms)
    assert expert.budget(game.seen(state, seat, log, 1)) >= 1


@pytest.mark.parametrize("game_name", EXPERT_GAMES)
def test_a_copied_world_can_be_played_on_without_changing_the_original(game_name):
    game = get_game(game_name)
    _log, state = _midgame(game, "copy", 7)
    before = json.dumps(state, sort_keys=True)
    copy = game.copy_state(state)
    basic = game.bot("basic")
    for step in range(40):
        pending = sorted(game.pending(copy))
        if not pending:
            break
        command = basic(game.seen(copy, pending[0]), Rng("copy", step))
        copy = game.fold(game.decide(copy, command, pending[0], Rng("copy-d", step)), copy)
    assert json.dumps(state, sort_keys=True) == before
    assert copy != state


def test_the_race_stops_once_one_move_is_clearly_best_and_chooses_it():
    race = _Race(4)
    for world in range(PRUNE_AFTER):
        # candidate 2 always gains a lot; 1 only ever ties the favourite; 3 always loses
        race.add({0: 0.4, 1: 0.4, 2: 0.9 + world / 100, 3: 0.1})
    assert race.prune()
    assert race.active == [0, 2]
    assert race.choice() == 2


def test_the_race_keeps_the_favourite_when_no_move_beats_it_clearly():
    race = _Race(3)
    for world in range(PRUNE_AFTER):
        noise = 0.3 if world % 2 else -0.3
        race.add({0: 0.5, 1: 0.5 + noise + 0.01, 2: 0.2})
    assert not race.prune()
    assert race.active == [0, 1]
    assert race.choice() == 0


def test_the_expert_spends_no_more_playouts_than_its_budget():
    game = get_game("loot")
    log, state = _midgame(game, "spend", 6)
    seat = min(game.pending(state))
    expert = Expert(game)
    seen = game.seen(state, seat, log, 60)
    expert(seen, Rng("spend"))
    assert 0 < expert.stats["playouts"] <= expert.budget(seen)


def _cards_accounted(game_name, world) -> bool:
    if game_name == "magblast":
        from tests.games.magblast_table import conserved
        return conserved(world)
    from games.wotr.data import DECKS
    battle = world["battle"] or {"cards": {}}
    held = [c for key in ("decks", "hands", "discards") for cards in world[key].values()
            for c in cards] + [c for c in battle["cards"].values() if c]
    return sorted(held) == sorted(c for cards in DECKS.values() for c in cards)


@pytest.mark.parametrize("game_name, seats, options", [
    ("magblast", 3, {}), ("magblast", 2, {}), ("wotr", 2, {"scenario": "south"}),
    ("wotr", 3, {"scenario": "south"}), ("wotr", 4, {"scenario": "south"})])
def test_worlds_sampled_along_a_whole_game_show_each_seat_exactly_its_view(game_name, seats,
                                                                          options):
    # Every few decisions of a basic game, every seat asked gets worlds whose view, legal
    # commands and prompts are the real ones, with every card somewhere exactly once.
    game = get_game(game_name)
    log = game.setup(seats, game.load_options(options), Rng("whole", 0))
    state = game.fold(log)
    basic = game.bot("basic")
    for step in range(400):
        pending = sorted(game.pending(state))
        if not pending:
            break
        if step % 3 == 0:
            for seat in pending:
                seen = game.seen(state, seat, log)
                world = game.sample_state(seen, Rng("world", step))
                assert game.view(world, seat) == seen.view, step
                assert game.legal_commands(world, seat) == seen.legal, step
                assert game.pending(world) == game.pending(state), step
                assert _cards_accounted(game_name, world), step
        seat = pending[0]
        command = basic(game.seen(state, seat, log), Rng("bot", step))
        events = game.decide(state, command, seat, Rng("whole", step + 1))
        state = game.fold(events, state)
        log += events
    assert game.result(state) is not None


def test_the_war_of_the_ring_expert_fights_whole_battles_with_legal_choices():
    # Every battle decision (combat cards, casualties, retreats, sieges) of a whole game is the
    # expert's, on a tiny budget: its shortlist keeps the legal order basic reads battles by.
    game = get_game("wotr")
    log = game.setup(2, game.load_options({"scenario": "south"}), Rng("battles", 0))
    state = game.fold(log)
    expert, basic = game.bot("expert"), game.bot("basic")
    battles = 0
    for step in range(600):
        pending = sorted(game.pending(state))
        if not pending:
            break
        seat = pending[0]
        seen = game.seen(state, seat, log, 1)
        if state["battle"] is not None:
            battles += 1
            command = expert(seen, Rng("expert", step))
        else:
            command = basic(seen, Rng("basic", step))
        assert command in seen.legal
        events = game.decide(state, command, seat, Rng("battles", step + 1))
        state = game.fold(events, state)
        log += events
    assert battles and game.result(state) is not None
