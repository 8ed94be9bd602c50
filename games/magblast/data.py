"""Mag Blast's components, loaded once from cards.json beside this file (magblast.md §1-§4).

Every physical card has an id: fleet ships are ``ship-01`` .. ``ship-54`` (magblast.md §3b keys
ships by id, since AQ names two ships "Bazull"); action cards are ``<kind>-<n>`` (``laser_blast-1``
.. ``laser_blast-18``), copy n carrying the resource icons of the n-th row of §4a; a command ship's
id is its race (``kalgon``, ``glorp``, ...).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

_RAW = json.loads((Path(__file__).with_name("cards.json")).read_text(encoding="utf-8"))


@dataclass(frozen=True)
class CommandShip:
    """One of the 10 command ships: ``uses`` is 3 for an ultimate weapon, 0 for an ongoing power."""

    id: str
    name: str
    korean: str
    uses: int
    when: str
    text: str


@dataclass(frozen=True)
class Ship:
    """One of the 54 fleet ships."""

    id: str
    name: str
    cls: str
    speed: int
    hull: int
    turrets: tuple[str, ...]


@dataclass(frozen=True)
class Action:
    """One physical action card."""

    id: str
    kind: str
    name: str
    category: str  # blast | squadron | direct_hit | dh_effect | misc
    damage: int
    turret: str | None
    icons: tuple[str, ...]


CONSTANTS = MappingProxyType(dict(_RAW["constants"]))
COMMAND_HULL: int = CONSTANTS["command_hull"]
ZONE_LIMIT: int = CONSTANTS["zone_limit"]
HAND_SIZE: int = CONSTANTS["hand_size"]
POWER_USES: int = CONSTANTS["power_uses"]
ZONES: tuple[str, ...] = tuple(z["id"] for z in _RAW["zones"])
ADJACENT = MappingProxyType({z["id"]: tuple(z["adjacent"]) for z in _RAW["zones"]})
ZONE_COLOUR = MappingProxyType({z["id"]: z["colour"] for z in _RAW["zones"]})
ZONE_NAME = MappingProxyType({z["id"]: z["name"] for z in _RAW["zones"]})  # "n" -> "front"
RESOURCES: tuple[str, ...] = ("star", "circle", "diamond")

COMMAND_SHIPS = MappingProxyType({r["id"]: CommandShip(**r) for r in _RAW["command_ships"]})
RACES: tuple[str, ...] = tuple(COMMAND_SHIPS)
SHIPS = MappingProxyType({
    s["id"]: Ship(s["id"], s["name"], s["class"], s["speed"], s["hull"], tuple(s["turrets"]))
    for s in _RAW["ships"]})
SHIP_IDS: tuple[str, ...] = tuple(SHIPS)
KINDS = MappingProxyType({a["kind"]: a for a in _RAW["actions"]})
ACTIONS = MappingProxyType({
    f"{a['kind']}-{n}": Action(f"{a['kind']}-{n}", a["kind"], a["name"], a["category"],
                               a["damage"], a["turret"], tuple(icons))
    for a in _RAW["actions"] for n, icons in enumerate(a["copies"], start=1)})
ACTION_IDS: tuple[str, ...] = tuple(ACTIONS)
BLAST_KINDS = ("laser_blast", "beam_blast", "mag_blast")
SQUADRON_KINDS = ("fighter", "bomber")
DH_EFFECTS = ("catastrophic_damage", "boarding_party", "concussive_blast", "bridge_hit")
ATTACK_MISC = ("reinforcements", "strategic_allocation", "spacedock", "ramming_speed",
               "asteroids", "minefield")


def kind(card: str) -> str:
    """The kind of an action card id ("beam_blast-3" -> "beam_blast")."""
    return card.rsplit("-", 1)[0]


def hull(ship: str) -> int:
    """The hull of a fleet ship or (for a race id) of a command ship."""
    return SHIPS[ship].hull if ship in SHIPS else COMMAND_HULL


def distance(a: str, b: str) -> int:
    """Zone steps between two zones of one fleet: 0, 1 (adjacent) or 2 (opposite)."""
    if a == b:
        return 0
    return 1 if b in ADJACENT[a] else 2
