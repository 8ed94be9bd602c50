"""Tally: a trivial race-to-a-target game kept for tests and benchmarks (no spec; not in the
catalog). Seats take turns adding 1-3 to a shared total; whoever reaches ``target`` wins. Its
logs can be made arbitrarily long, which the store and projection benchmarks need."""

from games.tally.rules import GAME

__all__ = ["GAME"]
