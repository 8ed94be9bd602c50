"""Faker Blue's card table, health/supply table and option defaults, loaded once from cards.json.

Every number here is PROPOSED in shared/rules/fakerblue.md (the published card table is lost), so
each one is also a game option (model.FakerBlueOptions); these are only the defaults.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

_RAW = json.loads((Path(__file__).with_name("cards.json")).read_text(encoding="utf-8"))


@dataclass(frozen=True)
class Kind:
    """One of the 11 kinds of card."""

    kind: str
    name: str
    korean: str
    count: int
    value: int  # fakerblue.md decisions: the end-of-game tie-break value
    phase: str  # "use" (declarable as an attack), "defence", or "never" (the Clown)
    effect: str  # none | block | redirect | heal | steal | damage | inspect_heal
    target: str  # none | any (self allowed) | other | area (every other living player)
    amount: int
    defendable: bool  # fakerblue.md §1 / Q&A 1: only effects that hurt the target


@dataclass(frozen=True)
class Setup:
    health: int
    supply: int


@dataclass(frozen=True)
class Defaults:
    """Every game option with its default (the decisions block of fakerblue.md)."""

    beginner: bool
    liar_penalty: int
    challenger_penalty: int


KINDS: MappingProxyType[str, Kind] = MappingProxyType(
    {row["kind"]: Kind(**row) for row in _RAW["kinds"]})
ATTACK_KINDS: tuple[str, ...] = tuple(k for k, v in KINDS.items() if v.phase == "use")
DEFENCE_KINDS: tuple[str, ...] = tuple(k for k, v in KINDS.items() if v.phase == "defence")
SHIELD, WIZARD = "shield_bearer", "wizard"
SETUPS: MappingProxyType[str, MappingProxyType[int, Setup]] = MappingProxyType({
    mode: MappingProxyType({int(n): Setup(**row) for n, row in table.items()})
    for mode, table in _RAW["setups"].items()})
HEALTH_TOKENS: int = _RAW["health_tokens"]
DEFAULTS = Defaults(**_RAW["options"])
COUNTS = MappingProxyType({k: v.count for k, v in KINDS.items()})
VALUES = MappingProxyType({k: v.value for k, v in KINDS.items()})
AMOUNTS = MappingProxyType({k: v.amount for k, v in KINDS.items() if v.phase == "use"})


def kind_of(card: str) -> str:
    """The kind of a physical card id ("assassin-2" -> "assassin")."""
    return card.rsplit("-", 1)[0]


def card_ids(counts: dict[str, int]) -> list[str]:
    """The physical cards of a deck with these counts, in table order ("clown-1", ...)."""
    return [f"{kind}-{i}" for kind in KINDS for i in range(1, counts.get(kind, 0) + 1)]
