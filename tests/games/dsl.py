"""Given/when/then for rules tests: ``given(game, *events).when(command, seat).then(*events)``."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from games.core import Command, Event, Game, Rejected, Rng, Seat, State


def ev(type_: str, **data: Any) -> Event:
    return Event(type_, data)


class Scenario:
    def __init__(self, game: Game, state: State):
        self.game = game
        self.state = state
        self._outcome: list[Event] | Rejected | None = None

    def when(self, command: Command, seat: Seat, rng: Rng | None = None) -> Scenario:
        before = copy.deepcopy(self.state)
        try:
            self._outcome = self.game.decide(self.state, command, seat, rng or Rng("test"))
        except Rejected as exc:
            self._outcome = exc
        assert self.state == before, "decide mutated the state it was given"
        return self

    def then(self, *expected: Event) -> State:
        """Assert the exact events and return the state after folding them."""
        assert not isinstance(self._outcome, Rejected), f"rejected: {self._outcome!r}"
        assert list(self._outcome) == list(expected)
        return self.game.fold(self._outcome, copy.deepcopy(self.state))

    def then_state(self) -> State:
        """Accept whatever events were decided and return the state after them."""
        assert not isinstance(self._outcome, Rejected), f"rejected: {self._outcome!r}"
        return self.game.fold(self._outcome, copy.deepcopy(self.state))

    @property
    def events(self) -> list[Event]:
        assert not isinstance(self._outcome, Rejected), f"rejected: {self._outcome!r}"
        return list(self._outcome)

    def rejected(self, code: str) -> Rejected:
        if not isinstance(self._outcome, Rejected):
            pytest.fail(f"expected rejection {code!r}, got events {self._outcome!r}")
        assert self._outcome.code == code, self._outcome
        return self._outcome


def given(game: Game, *events: Event) -> Scenario:
    return Scenario(game, game.fold(events))


def given_state(game: Game, state: State) -> Scenario:
    return Scenario(game, state)
