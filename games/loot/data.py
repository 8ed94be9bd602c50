"""Loot card data (cards.json beside this file) and the game options with their defaults.

Cards are loaded once into frozen dataclasses; the rules refer to cards by id only and use the
precomputed lookup tables below (``KIND``, ``GOLD``, ``COLOUR``, ``SKULLS``) in their hot paths.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from dataclasses import fields as dc_fields
from pathlib import Path

from marshmallow import fields, validate

from games.core import ClockOptions

MERCHANT = "merchant"
PIRATE = "pirate"
CAPTAIN = "captain"
ADMIRAL = "admiral"

HAND_SIZE = 6  # loot.md §3: deal 6 cards to each player
MIN_SEATS = 2
MAX_SEATS = 8
TEAM_SEATS = (4, 6, 8)  # loot.md §9


@dataclass(frozen=True)
class Card:
    """One physical card: ``kind`` is merchant, pirate, captain or admiral."""

    id: str
    kind: str
    gold: int = 0
    colour: str | None = None
    skulls: int = 0


def _load() -> tuple[tuple[str, ...], tuple[Card, ...]]:
    raw = json.loads((Path(__file__).with_name("cards.json")).read_text(encoding="utf-8"))
    cards = tuple(Card(c["id"], c["kind"], c.get("gold", 0), c.get("colour"), c.get("skulls", 0))
                  for c in raw["cards"])
    return tuple(raw["colours"]), cards


COLOURS, DECK = _load()
CARDS: dict[str, Card] = {c.id: c for c in DECK}
DECK_IDS: tuple[str, ...] = tuple(c.id for c in DECK)
KIND: dict[str, str] = {c.id: c.kind for c in DECK}
GOLD: dict[str, int] = {c.id: c.gold for c in DECK}
COLOUR: dict[str, str | None] = {c.id: c.colour for c in DECK}
SKULLS: dict[str, int] = {c.id: c.skulls for c in DECK}
CAPTAIN_OF: dict[str, str] = {c.colour: c.id for c in DECK if c.kind == CAPTAIN}
# A total order for "lowest card" choices (default command, bots): merchants by gold, pirates by
# skulls, trumps last; ties by id so the order is stable.
_KIND_RANK = {MERCHANT: 0, PIRATE: 1, CAPTAIN: 2, ADMIRAL: 3}
RANK: dict[str, tuple[int, int, str]] = {
    c.id: (_KIND_RANK[c.kind], c.gold + c.skulls, c.id) for c in DECK}


@dataclass(frozen=True)
class LootOptions:
    """Every Loot option with its default (loot.md decisions block)."""

    teams: bool = False  # §9: teams of two, only with 4, 6 or 8 seats; seat i partners i + N/2
    empty_deck_mode: str = "discard"  # §8: "discard" (Korsar) | "seed_literal" (take from discard)
    team_capture: str = "anchor"  # §9: "anchor" (reading B) | "first_in_turn_order" (reading A)
    end_requires_play: bool = False  # §7: True = only playing a last card ends the game


DEFAULTS = LootOptions()
OPTION_NAMES = tuple(f.name for f in dc_fields(LootOptions))
EMPTY_DECK_MODES = ("discard", "seed_literal")
TEAM_CAPTURES = ("anchor", "first_in_turn_order")


class LootOptionsSchema(ClockOptions):
    """The options on the wire: the clock options plus ``LootOptions``."""

    teams = fields.Boolean(load_default=DEFAULTS.teams)
    empty_deck_mode = fields.String(load_default=DEFAULTS.empty_deck_mode,
                                    validate=validate.OneOf(EMPTY_DECK_MODES))
    team_capture = fields.String(load_default=DEFAULTS.team_capture,
                                 validate=validate.OneOf(TEAM_CAPTURES))
    end_requires_play = fields.Boolean(load_default=DEFAULTS.end_requires_play)

