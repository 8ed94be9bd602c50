"""Mag Blast's cards.json is the spec's tables, row for row (docs/rules/magblast.md §2, §3b, §4a):
each table is read from the spec itself and compared with the loaded data."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from games.magblast.data import ACTIONS, COMMAND_SHIPS, KINDS, SHIPS, kind

SPEC = (Path(__file__).parents[2] / "docs" / "rules" / "magblast.md").read_text(encoding="utf-8")
TURRETS = {"L": "laser", "B": "beam", "M": "mag"}
ICONS = {"S": "star", "C": "circle", "D": "diamond"}


def _rows(section: str) -> list[list[str]]:
    start = SPEC.index(section)
    end = SPEC.index("\n#", start + len(section))
    return [[cell.strip() for cell in line.strip().strip("|").split("|")]
            for line in SPEC[start:end].splitlines() if line.startswith("|")]


def test_every_fleet_ship_is_the_spec_row():
    rows = [r for r in _rows("### 3b.") if r[0].isdigit()]
    assert len(rows) == 54
    for number, name, cls, speed, hull, turrets in rows:
        ship = SHIPS[f"ship-{int(number):02d}"]
        assert (ship.name, ship.cls, ship.speed, ship.hull) == (
            name, cls.lower(), int(speed), int(hull)), number
        assert ship.turrets == tuple(TURRETS[t] for t in turrets)


def test_every_action_card_kind_is_the_spec_row():
    rows = [r for r in _rows("### 4a.") if r[3].strip("*").isdigit() and r[0] != "**Total**"]
    assert len(rows) == 18
    for name, _korean, _category, count, damage, plain, variants, _timing in rows:
        kind_ = next(k for k, v in KINDS.items() if v["name"] == name)
        copies = [a.icons for a in ACTIONS.values() if kind(a.id) == kind_]
        assert len(copies) == int(count.strip("*")), name
        assert copies.count(()) == int(plain), name
        expected = sorted(tuple(ICONS[c] for c in v.strip()) for v in variants.split(",")
                          if v.strip() and v.strip() != "—")
        assert sorted(c for c in copies if c) == expected, name
        if damage.strip("*").isdigit() and kind_ not in ("fighter", "bomber"):
            assert KINDS[kind_]["damage"] == int(damage.strip("*")), name


def test_every_command_ship_is_the_spec_row():
    rows = [r for r in _rows("## 2. Command ships") if r[0].isdigit()]
    assert len(rows) == 10
    for row in rows:
        ship = next(c for c in COMMAND_SHIPS.values() if c.name == row[1])
        assert ship.uses == (3 if row[3].startswith("**3") else 0), row[1]


def test_the_classes_have_the_spec_hull_spreads():
    spread = {cls: Counter(s.hull for s in SHIPS.values() if s.cls == cls)
              for cls in ("scout", "cruiser", "carrier", "dreadnought")}
    assert spread == {"scout": {1: 1, 2: 2, 3: 7, 4: 2}, "cruiser": {5: 5, 6: 5, 7: 2},
                      "carrier": {7: 2, 8: 4, 9: 2}, "dreadnought": {9: 1, 10: 2, 11: 2, 12: 1}}
    assert re.search(r"\| \*\*Total\*\* \| \| \*\*54\*\*", SPEC)
