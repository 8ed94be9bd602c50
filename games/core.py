"""The game kernel: the contract every game implements, and the pieces all games share.

A game is a decider over plain data (DESIGN.md, "The game kernel"):

- ``setup(seats, options, rng)`` returns the opening events;
- ``evolve(state, event)`` applies one event (total, deterministic, never draws);
- ``decide(state, command, seat, rng)`` validates a command and returns its events, or raises
  ``Rejected`` with a stable snake_case code;
- ``pending``, ``legal_commands``, ``default_command``, ``view``, ``redact``, ``result``;
- ``secrets(state, viewer)``: the ids hidden from ``viewer`` now. It is the one source of truth
  for hidden information: the leak scan checks every response against it, and takebacks use it.

Takebacks (DESIGN.md, undo). A takeback never crosses an event that brought anything into sight
(``reveals``) that the requester did not already know: a card another seat played from its hand,
a card drawn, a card turned up, a peek. The kernel works this out for every game from
``secrets`` and ``redact`` alone: for each viewer, what was hidden before an event and is not
after it, or what the event (as that viewer receives it) names while it was hidden. A game adds
to ``undo_barriers`` the event types that reveal something no card id carries (a die roll, a
random draw of who leads, a bluff's truth) or that must never be taken back for another reason.
A game that keeps ``secrets`` and ``redact`` right gets correct takebacks for free.

The end of a game (``replay_view``, ``secrets_after_end``) reveals what its rules reveal: by
default nothing more than each viewer saw at the time; a game whose end turns every card face
up (Loot) says so by overriding both.

States are JSON-compatible plain data (dicts with string keys, lists, str, int, bool, None), so a
snapshot is ``json.dumps(state)`` and nothing else. Seats are ints ``0..n-1``. Randomness comes
only from the ``Rng`` that ``decide``/``setup`` are handed; its outcomes are written into events.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from types import NoneType
from typing import Any, TypeVar

import orjson
from marshmallow import RAISE, Schema, ValidationError, fields, missing, validate

from games.shapes import Result

State = dict[str, Any]
Command = dict[str, Any]
Seat = int
Viewer = int | str

SPECTATOR = "spectator"
AUDITOR = "auditor"
DEFAULT_THINK_MS = 250  # an expert bot's think time per decision, a seat option (issue 12)

T = TypeVar("T")


@dataclass(frozen=True)
class Event:
    """A fact the rules decided: a stable wire ``type`` (past tense) and a JSON payload."""

    type: str
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "data": self.data}

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> Event:
        return cls(raw["type"], raw.get("data") or {})


@dataclass(frozen=True)
class Seen:
    """Everything a seat may know when it decides, exactly what a human there is shown: its
    ``view``, its ``legal`` commands and its game log as ``redact`` shows it to that seat
    (oldest first, moves taken back left out). ``think_ms`` is the seat's think-time option;
    ``live`` is set by the worker: a searching bot may then also stop at a wall-clock cap."""

    seat: Seat
    view: dict[str, Any]
    legal: list[Command]
    events: tuple[Event, ...] = ()
    think_ms: int = DEFAULT_THINK_MS
    live: bool = False


Bot = Callable[[Seen, "Rng"], Command]


def N_(template: str) -> str:
    """Marks ``template`` for the message catalogs (``make catalogs``) and returns it as it is."""
    return template


class Text(str):
    """English text that keeps its template and parameters, so that the service can say it
    again in the reader's language (service/app/i18n.py; games import no translation machinery).

    ``Text("{card} is not in play.", card="L7")`` is the string ``L7 is not in play.``;
    ``Text.plural(singular, plural, n, ...)`` picks its form by ``n`` as gettext's ngettext does.
    """

    template: str
    params: dict[str, Any]
    plural_template: str | None = None
    n: int = 1

    def __new__(cls, template: str, /, **params: Any) -> Text:
        self = super().__new__(cls, template.format(**params) if params else template)
        self.template, self.params = template, params
        return self

    @classmethod
    def plural(cls, singular: str, plural: str, n: int, /, **params: Any) -> Text:
        """The singular or plural template by ``n`` (available to both as ``{n}``)."""
        params = {**params, "n": n}
        self = super().__new__(cls, (singular if n == 1 else plural).format(**params))
        self.template, self.params, self.plural_template, self.n = singular, params, plural, n
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (_text, (self.template, self.params, self.plural_template, self.n))


def _text(template: str, params: dict[str, Any], plural: str | None, n: int) -> Text:
    if plural is None:
        return Text(template, **params)
    return Text.plural(template, plural, n, **{k: v for k, v in params.items() if k != "n"})


class Rejected(Exception):
    """A command the rules refuse: a stable machine ``code`` and a human sentence.

    The sentence is a template whose ``{name}`` fields come from ``details`` (and ``params``,
    for words that are not facts worth sending), marked for the catalogs where it is written
    (``ensure``'s and ``Rejected``'s message arguments are extracted as they are).
    """

    def __init__(self, code: str, message: str, details: dict[str, Any] | None = None,
                 params: dict[str, Any] | None = None):
        self.details = details or {}
        text = message if isinstance(message, Text) else Text(message, **{**self.details,
                                                                          **(params or {})})
        super().__init__(str(text))
        self.code = code
        self.message = text

    def __repr__(self) -> str:
        return f"Rejected({self.code!r}, {self.message!r})"


@dataclass(frozen=True)
class Prompt:
    """What one seat must decide now: the command types it may send, and which clock runs."""

    kinds: tuple[str, ...]
    clock: str = "turn"  # "turn" or "reaction": picks turn_seconds or reaction_seconds
    label: str = ""  # a short human description ("your turn", "defend against Assassin")

    def to_dict(self) -> dict[str, Any]:
        return {"kinds": list(self.kinds), "clock": self.clock, "label": self.label}


class Rng:
    """A portable deterministic random source: SHA-256 in counter mode over (seed, version).

    It is defined by this file alone (no dependence on Python's Mersenne Twister), so an auditor
    can re-derive every shuffle and roll from the revealed seed in any language.
    """

    def __init__(self, seed: bytes | str, version: int = 0):
        if isinstance(seed, str):
            seed = seed.encode()
        self._key = hashlib.sha256(seed + b":" + str(version).encode()).digest()
        self._counter = 0
        self._pool = b""

    @classmethod
    def for_version(cls, seed: bytes | str, version: int) -> Rng:
        """The RNG for the command decided at ``version`` (the version it will follow)."""
        return cls(seed, version)

    def _bytes(self, n: int) -> bytes:
        while len(self._pool) < n:
            block = hashlib.sha256(self._key + self._counter.to_bytes(8, "big")).digest()
            self._counter += 1
            self._pool += block
        out, self._pool = self._pool[:n], self._pool[n:]
        return out

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)`` by rejection sampling (no modulo bias)."""
        if n <= 0:
            raise ValueError("below() needs n > 0")
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            x = int.from_bytes(self._bytes(8), "big")
            if x < limit:
                return x % n

    def randint(self, low: int, high: int) -> int:
        """A uniform integer in ``[low, high]``."""
        return low + self.below(high - low + 1)

    def roll(self, sides: int = 6) -> int:
        return self.randint(1, sides)

    def choice(self, items: Sequence[T]) -> T:
        return items[self.below(len(items))]

    def shuffled(self, items: Iterable[T]) -> list[T]:
        """A Fisher-Yates shuffle of a copy of ``items``."""
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = self.below(i + 1)
            out[i], out[j] = out[j], out[i]
        return out

    def random(self) -> float:
        return int.from_bytes(self._bytes(7), "big") / float(1 << 56)


class ClockOptions(Schema):
    """Options every game accepts: turn clocks (off by default) and the bot hand-over."""

    turn_seconds = fields.Integer(load_default=0, validate=validate.Range(min=0, max=86400))
    reaction_seconds = fields.Integer(load_default=0, validate=validate.Range(min=0, max=86400))
    max_timeouts = fields.Integer(load_default=3, validate=validate.Range(min=1, max=100))


# The fields a plain loader reads, each with the one type of value it takes as it is: what
# marshmallow's load of that exact type gives back unchanged (an Integer refuses a bool).
_PLAIN_FIELDS: dict[type, type] = {fields.Integer: int, fields.String: str, fields.Boolean: bool}


def plain_loader(schema: Schema) -> Callable[[dict[str, Any]], Any] | None:
    """For a schema of Integer, String and Boolean fields and Nested such schemas (no hooks,
    unknown fields refused, a field's ``data_key`` its only other name, defaults plain
    constants), a function giving what ``schema.load(data)`` gives when ``data`` names only
    its fields, each value of its field's exact type (a dict for a Nested one) and passing its
    validators, and a field left out has a default or is optional; None for any other data
    (``schema.load`` then answers, or refuses). None for any other schema.

    Loading a command through marshmallow cost a fast game more than its rules (issue 13), and
    a War of the Ring move (a renamed field, Nested figures) a fifth of its ``decide``."""
    if schema.many or schema.unknown != RAISE or any(schema._hooks.values()) \
            or schema.dump_fields.keys() - schema.load_fields.keys():
        return None
    specs = []
    for name, declared in schema.load_fields.items():
        kind: Any = _PLAIN_FIELDS.get(type(declared))
        if type(declared) is fields.Nested:
            kind = plain_loader(declared.schema)
        default = declared.load_default
        if kind is None or declared.attribute not in (None, name) \
                or (default is not missing and type(default) not in (int, str, bool, NoneType)):
            return None
        specs.append((name, declared.data_key or name, kind, tuple(declared.validators),
                      declared.required, default))
    keys = frozenset(key for _, key, _, _, _, _ in specs)

    def load(data: dict[str, Any]) -> Any:
        if not keys.issuperset(data):
            return None
        out = {}
        for name, key, kind, validators, required, default in specs:
            if key not in data:
                if required:
                    return None
                if default is not missing:
                    out[name] = default
                continue
            value = data[key]
            if isinstance(kind, type):
                if type(value) is not kind:
                    return None
            elif type(value) is not dict or (value := kind(value)) is None:
                return None
            try:
                for check in validators:
                    check(value)  # marshmallow 4: a validator refuses by raising
            except ValidationError:
                return None
            out[name] = value
        return out

    return load


class Game:
    """Base class of a game's rules object. A game overrides the hooks; the kernel checks in
    ``decide`` what every game shares (game over, whose prompt, which command types)."""

    name: str = ""
    title: str = ""
    min_seats: int = 2
    max_seats: int = 2
    rules_version: str = "1"
    spec: str = ""  # path of the spec under shared/rules/
    options: type[Schema] = ClockOptions
    # Options for tests and teaching scenarios only (a stacked deal): refused over HTTP unless a
    # test setting allows them, and never shown to anyone (issue 23 item 11).
    test_only_options: frozenset[str] = frozenset()
    commands: dict[str, type[Schema]] = {}
    # Event types no takeback crosses, beyond what ``reveals`` finds from card ids: random
    # outcomes and hidden information that no card id carries (see the module docstring).
    undo_barriers: frozenset[str] = frozenset()
    # What ``view``, ``result`` and each event's data look like (its ``shapes.py``), for typed
    # clients (issue 26): the OpenAPI document is built from them and a test holds the rules
    # to them.
    view_shape: type[Schema] | None = None
    result_shape: type[Schema] = Result
    event_shapes: dict[str, type[Schema]] = {}

    # --- the contract -------------------------------------------------------------------------

    def initial_state(self) -> State:
        return {}

    def setup(self, seats: int, options: dict[str, Any], rng: Rng) -> list[Event]:
        raise NotImplementedError

    def evolve(self, state: State, event: Event) -> State:
        raise NotImplementedError

    def decide(self, state: State, command: Command, seat: Seat, rng: Rng) -> list[Event]:
        """Validate ``command`` from ``seat`` and return the events it causes, or raise Rejected."""
        if self.result(state) is not None:
            raise Rejected("game_over", "The game is over.")
        kind = command.get("type")
        if kind not in self.commands:
            raise Rejected("unknown_command", "{title} has no command {kind!r}.",
                           {"known": sorted(self.commands)}, {"title": self.title, "kind": kind})
        prompt = self.pending(state).get(seat)
        if prompt is None:
            raise Rejected("not_your_turn", "You have nothing to decide right now.")
        if kind not in prompt.kinds:
            raise Rejected("command_not_allowed",
                           "You may not {kind} now; you may: {allowed}.",
                           {"allowed": list(prompt.kinds)},
                           {"kind": kind, "allowed": ", ".join(prompt.kinds)})
        args = {k: v for k, v in command.items() if k != "type"}
        schema, plain = self._schema(kind)
        loaded = plain(args) if plain is not None else None
        if loaded is None:
            try:
                loaded = schema.load(args)
            except ValidationError as exc:
                raise Rejected("invalid_command", "The {kind} command is malformed.",
                               {"fields": exc.messages}, {"kind": kind}) from None
        return self.decide_command(state, {"type": kind, **loaded}, seat, rng)

    def _schema(self, kind: str) -> tuple[Schema, Callable[[dict[str, Any]], Any] | None]:
        # One schema instance per command type: building one per command costs more than
        # the rules themselves in a fast game; with its plain loader, if it has one.
        cache = self.__dict__.setdefault("_schemas", {})
        if kind not in cache:
            schema = self.commands[kind]()
            cache[kind] = (schema, plain_loader(schema))
        return cache[kind]

    def decide_command(self, state: State, command: Command, seat: Seat, rng: Rng) -> list[Event]:
        """Game-specific validation once the kernel checks passed (it is this seat's decision)."""
        raise NotImplementedError

    def pending(self, state: State) -> dict[Seat, Prompt]:
        raise NotImplementedError

    def legal_commands(self, state: State, seat: Seat) -> list[Command]:
        raise NotImplementedError

    def default_command(self, state: State, seat: Seat) -> Command:
        raise NotImplementedError

    def view(self, state: State, viewer: Viewer) -> dict[str, Any]:
        raise NotImplementedError

    def replay_view(self, state: State, viewer: Viewer, game_over: bool) -> dict[str, Any]:
        """``viewer``'s view of an earlier state: as it was then while the game runs; once it
        is over, what the game's end reveals (by default nothing more: as it was then). A game
        overriding this overrides ``secrets_after_end`` to match."""
        return self.view(state, viewer)

    def redact(self, event: Event, viewer: Viewer) -> Event | None:
        """``event`` as ``viewer`` may see it; None hides its data (the version stays visible)."""
        return event

    def result(self, state: State) -> dict[str, Any] | None:
        """None while running; at the end ``{"winners", "scores", "ranking"}`` (and more)."""
        raise NotImplementedError

    def secrets(self, state: State, viewer: Viewer) -> set[str]:
        """Ids of the things ``viewer`` must not see now (other seats' hand cards, the deck).

        Every physical card has a unique id, so a leak is the id showing up in what the viewer
        receives; the hidden-information tests scan views, event pages and errors for these.
        """
        return set()

    def secrets_after_end(self, state: State, viewer: Viewer) -> set[str]:
        """Ids in an earlier ``state`` that stay hidden from ``viewer`` after the game is over
        (what ``replay_view`` with ``game_over`` must not show). Default: the end reveals
        nothing, so what was hidden then stays hidden."""
        return self.secrets(state, viewer)

    def reveals(self, event: Event, hidden_before: set[str], hidden_after: set[str],
                viewer: Viewer) -> set[str]:
        """Ids ``event`` brought into ``viewer``'s sight: hidden before it (``hidden_before`` is
        ``secrets`` of the state before) and no longer hidden after, or named in the event as
        ``viewer`` receives it. No takeback crosses an event that reveals to anyone something
        its requester did not know (see the module docstring)."""
        shown = self.redact(event, viewer)
        named = ids_in(shown.data) if shown is not None else set()
        return (hidden_before - hidden_after) | (named & hidden_before)

    def seats_in_play(self, state: State) -> int:
        return len(state.get("hands", []))

    def explain(self, state: State, command: Command, seat: Seat) -> list[str]:
        """The checks the rules made for ``command``, in words (for disputes)."""
        return [Text("It was seat {seat}'s decision and {command} was allowed then.", seat=seat,
                     command=command.get("type"))]

    def bot(self, level: str) -> Bot:
        """A bot of ``level``: a function of (what its seat has seen, rng).

        The kernel offers ``random``; a game adds its own levels by overriding this, and the
        ``expert`` search by deriving from games.expert.SearchingGame and implementing
        ``sample_state`` (the search imports the kernel, never the other way round).
        """
        if level == "random":
            return random_bot
        raise KeyError(level)

    bot_levels: tuple[str, ...] = ("random",)

    def sample_state(self, seen: Seen, rng: Rng) -> State:
        """A whole state consistent with what ``seen`` shows (the expert's hook).

        It must read ``seen`` alone, never the true state: the hidden cards are drawn with
        ``rng`` from those the seat cannot place, so the expert decides on its information set.
        """
        raise NotImplementedError(f"{self.title} has no expert bot")

    def seen(self, state: State, seat: Seat, log: Iterable[Event] = (),
             think_ms: int = DEFAULT_THINK_MS, live: bool = False) -> Seen:
        """What ``seat`` may know now: its view, its legal commands, and the game events of
        ``log`` as ``redact`` shows them to it (a hidden one keeps only its type)."""
        events = tuple(shown if (shown := self.redact(event, seat)) is not None
                       else Event(event.type) for event in log)
        return Seen(seat, self.view(state, seat), self.legal_commands(state, seat), events,
                    think_ms, live)

    def playout_seen(self, state: State, seat: Seat) -> Seen:
        """What the expert's playout policy is shown in a sampled world: ``seen`` with no log
        by default; a game may leave out parts of the view its playout bot never reads (the
        world is a sample, so this hides nothing of a real game; it only saves time)."""
        return self.seen(state, seat)

    def playout_over(self, start: State, state: State) -> bool:
        """May a playout from ``start`` stop at ``state`` and be scored by ``evaluate`` before
        the horizon (e.g. a season ended and later ones are dealt afresh)? By default no."""
        return False

    def copy_state(self, state: State) -> State:
        """A copy of ``state`` that ``evolve`` may mutate (games may do it faster): a state is
        JSON data, so its JSON round trip, as a snapshot gives it back."""
        return plain_copy(state)

    def evaluate(self, state: State, seat: Seat) -> float:
        """How good ``state`` is for ``seat``, in [0, 1]: its share of the win once the game
        is over. A game may override it to score a state a playout stops short of the end."""
        result = self.result(state)
        if result is None:
            return 0.5
        winners = result.get("winners", [])
        return 1.0 / len(winners) if seat in winners else 0.0

    # --- helpers ------------------------------------------------------------------------------

    def shown_options(self, options: dict[str, Any]) -> dict[str, Any]:
        """``options`` as anyone may see them: without the test-only ones."""
        if not self.test_only_options:
            return options
        return {k: v for k, v in options.items() if k not in self.test_only_options}

    def load_options(self, raw: dict[str, Any] | None) -> dict[str, Any]:
        """Validate options and fill in defaults (raises marshmallow ValidationError)."""
        return self.options().load(raw or {})

    def fold(self, events: Iterable[Event], state: State | None = None) -> State:
        state = self.initial_state() if state is None else state
        for event in events:
            state = self.evolve(state, event)
        return state

    def step(self, state: State, command: Command, seat: Seat,
             rng: Rng) -> tuple[State, list[Event]]:
        """Decide on a copy and fold the events in: a convenience for tests, bots and self-play."""
        events = self.decide(state, command, seat, rng)
        return self.fold(events, copy.deepcopy(state)), events


def plain_copy(value: Any) -> Any:
    """A copy of JSON data as a JSON round trip gives it (tuples become lists, keys strings),
    as a snapshot restores it; orjson's is several times faster than ``copy.deepcopy`` and the
    stdlib's round trip, which takes what orjson refuses."""
    try:
        return orjson.loads(orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS))
    except TypeError:  # orjson.JSONEncodeError: e.g. an integer beyond 64 bits
        return json.loads(json.dumps(value))


def ids_in(data: Any) -> set[str]:
    """Every string in a JSON-like payload (card ids are strings, so this holds every card id
    the payload names; callers intersect it with a set of ids)."""
    found: set[str] = set()
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.add(item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return found


def random_bot(seen: Seen, rng: Rng) -> Command:
    """The ``random`` level: uniform over the legal commands."""
    return seen.legal[rng.below(len(seen.legal))]


def ensure(condition: bool, code: str, message: str, params: dict[str, Any] | None = None,
           **details: Any) -> None:
    """Raise Rejected(code) unless ``condition`` holds: keeps rule checks one line each.
    ``message`` is a template over ``details`` and ``params`` (see Rejected)."""
    if not condition:
        raise Rejected(code, message, details, params)


def next_seat(seat: Seat, seats: int) -> Seat:
    return (seat + 1) % seats
