"""A season's strength knowledge (maskmen.md §4) and the strength-marker display built from it (§6).

Knowledge is a strict partial order over the wrestlers, kept as ``beats``: wrestler -> the
wrestlers known to be weaker, already closed transitively. New relations come only from +1 plays,
which are legal only for undetermined pairs, so the order never gains a cycle.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from games.maskmen.data import WRESTLER_INDEX

Beats = dict[str, list[str]]


def empty(wrestlers: Iterable[str]) -> Beats:
    return {w: [] for w in wrestlers}


def stronger(beats: Beats, v: str, w: str) -> bool:
    """Is ``v`` known to be stronger than ``w`` (directly or through a chain)?"""
    return w in beats[v]


def relation(beats: Beats, v: str, w: str) -> str:
    """``">"`` if v is known stronger, ``"<"`` if known weaker, ``"?"`` if undetermined."""
    if w in beats[v]:
        return ">"
    if v in beats[w]:
        return "<"
    return "?"


def add_proof(beats: Beats, winner: str, loser: str) -> None:
    """Record ``winner > loser`` and keep the closure (in place): everything at or above the
    winner now beats everything at or below the loser (§4: knowledge is transitive)."""
    above = [a for a, below in beats.items() if winner in below] + [winner]
    below = [*beats[loser], loser]
    for a in above:
        known = beats[a]
        for b in below:
            if b not in known:
                known.append(b)
        known.sort(key=WRESTLER_INDEX.__getitem__)


def closure(wrestlers: Iterable[str], proofs: Iterable[Sequence[str]]) -> Beats:
    """The closure of a list of direct proofs ``[stronger, weaker]``, built from scratch."""
    beats = empty(wrestlers)
    for winner, loser in proofs:
        add_proof(beats, winner, loser)
    return beats


def is_acyclic(beats: Beats) -> bool:
    """A strict partial order: nobody is known stronger than itself."""
    return all(w not in below for w, below in beats.items())


def covers(beats: Beats, nodes: Sequence[str]) -> list[tuple[str, str]]:
    """The Hasse diagram as ``(weaker, stronger)`` pairs: proofs no chain already implies."""
    out = []
    for top in nodes:
        for low in beats[top]:
            if not any(low in beats[mid] for mid in beats[top] if mid != low):
                out.append((low, top))
    return out


def columns(beats: Beats, debuted: Sequence[str]) -> list[list[str]]:
    """The marker columns of the current edition (§6), each bottom (weakest) to top.

    One column per maximal chain of the order: a branch (A < B, A < C, B ? C) is two columns
    sharing their A marker, and once B ? C is decided the chains merge into one column again.
    """
    order = {w: i for i, w in enumerate(debuted)}
    up: dict[str, list[str]] = {w: [] for w in debuted}
    for low, top in covers(beats, debuted):
        up[low].append(top)
    for w in up:
        up[w].sort(key=order.__getitem__)
    out: list[list[str]] = []

    def climb(path: list[str]) -> None:
        nxt = up[path[-1]]
        if not nxt:
            out.append(path)
        for top in nxt:
            climb([*path, top])

    for w in debuted:
        if not beats[w]:  # §6: a column starts at a wrestler nobody is known to beat
            climb([w])
    out.sort(key=lambda col: [order[w] for w in col])
    return out


def levels(beats: Beats, debuted: Sequence[str]) -> list[list[str]]:
    """The first edition's layout (§6, one marker each): rows from the bottom, a wrestler one
    row above the highest wrestler it is known to beat; undetermined ones share a row."""
    height: dict[str, int] = {}

    def level(w: str) -> int:
        if w not in height:
            height[w] = 1 + max((level(b) for b in beats[w]), default=-1)
        return height[w]

    rows: list[list[str]] = []
    for w in debuted:
        h = level(w)
        while len(rows) <= h:
            rows.append([])
        rows[h].append(w)
    return rows


def display(beats: Beats, debuted: Sequence[str], style: str) -> dict:
    """Everything a client needs to draw the strength markers; ``style`` picks the edition's."""
    return {
        "style": style,
        "columns": columns(beats, debuted),
        "levels": levels(beats, debuted),
        "edges": [list(edge) for edge in covers(beats, debuted)],
    }
