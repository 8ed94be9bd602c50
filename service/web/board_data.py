"""The public card and map data the web boards draw with, written as static JSON files.

The boards (``service/web/static/boards/*.js``) name ships, cards and regions and draw the War of
the Ring map; the API's views carry only ids. These files hold nothing hidden: the printed cards
and the printed map, as in ``games/*/cards.json`` and ``games/wotr/map.json``, which stay the one
source (``python -m service.web.board_data`` rewrites the files; a test fails when they drift).

The map has no coordinates, so the boards get a schematic layout: the 30 regions of the ``south``
scenario on a hand-made grid (``board_layout.json``, rough geography: west to east, north to
south), and the 105 regions of ``full`` laid out from the adjacency by a deterministic spring
layout around that grid, snapped to a grid so that no two regions overlap.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

from games.magblast import data as mb
from games.wotr import data as wd

HERE = Path(__file__).parent
OUT = HERE / "static" / "boards" / "data"
LAYOUT = HERE / "board_layout.json"
# The least distance, in cells, between two regions' centres on one row or one column: wotr.js
# draws a region 56x58 units in a cell of 60x66.
MIN_DX, MIN_DY = 56 / 60, 58 / 66
STEPS = 300  # spring layout steps for the full map


def magblast() -> dict[str, Any]:
    """Ships, command ships, action cards (one entry per kind) and zones, keyed by id."""
    raw = json.loads((Path(mb.__file__).parent / "cards.json").read_text())
    return {
        "constants": raw["constants"],
        "zones": raw["zones"],
        "command_ships": {c["id"]: {k: c[k] for k in ("name", "uses", "when", "text")}
                          for c in raw["command_ships"]},
        "classes": {c["class"]: c["name"] for c in raw["classes"]},
        "ships": {s["id"]: {k: s[k] for k in ("name", "class", "speed", "hull", "turrets")}
                  for s in raw["ships"]},
        "kinds": {a["kind"]: {k: a[k] for k in ("name", "category", "damage", "turret", "timing")}
                  for a in raw["actions"]},
        "icons": {a.id: list(a.icons) for a in mb.ACTIONS.values() if a.icons},
    }


def _full_layout(grid: dict[str, list[float]]) -> dict[str, list[int]]:
    """Grid cells for all 105 regions: the south grid fixed (shifted into the map's south-east),
    the others placed by a spring layout (neighbours pull, everyone pushes), then snapped to the
    nearest free cell. Deterministic: no randomness, a fixed number of steps."""
    regions = sorted(wd.REGIONS)
    adjacent = {r: wd.REGIONS[r].adjacent for r in regions}
    ox, oy = 8.0, 10.0  # the south grid's place in the whole map (Eriador lies north-west)
    fixed = {r: (x + ox, y + oy) for r, (x, y) in grid.items()}
    pos: dict[str, tuple[float, float]] = dict(fixed)
    order = [r for r in regions if r not in fixed]
    # Seed outward from the south, breadth first: each region a step beyond the average of its
    # placed neighbours, away from the south's centre, so the rest of the map keeps its side
    # (Rhovanion north, Eriador north-west, Rhûn east, Harad south).
    centre = (sum(x for x, _ in fixed.values()) / len(fixed),
              sum(y for _, y in fixed.values()) / len(fixed))
    pending = list(order)
    while pending:
        ready = [r for r in pending if any(a in pos for a in adjacent[r])]
        for r in ready:
            near = [pos[a] for a in adjacent[r] if a in pos]
            nx = sum(x for x, _ in near) / len(near)
            ny = sum(y for _, y in near) / len(near)
            dx, dy = nx - centre[0], ny - centre[1]
            d = math.hypot(dx, dy) or 1.0
            pos[r] = (nx + dx / d * 1.1, ny + dy / d * 1.1)
        pending = [r for r in pending if r not in pos]
    for step in range(STEPS):
        temp = 0.25 * (1 - step / STEPS) + 0.01
        force = {r: [0.0, 0.0] for r in order}
        for r in order:
            x, y = pos[r]
            for o in regions:
                if o == r:
                    continue
                dx, dy = x - pos[o][0], y - pos[o][1]
                d2 = dx * dx + dy * dy + 0.01
                if d2 < 4:
                    force[r][0] += dx / d2
                    force[r][1] += dy / d2
            for o in adjacent[r]:
                dx, dy = pos[o][0] - x, pos[o][1] - y
                d = math.hypot(dx, dy) + 1e-9
                pull = (d - 1.0) * 0.6
                force[r][0] += dx / d * pull
                force[r][1] += dy / d * pull
        for r in order:
            fx, fy = force[r]
            n = math.hypot(fx, fy) + 1e-9
            move = min(n, temp)
            pos[r] = (pos[r][0] + fx / n * move, pos[r][1] + fy / n * move)
    placed = list(fixed.values())

    def free(cell: tuple[int, int]) -> bool:
        # A node is 56x58 units in a 60x66 cell (wotr.js): keep them from overlapping.
        return all(abs(cell[0] - px) >= MIN_DX or abs(cell[1] - py) >= MIN_DY
                   for px, py in placed)

    cells: dict[str, list[int]] = {}
    # Snap the most connected first, each to the nearest free cell.
    for r in sorted(order, key=lambda r: (-len(adjacent[r]), r)):
        x, y = pos[r]
        best = min(((cx, cy) for cx in range(math.floor(x) - 4, math.floor(x) + 6)
                    for cy in range(math.floor(y) - 4, math.floor(y) + 6) if free((cx, cy))),
                   key=lambda c: ((c[0] - x) ** 2 + (c[1] - y) ** 2, c))
        placed.append(best)
        cells[r] = list(best)
    out = {r: [round(x, 2), round(y, 2)] for r, (x, y) in fixed.items()}
    out.update(cells)
    minx = min(x for x, _ in out.values())
    miny = min(y for _, y in out.values())
    return {r: [round(x - minx, 2), round(y - miny, 2)] for r, (x, y) in sorted(out.items())}


def wotr() -> dict[str, Any]:
    """Regions (nation, settlement, VP, neighbours), scenarios, nations' sides, the cards and a
    schematic layout per scenario (grid units)."""
    raw = json.loads((Path(wd.__file__).parent / "map.json").read_text())
    grid = json.loads(LAYOUT.read_text())["wotr_south"]
    south = set(raw["scenarios"]["south"]["regions"])
    if set(grid) != south:
        raise ValueError(f"board_layout.json's south grid differs from the scenario: "
                         f"{sorted(set(grid) ^ south)}")
    return {
        "nations": raw["nations"],
        "scenarios": {name: {"vp": s["vp"], "regions": sorted(wd.REGIONS) if s["regions"] == "all"
                             else s["regions"]} for name, s in raw["scenarios"].items()},
        "regions": {name: {"nation": r["nation"], "settlement": r["settlement"], "vp": r["vp"],
                           "adjacent": r["adjacent"]} for name, r in raw["regions"].items()},
        "cards": {c.id: {"side": c.side, "event": c.event, "combat": c.title,
                         "initiative": c.initiative} for c in wd.CARDS.values()},
        "layout": {"south": {r: grid[r] for r in sorted(grid)}, "full": _full_layout(grid)},
    }


BUILDERS = {"magblast": magblast, "wotr": wotr}


def render(game: str) -> str:
    """The file's text for ``game`` (stable: sorted keys, one line per top-level entry)."""
    return json.dumps(BUILDERS[game](), ensure_ascii=False, sort_keys=True, indent=1) + "\n"


def main(argv: list[str] | None = None) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for game in argv or sorted(BUILDERS):
        (OUT / f"{game}.json").write_text(render(game), encoding="utf-8")
        print(f"wrote {OUT / f'{game}.json'}")


if __name__ == "__main__":
    main(sys.argv[1:])
