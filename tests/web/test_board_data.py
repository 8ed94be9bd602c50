"""The boards' static data (service/web/static/boards/data/*.json) is generated from the games'
own JSON by service/web/board_data.py: it must not drift, and the War of the Ring layouts must place
every region of a scenario in a cell of its own."""

from __future__ import annotations

import json

import pytest

from games.wotr.data import REGIONS
from service.web import board_data


@pytest.mark.parametrize("game", sorted(board_data.BUILDERS))
def test_the_served_board_data_matches_the_games_json(game):
    served = (board_data.OUT / f"{game}.json").read_text(encoding="utf-8")
    assert served == board_data.render(game), (
        f"run `.venv/bin/python -m service.web.board_data {game}` and commit the file")


@pytest.mark.parametrize("scenario", ["south", "full"])
def test_every_wotr_region_of_a_scenario_has_a_place_of_its_own(scenario):
    data = json.loads(board_data.render("wotr"))
    layout = data["layout"][scenario]
    assert sorted(layout) == sorted(data["scenarios"][scenario]["regions"])
    cells = [tuple(xy) for xy in layout.values()]
    # Regions are drawn 56x58 units in cells of 60x66 (wotr.js): closer ones would overlap.
    for i, (x1, y1) in enumerate(cells):
        for x2, y2 in cells[i + 1:]:
            assert abs(x1 - x2) >= board_data.MIN_DX or abs(y1 - y2) >= board_data.MIN_DY, (
                x1, y1, x2, y2)


def test_the_full_map_layout_keeps_neighbours_close():
    layout = json.loads(board_data.render("wotr"))["layout"]["full"]
    far = [(r, a) for r in REGIONS for a in REGIONS[r].adjacent
           if max(abs(layout[r][0] - layout[a][0]), abs(layout[r][1] - layout[a][1])) > 6]
    assert len(far) <= 10, far
