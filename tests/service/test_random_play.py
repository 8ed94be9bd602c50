"""Random legal play through the real store (issue 2, item 7): never raises, conserves all 78
Loot cards at every version, and the snapshot-based projection equals a rebuild from event 1."""

from __future__ import annotations

import pytest

from events.projector import Projector, empty, with_batch_ends
from events.projector import apply as apply_event
from games import REGISTRY
from games.loot.data import CARDS
from tests.playing import play_randomly

pytestmark = pytest.mark.skipif("loot" not in REGISTRY, reason="no loot")

ALL_CARDS = sorted(CARDS)


def loot_cards(state) -> list[str]:
    """Every card in the state, wherever it lies."""
    cards = list(state["deck"]) + list(state["discard"])
    for pile in (*state["hands"], *state["won"]):
        cards += pile
    for ship in state["ships"]:
        cards += [ship["m"], *(card for _, card in ship["plays"])]
    return sorted(cards)


@pytest.mark.parametrize("seats", [2, 3, 5, 8])
@pytest.mark.parametrize("seed", range(3))
def test_random_loot_games_conserve_cards_and_snapshots_equal_rebuilds(api, seats, seed):
    service = api.service
    bots = [{"kind": "bot", "level": "random"}] * seats
    game_id = service.create_game("p_host", "loot", {}, bots)
    play_randomly(service, game_id, seed)
    events = service.store.read(game_id)
    projection = empty()
    for event, batch_end in with_batch_ends(events):
        apply_event(projection, event, batch_end=batch_end)
        if projection.state:
            assert loot_cards(projection.state) == ALL_CARDS, f"version {event.version}"
    snapshotted = Projector(service.store, snapshot_every=7).load(game_id)
    assert service.store.load_snapshot(game_id) is not None
    assert Projector(service.store, snapshot_every=7).load(game_id).data == snapshotted.data
    assert service.projector.rebuild(game_id).data == snapshotted.data == projection.data
