"""Which figures go (wotr.md §3-§5): a move, an attack and an advance after a battle name how many
Regulars, Elites and Leaders/Nazgûl go, kind by kind (``{"regular": r, "elite": e, "leader":
l}``); the rest stay. The seed: a moving army "may or may not include Leaders/Nazgûl"
("지도자/나즈굴이 포함되도 되고 안 되도 됩니다"), the attacker attacks with "as many of the
region's figures as wanted" ("그 군대가 있는 지역의 피규어들 중 원하는 만큼"), and after the
battle "some or all of the attackers may enter" ("공격군 중 일부나 전부가 그 지역으로 들어갈 수
있습니다").

Counts name kinds, not Nations: the units of each kind are taken from the Nations whose units may
go (At War, or allowed across that border, §3/§4) in name order, Leaders from any Nation in name
order. Every choice keeps these rules (the seed, §1): a Leader or Nazgûl never stays without a
unit beside it ("자유민족 지도자만 남겨놓고 이동해서도 안 됩니다"; a lone Nazgûl would go back to
reinforcements, PROPOSED in engine.settle, so it is refused the same way), and Leaders go without
a unit only to join their side's units ("자유민족 지도자 혼자 부대가 없는 지역으로 이동시켜서도 안
되고"); an attack and an advance always take a unit (§4: both parts of a split attack need one).
"""

from __future__ import annotations

from collections.abc import Callable

from games.core import Command, Rejected, ensure
from games.wotr.model import Army, leaders, units

KINDS = ("regular", "elite", "leader")
Counts = dict[str, int]
NONE: Counts = {"regular": 0, "elite": 0, "leader": 0}


def counts(army: Army | None) -> Counts:
    """The figures of ``army`` per kind, whatever their Nation."""
    return {kind: sum(f[i] for f in (army or {}).values()) for i, kind in enumerate(KINDS)}


def pick(army: Army, want: Counts, unit_may_go: Callable[[str], bool]) -> Army:
    """The figures of ``army`` that go for ``want``: units of each kind from the Nations whose
    units may go, Leaders from any Nation, each in name order. Rejects more than there are."""
    going: Army = {}
    for index, kind in enumerate(KINDS):
        need = want.get(kind, 0)
        for nation in sorted(army):
            if need == 0:
                break
            if index < 2 and not unit_may_go(nation):
                continue
            take = min(need, army[nation][index])
            if take:
                going.setdefault(nation, [0, 0, 0])[index] += take
                need -= take
        if need:
            there = counts(army)[kind]
            ensure(there < want[kind], "not_at_war",
                   "Not that many {kind}s may go: units of a Nation not At War may not cross "
                   "into another Nation or attack (wotr.md §3, §4).", kind=kind)
            ensure(False, "no_such_figures", "There are not that many {kind}s here.",
                   kind=kind, there=there)
    return going


def less(army: Army | None, gone: Army | None) -> Army:
    """``army`` without the figures in ``gone``."""
    out: Army = {}
    for nation, f in (army or {}).items():
        left = [a - b for a, b in zip(f, (gone or {}).get(nation, [0, 0, 0]), strict=True)]
        if any(left):
            out[nation] = left
    return out


def check_split(stays: Army, going: Army, *, needs_unit: bool, needs_leader: bool = False,
                joins_units: bool = False) -> None:
    """The rules every split keeps (see the module docstring); ``stays`` is what remains where
    the figures were, ``joins_units`` whether the place they go holds their side's units."""
    ensure(any(any(f) for f in going.values()), "nothing_moves", "Choose at least one figure.")
    ensure(units(going) > 0 or (not needs_unit and joins_units), "needs_unit",
           "An army needs a unit: Leaders and Nazgûl go alone only to join their side's units "
           "(wotr.md §1, §4).")
    ensure(not needs_leader or leaders(going) > 0, "needs_leader",
           "A Character die moves or attacks only with a Leader or Nazgûl (wotr.md §3, §4).")
    ensure(leaders(stays) == 0 or units(stays) > 0, "leader_left_alone",
           "A Leader or Nazgûl may not be left without a unit (wotr.md §1, §3).")


def as_counts(command: Command) -> Counts:
    """The ``figures`` a command names, every kind present."""
    return {kind: int((command.get("figures") or {}).get(kind, 0)) for kind in KINDS}


def options(available: Army, valid: Callable[[Counts], bool]) -> list[Counts]:
    """Every count of figures from ``available`` that ``valid`` accepts, the most first."""
    top = counts(available)
    out = []
    for r in range(top["regular"], -1, -1):
        for e in range(top["elite"], -1, -1):
            for lead in range(top["leader"], -1, -1):
                choice = {"regular": r, "elite": e, "leader": lead}
                if valid(choice):
                    out.append(choice)
    return out


class Split:
    """A choice of figures from ``army``, which stands in ``whole`` (all of it or a part): units
    go from the Nations ``unit_may_go`` names, and every choice keeps ``check_split``'s rules
    and ``also`` (a further check of the figures that go; raises Rejected).

    ``most`` is every unit that may go and every Leader: valid whenever any choice is (read
    it, never change it)."""

    __slots__ = ("_there", "also", "army", "joins_units", "most", "needs_leader", "needs_unit",
                 "unit_may_go", "whole")

    def __init__(self, army: Army, whole: Army, unit_may_go: Callable[[str], bool], *,
                 needs_unit: bool, needs_leader: bool = False, joins_units: bool = False,
                 also: Callable[[Army], None] | None = None):
        self.army, self.whole, self.unit_may_go = army, whole, unit_may_go
        self.needs_unit, self.needs_leader, self.joins_units = needs_unit, needs_leader, joins_units
        self.also = also
        regular = elite = leader = 0
        for nation, (r, e, lead) in army.items():
            if unit_may_go(nation):
                regular, elite = regular + r, elite + e
            leader += lead
        self.most: Counts = {"regular": regular, "elite": elite, "leader": leader}
        self._there: tuple[int, int] | None = None  # units and leaders of ``whole``

    def allows(self, want: Counts) -> bool:
        """Whether ``take(want)`` would be accepted."""
        if self.also is not None:
            return self._takes(want)
        top = self.most
        r, e, lead = want["regular"], want["elite"], want["leader"]
        return (0 <= r <= top["regular"] and 0 <= e <= top["elite"]
                and 0 <= lead <= top["leader"] and self._keeps(r, e, lead))

    def take(self, want: Counts) -> Army:
        """The figures that go for ``want``, or Rejected with the rule it breaks."""
        going = pick(self.army, want, self.unit_may_go)
        check_split(less(self.whole, going), going, needs_unit=self.needs_unit,
                    needs_leader=self.needs_leader, joins_units=self.joins_units)
        if self.also is not None:
            self.also(going)
        return going

    def options(self) -> list[Counts]:
        """Every count ``take`` accepts, the most first (``options`` over ``take``). Without
        ``also`` the rules are counted, not tried: a big army has hundreds of counts."""
        if self.also is not None:
            return options(self.army, self._takes)
        top = self.most
        return [{"regular": r, "elite": e, "leader": lead}
                for r in range(top["regular"], -1, -1)
                for e in range(top["elite"], -1, -1)
                for lead in range(top["leader"], -1, -1) if self._keeps(r, e, lead)]

    def _keeps(self, r: int, e: int, lead: int) -> bool:
        """``check_split``'s rules for figures ``army`` has: something goes; a unit goes (or
        Leaders join their side's units); a Leader for a Character die; no Leader stays
        without a unit."""
        if not (r + e or (lead and not self.needs_unit and self.joins_units)):
            return False
        if self.needs_leader and not lead:
            return False
        if self._there is None:
            self._there = units(self.whole), leaders(self.whole)
        units_there, leaders_there = self._there
        return lead == leaders_there or units_there > r + e

    def _takes(self, want: Counts) -> bool:
        try:
            self.take(want)
        except Rejected:
            return False
        return True
