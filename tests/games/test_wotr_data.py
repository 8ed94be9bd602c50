"""War of the Ring map and figure data (wotr.md §13, §14) as transcribed into map.json."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from games.wotr.data import (
    CARDS,
    DECKS,
    REGIONS,
    REINFORCEMENTS,
    SCENARIOS,
    TOTALS,
)
from games.wotr.engine import initial
from games.wotr.model import figures_total


def test_map_has_105_regions_with_symmetric_adjacency():
    assert len(REGIONS) == 105
    for name, region in REGIONS.items():
        for other in region.adjacent:
            assert name in REGIONS[other].adjacent, (name, other)


def test_settlement_counts_match_spec_13_1():
    kinds = Counter(r.settlement for r in REGIONS.values() if r.settlement)
    assert kinds == {"stronghold": 16, "city": 6, "town": 14, "fortification": 2}
    assert {r.name for r in REGIONS.values() if r.settlement == "fortification"} == {
        "Osgiliath", "Fords of Isen"}


def test_vp_at_stake_is_20_for_free_peoples_and_18_for_shadow():
    from games.wotr.data import NATION_SIDE
    at_stake = Counter()
    for r in REGIONS.values():
        if r.vp:
            at_stake[NATION_SIDE[r.nation]] += r.vp
    assert at_stake == {"fp": 20, "sh": 18}


def test_start_armies_and_reinforcements_add_up_to_the_figure_totals():
    state = initial({"scenario": "full", "vp": {}, "max_rounds": 1, "decks": DECKS})
    assert figures_total(state) == {n: list(t) for n, t in TOTALS.items()}
    assert REINFORCEMENTS["elves"] == (2, 4, 0)  # §13.3: Elves have no Leaders in reserve


def test_druadan_forest_is_gondor_and_osgiliath_holds_gondor_regulars():
    assert REGIONS["Druadan Forest"].nation == "gondor"
    assert REGIONS["Osgiliath"].nation is None
    assert REGIONS["Osgiliath"].start == ("gondor", (2, 0, 0))


def test_south_scenario_is_30_regions_with_its_start_totals():
    state = initial({"scenario": "south", "vp": {}, "max_rounds": 1, "decks": DECKS})
    assert len(SCENARIOS["south"]["regions"]) == 30
    side_totals = {"fp": [0, 0, 0], "sh": [0, 0, 0]}
    for army in state["armies"].values():
        for nation, f in army.items():
            side = "fp" if nation in ("rohan", "gondor") else "sh"
            side_totals[side] = [a + b for a, b in zip(side_totals[side], f, strict=True)]
    assert side_totals == {"fp": [13, 2, 2], "sh": [29, 3, 3]}  # §14


def test_south_cut_off_neighbours_are_impassable():
    from games.wotr.engine import neighbours
    state = initial({"scenario": "south", "vp": {}, "max_rounds": 1, "decks": DECKS})
    assert neighbours(state, "Dol Amroth") == ["Lamedon"]
    assert "Erech" not in neighbours(state, "Lamedon")
    assert neighbours(state, "Near Harad") == ["East Harondor", "Umbar", "West Harondor"]


def test_each_side_has_a_24_card_strategy_deck_with_unique_ids():
    assert len(DECKS["fp"]) == 24 and len(DECKS["sh"]) == 24
    assert len(CARDS) == 48
    assert Counter(CARDS[c].combat for c in DECKS["fp"])["shield_wall"] == 4


def test_the_catalog_lists_wotr_with_its_scenarios_and_bot_levels():
    from service.app.catalog import catalog
    entry = next(g for g in catalog() if g["name"] == "wotr")
    assert (entry["min_seats"], entry["max_seats"]) == (2, 4)  # two seats a side (§16)
    scenario = entry["options"]["properties"]["scenario"]
    assert scenario["enum"] == ["full", "south"] and scenario["default"] == "full"
    assert entry["bot_levels"] == ["random", "basic", "expert"]
    assert {"move", "attack", "muster", "combat_card", "take_hit", "retreat"} <= set(
        entry["commands"])


def test_the_spec_states_the_edge_count_of_the_table_it_transcribes():
    """Issue 24 point 9: wotr.md §0 said 234 edges; the §13.2 table (map.json) holds 232."""
    spec = (Path(__file__).parents[2] / "docs/rules/wotr.md").read_text()
    edges = {frozenset((name, other)) for name, r in REGIONS.items() for other in r.adjacent}
    stated = {int(n) for n in re.findall(r"(\d+) undirected edges", spec)}
    assert stated == {len(edges)} == {232}
