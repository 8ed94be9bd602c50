"""Tally rules: setup, decide, evolve, pending, legal and default commands, view, result."""

from __future__ import annotations

from typing import Any

from marshmallow import fields, validate

from games.core import (
    ClockOptions,
    Command,
    Event,
    Game,
    Prompt,
    Rng,
    Schema,
    Seat,
    State,
    Viewer,
    ensure,
    next_seat,
)
from games.tally import shapes


class TallyOptions(ClockOptions):
    target = fields.Integer(load_default=21, validate=validate.Range(min=1, max=10_000_000))


class Add(Schema):
    amount = fields.Integer(required=True, validate=validate.Range(min=1, max=3))


class Tally(Game):
    name = "tally"
    title = "Tally"
    min_seats = 1
    max_seats = 8
    options = TallyOptions
    commands = {"add": Add}
    view_shape = shapes.VIEW
    result_shape = shapes.RESULT
    event_shapes = shapes.EVENTS

    def setup(self, seats: int, options: dict[str, Any], rng: Rng) -> list[Event]:
        first = rng.below(seats)
        return [Event("tally_started",
                      {"seats": seats, "target": options["target"], "first": first})]

    def evolve(self, state: State, event: Event) -> State:
        data = event.data
        if event.type == "tally_started":
            return {"seats": data["seats"], "target": data["target"], "turn": data["first"],
                    "total": 0, "winner": None}
        if event.type == "added":
            state["total"] += data["amount"]
            if state["total"] >= state["target"]:
                state["winner"] = data["seat"]
            else:
                state["turn"] = next_seat(data["seat"], state["seats"])
        return state

    def decide_command(self, state: State, command: Command, seat: Seat, rng: Rng) -> list[Event]:
        ensure(command["amount"] >= 1, "invalid_amount", "Add at least 1.")
        return [Event("added", {"seat": seat, "amount": command["amount"]})]

    def pending(self, state: State) -> dict[Seat, Prompt]:
        if not state or state["winner"] is not None:
            return {}
        return {state["turn"]: Prompt(("add",), "turn", "add 1 to 3")}

    def legal_commands(self, state: State, seat: Seat) -> list[Command]:
        if seat not in self.pending(state):
            return []
        return [{"type": "add", "amount": n} for n in (1, 2, 3)]

    def default_command(self, state: State, seat: Seat) -> Command:
        return {"type": "add", "amount": 1}

    def view(self, state: State, viewer: Viewer) -> dict[str, Any]:
        return dict(state)

    def result(self, state: State) -> dict[str, Any] | None:
        if not state or state["winner"] is None:
            return None
        winner = state["winner"]
        return {"winners": [winner], "scores": {str(winner): 1}, "ranking": [[winner]]}

    def seats_in_play(self, state: State) -> int:
        return state.get("seats", 0)


GAME = Tally()
