"""War of the Ring map, figure and card data (map.json and cards.json beside this file) and the
game options with their defaults.

map.json is transcribed from shared/rules/wotr.md: §13.2 (105 regions: nation, settlement and VP,
starting army, adjacency; impassable borders are missing edges; the table holds 232 undirected
edges, symmetric), §13.3 (reinforcement pools and figure totals per Nation), §9 (political track)
and §14 (the 30 regions of ``south``). Figures are counted per Nation as ``[regulars, elites,
leaders]``; for Sauron the third number counts Nazgûl (wotr.md §13.3: "L-or-N").
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from dataclasses import fields as dc_fields
from pathlib import Path
from typing import Any

from marshmallow import fields, validate

from games.core import ClockOptions

FP, SH = "fp", "sh"
SIDES = (FP, SH)  # seat 0 plays the Free Peoples, seat 1 the Shadow
REGULAR, ELITE, LEADER = 0, 1, 2
KINDS = ("regular", "elite", "leader")

STRONGHOLD, CITY, TOWN, FORTIFICATION = "stronghold", "city", "town", "fortification"
STACK_LIMIT = 10  # wotr.md §1
SIEGE_LIMIT = 5  # wotr.md §7
HAND_LIMIT = 6  # wotr.md §12
MAX_DICE = 5  # wotr.md §5.2

# wotr.md §2: the six faces of each side's action dice. "muster_army" is the Muster/Army face.
FACES = {FP: ("character", "character", "muster", "event", "muster_army", "will"),
         SH: ("character", "army", "muster", "event", "muster_army", "eye")}
DICE = {FP: 4, SH: 7}  # wotr.md §2: dice at start (no Companions or Minions enter play)


@dataclass(frozen=True)
class Region:
    """One map region: its Nation (None = neutral), settlement, VP and neighbours."""

    name: str
    nation: str | None
    settlement: str | None
    vp: int
    start: tuple[str, tuple[int, int, int]] | None
    adjacent: tuple[str, ...]


@dataclass(frozen=True)
class CombatCard:
    """One physical Strategy card, used only for its combat half (wotr.md §12)."""

    id: str
    side: str
    combat: str  # the combat effect key, e.g. "shield_wall"
    title: str  # the combat title
    event: str  # the event title printed on the card (its identity)
    initiative: int
    requires: str | None


def _slug(text: str) -> str:
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "_", plain.lower()).strip("_")


def _load_map() -> dict[str, Any]:
    raw = json.loads(Path(__file__).with_name("map.json").read_text(encoding="utf-8"))
    regions = {}
    for name, r in raw["regions"].items():
        start = (r["start"]["nation"], tuple(r["start"]["figures"])) if r["start"] else None
        regions[name] = Region(name, r["nation"], r["settlement"], r["vp"], start,
                               tuple(r["adjacent"]))
    raw["regions"] = regions
    return raw


def _load_cards() -> tuple[CombatCard, ...]:
    raw = json.loads(Path(__file__).with_name("cards.json").read_text(encoding="utf-8"))
    return tuple(CombatCard(_slug(event), c["side"], key, c["title"], event, c["initiative"],
                            c["requires"])
                 for key, c in raw["combat"].items() for event in c["events"])


_MAP = _load_map()
REGIONS: dict[str, Region] = _MAP["regions"]
NATION_SIDE: dict[str, str] = dict(_MAP["nations"])
NATIONS: tuple[str, ...] = tuple(NATION_SIDE)
POLITICS: dict[str, tuple[int, bool]] = {n: (s, a) for n, (s, a) in _MAP["politics"].items()}
REINFORCEMENTS: dict[str, tuple[int, int, int]] = {
    n: tuple(v) for n, v in _MAP["reinforcements"].items()}
TOTALS: dict[str, tuple[int, int, int]] = {n: tuple(v) for n, v in _MAP["totals"].items()}
SCENARIOS: dict[str, dict[str, Any]] = {
    name: {"vp": dict(s["vp"]),
           "regions": tuple(REGIONS) if s["regions"] == "all" else tuple(s["regions"])}
    for name, s in _MAP["scenarios"].items()}

CARDS: dict[str, CombatCard] = {c.id: c for c in _load_cards()}
DECKS: dict[str, tuple[str, ...]] = {
    side: tuple(c.id for c in CARDS.values() if c.side == side) for side in SIDES}


def side_of_nation(nation: str) -> str:
    return NATION_SIDE[nation]


@dataclass(frozen=True)
class WotrOptions:
    """Every option with its default (wotr.md decisions block; ``max_rounds`` is PROPOSED)."""

    scenario: str = "full"
    # PROPOSED (the Fellowship is out of the game): the Ring's clock. If no military victory
    # comes by the end of this round, the Fellowship is deemed to have reached Mount Doom and
    # the Free Peoples win; without a bound a war of attrition could run forever.
    max_rounds: int = 15


DEFAULTS = WotrOptions()
OPTION_NAMES = tuple(f.name for f in dc_fields(WotrOptions))


class WotrOptionsSchema(ClockOptions):
    """The options on the wire: the clock options plus ``WotrOptions``."""

    scenario = fields.String(load_default=DEFAULTS.scenario, validate=validate.OneOf(SCENARIOS))
    max_rounds = fields.Integer(load_default=DEFAULTS.max_rounds,
                                validate=validate.Range(min=1, max=60))
