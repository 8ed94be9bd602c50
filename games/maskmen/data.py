"""Mask Men tables (maskmen.md §1, §2, §7) loaded once from ``maskmen.json``, and the options."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

DATA_FILE = Path(__file__).with_name("maskmen.json")


@dataclass(frozen=True)
class Wrestler:
    """One wrestler, identified by colour (maskmen.md decisions: names are not official)."""

    id: str
    name: str


@dataclass(frozen=True)
class Edition:
    """One printing: copies per wrestler, markers per wrestler, marker layout and deal table."""

    id: str
    title: str
    copies: int
    markers_per_wrestler: int
    display: str  # "columns" (current edition, §6) or "levels" (first edition, one marker each)
    deal: tuple[tuple[int, int], ...]  # (players, cards per hand), maskmen.md §2

    def hand_size(self, seats: int) -> int:
        return dict(self.deal)[seats]


@dataclass(frozen=True)
class Scoring:
    out_awards: tuple[int, ...]  # first out +2, second out +1 (maskmen.md §7)
    last_player: int  # the player still holding cards takes -1
    seasons: int  # 3-6 players play 4 seasons (§3)
    two_player_season_wins: int  # 2 players: first to win 3 seasons (§3)


@dataclass(frozen=True)
class Options:
    """Every Mask Men option with its default (the clock options come from the kernel)."""

    edition: str = "current"


@dataclass(frozen=True)
class MaskmenData:
    min_players: int
    max_players: int
    max_cards_per_play: int
    wrestlers: tuple[Wrestler, ...]
    editions: dict[str, Edition]
    scoring: Scoring

    @property
    def wrestler_ids(self) -> tuple[str, ...]:
        return tuple(w.id for w in self.wrestlers)

    def deck(self, edition: str) -> tuple[str, ...]:
        """Every physical card of ``edition`` in canonical order: ``ORANGE-1`` .. ``BLUE-10``."""
        copies = self.editions[edition].copies
        return tuple(card_id(w.id, n) for w in self.wrestlers for n in range(1, copies + 1))


def card_id(wrestler: str, copy: int) -> str:
    return f"{wrestler}-{copy}"


def wrestler_of(card: str) -> str:
    """The wrestler a card shows: ``RED-3`` -> ``RED``."""
    return WRESTLER_OF.get(card) or card.rpartition("-")[0]


def _load(path: Path) -> MaskmenData:
    raw = json.loads(path.read_text(encoding="utf-8"))
    editions = {
        key: Edition(
            id=key,
            title=ed["title"],
            copies=ed["copies_per_wrestler"],
            markers_per_wrestler=ed["markers_per_wrestler"],
            display=ed["display"],
            deal=tuple(sorted((int(p), n) for p, n in ed["deal"].items())),
        )
        for key, ed in raw["editions"].items()
    }
    sc = raw["scoring"]
    return MaskmenData(
        min_players=raw["players"]["min"],
        max_players=raw["players"]["max"],
        max_cards_per_play=raw["max_cards_per_play"],
        wrestlers=tuple(Wrestler(w["id"], w["name"]) for w in raw["wrestlers"]),
        editions=editions,
        scoring=Scoring(tuple(sc["out_awards"]), sc["last_player"], sc["seasons"],
                        sc["two_player_season_wins"]),
    )


DATA = _load(DATA_FILE)
OPTIONS = Options()
WRESTLER_INDEX = {w: i for i, w in enumerate(DATA.wrestler_ids)}
_MAX_COPIES = max(e.copies for e in DATA.editions.values())
CARD_ORDER = {card_id(w, n): i * _MAX_COPIES + n for w, i in WRESTLER_INDEX.items()
              for n in range(1, _MAX_COPIES + 1)}

WRESTLER_OF = {card_id(w, n): w for w in WRESTLER_INDEX for n in range(1, _MAX_COPIES + 1)}


def card_key(card: str) -> int:
    """Sort key of a card: by wrestler (data order), then copy number."""
    return CARD_ORDER[card]
