"""Mask Men rules (shared/rules/maskmen.md): setup, decide, evolve, pending, legal and default
commands, result. Views live in ``views.py``, bots in ``bot.py``, the strength order in
``knowledge.py``."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from games.core import (
    Bot,
    Command,
    Event,
    Prompt,
    Rejected,
    Rng,
    Seat,
    Seen,
    State,
    Text,
    Viewer,
    ensure,
)
from games.expert import SearchingGame
from games.maskmen import bot, knowledge, shapes, views
from games.maskmen.data import DATA, OPTIONS, WRESTLER_OF, card_key, wrestler_of
from games.maskmen.model import (
    CARDS_PLAYED,
    COMMANDS,
    GAME_ENDED,
    GAME_STARTED,
    GAVE_UP,
    GIVE_UP,
    PLAY,
    ROUND_ENDED,
    SEASON_DEALT,
    SEASON_ENDED,
    WENT_OUT,
    MaskmenOptions,
    new_round,
    started_state,
)

MAX_PLAY = DATA.max_cards_per_play


def deal(edition: str, seats: int, season: int, leader: Seat, rng: Rng) -> Event:
    """A fresh season's deal (§2): shuffle the whole deck, hands per the table, the rest aside."""
    deck = rng.shuffled(DATA.deck(edition))
    size = DATA.editions[edition].hand_size(seats)
    hands = [sorted(deck[i * size:(i + 1) * size], key=card_key) for i in range(seats)]
    set_aside = sorted(deck[seats * size:], key=card_key)
    return Event(SEASON_DEALT, {"season": season, "leader": leader, "hands": hands,
                                "set_aside": set_aside})


def ranking(totals: list[int]) -> list[list[Seat]]:
    """Seats grouped by total, best first; tied seats share a group (and a win, §7)."""
    groups: dict[int, list[Seat]] = {}
    for seat, total in enumerate(totals):
        groups.setdefault(total, []).append(seat)
    return [groups[t] for t in sorted(groups, reverse=True)]


def _next_clockwise(state: State, after: Seat, eligible: Callable[[Seat], bool]) -> Seat | None:
    n = state["seats"]
    for step in range(1, n + 1):
        seat = (after + step) % n
        if eligible(seat):
            return seat
    return None


def _next_follower(state: State, after: Seat, hand_sizes: list[int], given_up: list[Seat],
                   last: Seat) -> Seat | None:
    """Who answers the play of ``last`` after ``after`` acted: clockwise, skipping those who gave
    up and those with no cards (§5). None when nobody is left: the round is over."""
    return _next_clockwise(state, after, lambda s: s != last and hand_sizes[s] > 0
                           and s not in given_up)


def _next_leader(state: State, last: Seat, hand_sizes: list[int]) -> Seat:
    """The last player to play leads the next round (§5); if that play emptied their hand, the
    next player clockwise who still holds cards (§5, PROPOSED)."""
    if hand_sizes[last] > 0:
        return last
    return _next_clockwise(state, last, lambda s: hand_sizes[s] > 0)


class MaskMen(SearchingGame):
    name = "maskmen"
    title = "Mask Men"
    min_seats = DATA.min_players
    max_seats = DATA.max_players
    spec = "shared/rules/maskmen.md"
    options = MaskmenOptions
    commands = COMMANDS
    view_shape = shapes.VIEW
    result_shape = shapes.RESULT
    event_shapes = shapes.EVENTS
    undo_barriers = frozenset({SEASON_DEALT})  # a deal reveals each seat's new hand
    bot_levels = ("random", "basic", "expert")
    playouts_per_ms = 2.2  # the expert's budget: 1 / CPU ms per playout (bench/expert_bot.py)
    horizon = 80  # playout decisions at most; a season's end (playout_over) comes first

    # --- setup and evolve ---------------------------------------------------------------------

    def setup(self, seats: int, options: dict[str, Any], rng: Rng) -> list[Event]:
        ensure(self.min_seats <= seats <= self.max_seats, "bad_seat_count",
               "Mask Men is for {min} to {max} players.", seats=seats,
               params={"min": self.min_seats, "max": self.max_seats})
        edition = options.get("edition", OPTIONS.edition)
        two = seats == 2
        started = Event(GAME_STARTED, {
            "seats": seats, "edition": edition,
            "seasons": None if two else DATA.scoring.seasons,
            "wins_needed": DATA.scoring.two_player_season_wins if two else None,
        })
        # §3: season 1 is led by whoever most recently watched pro wrestling; we draw it.
        leader = rng.below(seats)
        return [started, deal(edition, seats, 1, leader, rng)]

    def evolve(self, state: State, event: Event) -> State:
        if event.type == GAME_STARTED:
            d = event.data
            return started_state(d["seats"], d["edition"], d["seasons"], d["wins_needed"])
        apply = _EVOLVE.get(event.type)
        if apply is not None:
            apply(state, event.data)
        return state

    # --- decide -------------------------------------------------------------------------------

    def decide_command(self, state: State, command: Command, seat: Seat, rng: Rng) -> list[Event]:
        if command["type"] == PLAY:
            return self._decide_play(state, self._copies(state, command, seat), seat, rng)
        return self._decide_give_up(state, seat)

    @staticmethod
    def _copies(state: State, command: Command, seat: Seat) -> list[str]:
        """The card ids a play takes: those named, or ``count`` copies of ``wrestler`` from the
        hand (the first in hand order: only the holder and the auditor ever see which)."""
        if command.get("cards") is not None:
            return list(command["cards"])
        v, k = command.get("wrestler"), command.get("count")
        ensure(v in DATA.wrestler_ids, "unknown_wrestler", "Name a wrestler to play.",
               wrestler=v, known=list(DATA.wrestler_ids))
        ensure(k is not None and k > 0, "no_cards", "Play at least one card.")
        held = [c for c in state["hands"][seat] if WRESTLER_OF[c] == v]
        ensure(len(held) >= k, "not_in_hand", "You hold {held} {wrestler}, not {k}.",
               wrestler=v, held=len(held), params={"k": k})
        return held[:k]

    def _decide_play(self, state: State, cards: list[str], seat: Seat, rng: Rng) -> list[Event]:
        hand = state["hands"][seat]
        ensure(len(cards) > 0, "no_cards", "Play at least one card.")
        ensure(len(set(cards)) == len(cards), "duplicate_cards", "A card can be played only once.")
        missing = [c for c in cards if c not in hand]
        ensure(not missing, "not_in_hand", "Those cards are not in your hand.", cards=missing)
        wrestlers = {wrestler_of(c) for c in cards}
        ensure(len(wrestlers) == 1, "mixed_wrestlers", "A play is cards of one wrestler (§5).",
               wrestlers=sorted(wrestlers))
        v, k = wrestlers.pop(), len(cards)
        ensure(k <= MAX_PLAY, "too_many_cards",
               "Nobody may ever play more than {max} cards (§5).", count=k,
               params={"max": MAX_PLAY})
        proved = self._check_play(state, v, k)
        events = [Event(CARDS_PLAYED, {
            "seat": seat, "wrestler": v, "count": k, "cards": sorted(cards, key=card_key),
            "debuted": v not in state["debuted"], "proved": proved,
        })]
        sizes = [len(h) for h in state["hands"]]
        sizes[seat] -= k
        if sizes[seat] == 0:
            events.extend(self._went_out(state, seat, sizes, rng))
            if events[-1].type != WENT_OUT:
                return events  # the season (and maybe the game) ended with this play
        rnd = state["round"]
        if _next_follower(state, seat, sizes, rnd["given_up"], seat) is None:
            events.append(Event(ROUND_ENDED, {"winner": seat,
                                              "leader": _next_leader(state, seat, sizes)}))
        return events

    def _check_play(self, state: State, v: str, k: int) -> list[str] | None:
        """The lead and follow rules (§5, §8); returns the proof a +1 play makes, if any."""
        current = state["round"]["current"]
        if current is None:
            ensure(k == 1 or v in state["debuted"], "undebuted_needs_one",
                   "{wrestler} has not debuted this season: lead it with exactly 1 card (§5).",
                   wrestler=v)
            return None
        w, n = current["wrestler"], current["count"]
        ensure(v != w, "same_wrestler", "{w} is the wrestler to beat; play another (§5).",
               params={"w": w})
        beats = state["beats"]
        if knowledge.stronger(beats, v, w):
            ensure(k == n, "wrong_count",
                   "{v} is known stronger than {w}: play exactly {expected} (§5).", expected=n,
                   params={"v": v, "w": w})
            return None
        if knowledge.stronger(beats, w, v):
            raise Rejected("weaker_wrestler", "{wrestler} is known weaker than {to_beat} (§5).",
                           {"wrestler": v, "to_beat": w})
        ensure(n < MAX_PLAY, "needs_four_cards",
               "{wrestler} vs {to_beat} is undetermined and proving it would take {k} cards (§5).",
               wrestler=v, to_beat=w, params={"k": n + 1})
        ensure(k == n + 1, "wrong_count",
               "{v} vs {w} is undetermined: prove it with exactly {expected} cards (§5).",
               expected=n + 1, params={"v": v, "w": w})
        return [v, w]

    def _went_out(self, state: State, seat: Seat, sizes: list[int], rng: Rng) -> list[Event]:
        """§7: the player takes the best marker left; the second-to-last out ends the season."""
        place = len(state["out"]) + 1
        awards = DATA.scoring.out_awards
        points = awards[place - 1] if state["seasons"] and place <= len(awards) else 0
        events = [Event(WENT_OUT, {"seat": seat, "place": place, "points": points})]
        holders = [s for s in range(state["seats"]) if sizes[s] > 0]
        if len(holders) > 1:
            return events
        # maskmen.md decisions: the season ends the moment the second-to-last player goes out.
        last = holders[0]
        first = state["out"][0] if state["out"] else seat
        season_points = [0] * state["seats"]
        if state["seasons"]:
            for place_, s in enumerate([*state["out"], seat], start=1):
                season_points[s] = awards[place_ - 1] if place_ <= len(awards) else 0
            season_points[last] = DATA.scoring.last_player
        events.append(Event(SEASON_ENDED, {"season": state["season"], "first": first,
                                           "last": last, "points": season_points}))
        totals = self._totals_after(state, seat, points, last, first)
        if self._game_over(state, totals):
            return [*events, Event(GAME_ENDED, self._result_data(totals))]
        # maskmen.md decisions: the player who took -1 last season leads the next one.
        return [*events, deal(state["edition"], state["seats"], state["season"] + 1, last, rng)]

    def _totals_after(self, state: State, seat: Seat, points: int, last: Seat,
                      first: Seat) -> list[int]:
        """The game totals once this season is scored: markers, or seasons won with 2 players."""
        if state["seasons"]:
            totals = list(state["scores"])
            totals[seat] += points
            totals[last] += DATA.scoring.last_player
            return totals
        wins = list(state["season_wins"])
        wins[first] += 1
        return wins

    def _game_over(self, state: State, totals: list[int]) -> bool:
        if state["seasons"]:
            return state["season"] >= state["seasons"]  # §3: 4 seasons for 3-6 players
        return max(totals) >= state["wins_needed"]  # §3: 2 players, first to win 3 seasons

    @staticmethod
    def _result_data(totals: list[int]) -> dict[str, Any]:
        ranks = ranking(totals)
        return {"winners": ranks[0], "scores": {str(s): t for s, t in enumerate(totals)},
                "ranking": ranks}

    def _decide_give_up(self, state: State, seat: Seat) -> list[Event]:
        rnd = state["round"]
        current = rnd["current"]
        ensure(current is not None, "leader_must_play", "The leader must play (§5).")
        events = [Event(GAVE_UP, {"seat": seat})]
        sizes = [len(h) for h in state["hands"]]
        last = current["seat"]
        if _next_follower(state, seat, sizes, [*rnd["given_up"], seat], last) is None:
            events.append(Event(ROUND_ENDED, {"winner": last,
                                              "leader": _next_leader(state, last, sizes)}))
        return events

    # --- whose turn, what is legal ------------------------------------------------------------

    def pending(self, state: State) -> dict[Seat, Prompt]:
        if not state or state["result"] is not None or state["turn"] is None:
            return {}
        if state["round"]["current"] is None:
            return {state["turn"]: Prompt((PLAY,), "turn", "lead a wrestler")}
        return {state["turn"]: Prompt((PLAY, GIVE_UP), "turn", "beat the play or give up")}

    def legal_commands(self, state: State, seat: Seat) -> list[Command]:
        """Every legal play: one command per (wrestler, count), naming no copy (they are
        interchangeable, and which ones a seat holds is its own secret), plus give up."""
        if state.get("turn") != seat or state["result"] is not None:
            return []
        by_wrestler: dict[str, list[str]] = {}
        for card in state["hands"][seat]:
            by_wrestler.setdefault(WRESTLER_OF[card], []).append(card)
        current = state["round"]["current"]
        out: list[Command] = [
            {"type": PLAY, "wrestler": v, "count": k}
            for v, held in by_wrestler.items()
            for k in _legal_counts(state, current, v) if k <= len(held)
        ]
        if current is not None:
            out.append({"type": GIVE_UP})
        return out

    def default_command(self, state: State, seat: Seat) -> Command:
        """For turn clocks: give up when following; lead one card (the first in hand)."""
        if state["round"]["current"] is not None:
            return {"type": GIVE_UP}
        return {"type": PLAY, "wrestler": WRESTLER_OF[state["hands"][seat][0]], "count": 1}

    def result(self, state: State) -> dict[str, Any] | None:
        return state.get("result") if state else None

    # --- views and bots -----------------------------------------------------------------------

    def view(self, state: State, viewer: Viewer) -> dict[str, Any]:
        return views.view(state, viewer, self.pending(state))

    def redact(self, event: Event, viewer: Viewer) -> Event | None:
        return views.redact(event, viewer)

    def secrets(self, state: State, viewer: Viewer) -> set[str]:
        return views.secrets(state, viewer)

    def seats_in_play(self, state: State) -> int:
        return state.get("seats", 0) if state else 0

    def explain(self, state: State, command: Command, seat: Seat) -> list[str]:
        current = state["round"]["current"]
        if current is None:
            return [Text("Seat {seat} led the round; an undebuted wrestler leads with 1 card "
                         "(§5).", seat=seat)]
        return [Text("Seat {seat} answered {count} {wrestler}: the same count for a "
                     "known-stronger wrestler, one more for an undetermined one (§5).", seat=seat,
                     count=current["count"], wrestler=current["wrestler"])]

    def sample_state(self, seen: Seen, rng: Rng) -> State:
        return bot.sample_state(seen, rng)

    def playout_seen(self, state: State, seat: Seat) -> Seen:
        return Seen(seat, views.view(state, seat, self.pending(state), display=False),
                    self.legal_commands(state, seat))

    def playout_over(self, start: State, state: State) -> bool:
        """A season's end settles what a decision in it can change: the next is dealt afresh
        (§3), so the expert's playouts stop there and ``evaluate`` scores the standing."""
        return state["season"] != start["season"] or state["result"] is not None

    def copy_state(self, state: State) -> State:
        """A copy ``evolve`` may mutate (each list it appends to or edits), cheaper than a
        deep copy: the expert copies a world once per playout."""
        clone = dict(state)
        clone["hands"] = [list(h) for h in state["hands"]]
        for key in ("played", "debuted", "proofs", "out", "scores", "season_wins", "history"):
            clone[key] = list(state[key])
        clone["beats"] = {w: list(b) for w, b in state["beats"].items()}
        rnd = state["round"]
        clone["round"] = {**rnd, "plays": list(rnd["plays"]), "given_up": list(rnd["given_up"])}
        return clone

    def evaluate(self, state: State, seat: Seat) -> float:
        """The win share once over. Before that, with 2 players, the chance to win 3 seasons
        first (§3) if this season is won with a chance read from the hand sizes and later ones
        are coin flips; with more, the marker standing and the hand sizes (§7)."""
        if state["result"] is not None:
            return super().evaluate(state, seat)
        others = [s for s in range(state["seats"]) if s != seat]
        sizes = [len(h) for h in state["hands"]]
        race = (min(sizes[s] for s in others) - sizes[seat]) / 5
        if state["seasons"]:
            totals = state["scores"]
            lead = totals[seat] - max(totals[s] for s in others)
            return 0.5 + 0.5 * math.tanh(lead + race)
        wins, need = state["season_wins"], state["wins_needed"]
        mine, theirs = need - wins[seat], need - wins[others[0]]
        this_season = 0.5 + 0.5 * math.tanh(race)
        return (this_season * _match_chance(mine - 1, theirs)
                + (1 - this_season) * _match_chance(mine, theirs - 1))

    def bot(self, level: str) -> Bot:
        if level == "basic":
            return bot.basic_bot
        return super().bot(level)


def _legal_counts(state: State, current: dict | None, v: str) -> tuple[int, ...]:
    """The card counts ``v`` may be played with now (§8, engine legality)."""
    if current is None:
        return tuple(range(1, MAX_PLAY + 1)) if v in state["debuted"] else (1,)
    w, n = current["wrestler"], current["count"]
    if v == w:
        return ()
    relation = knowledge.relation(state["beats"], v, w)
    if relation == ">":
        return (n,)
    if relation == "<" or n >= MAX_PLAY:
        return ()
    return (n + 1,)


def _match_chance(mine: int, theirs: int) -> float:
    """The chance to win ``mine`` more seasons before the rival wins ``theirs``, each season a
    coin flip (the 2-player game, §3)."""
    if mine <= 0:
        return 1.0
    if theirs <= 0:
        return 0.0
    # The match is won at the season that brings our count to ``mine`` with k rival wins first.
    return sum(math.comb(mine - 1 + k, k) / 2 ** (mine + k) for k in range(theirs))


# --- evolve, one function per event --------------------------------------------------------------

def _season_dealt(state: State, d: dict) -> None:
    state["season"] = d["season"]
    state["hands"] = [list(h) for h in d["hands"]]
    state["set_aside"] = list(d["set_aside"])
    state["played"] = []
    state["debuted"] = []
    state["proofs"] = []
    state["beats"] = knowledge.empty(DATA.wrestler_ids)
    state["out"] = []
    state["round"] = new_round(1, d["leader"])
    state["turn"] = d["leader"]


def _cards_played(state: State, d: dict) -> None:
    seat, v, cards = d["seat"], d["wrestler"], d["cards"]
    hand = state["hands"][seat]
    for card in cards:
        hand.remove(card)
    state["played"].extend(cards)
    if v not in state["debuted"]:
        state["debuted"].append(v)
    if d["proved"]:
        winner, loser = d["proved"]
        state["proofs"].append([winner, loser])
        knowledge.add_proof(state["beats"], winner, loser)
    rnd = state["round"]
    rnd["plays"].append({"seat": seat, "wrestler": v, "cards": list(cards),
                         "proved": d["proved"]})
    rnd["current"] = {"seat": seat, "wrestler": v, "count": len(cards)}
    sizes = [len(h) for h in state["hands"]]
    state["turn"] = _next_follower(state, seat, sizes, rnd["given_up"], seat)


def _gave_up(state: State, d: dict) -> None:
    rnd = state["round"]
    rnd["given_up"].append(d["seat"])
    last = rnd["current"]["seat"] if rnd["current"] else d["seat"]
    sizes = [len(h) for h in state["hands"]]
    state["turn"] = _next_follower(state, d["seat"], sizes, rnd["given_up"], last)


def _round_ended(state: State, d: dict) -> None:
    state["round"] = new_round(state["round"]["number"] + 1, d["leader"])
    state["turn"] = d["leader"]


def _went_out(state: State, d: dict) -> None:
    state["out"].append(d["seat"])
    state["scores"][d["seat"]] += d["points"]


def _season_ended(state: State, d: dict) -> None:
    if state["seasons"]:
        state["scores"][d["last"]] += d["points"][d["last"]]
    else:
        state["season_wins"][d["first"]] += 1
    state["history"].append({"season": d["season"], "first": d["first"], "last": d["last"],
                             "points": list(d["points"])})
    state["turn"] = None


def _game_ended(state: State, d: dict) -> None:
    state["result"] = {"winners": list(d["winners"]), "scores": dict(d["scores"]),
                       "ranking": [list(g) for g in d["ranking"]]}
    state["turn"] = None


_EVOLVE: dict[str, Callable[[State, dict], None]] = {
    SEASON_DEALT: _season_dealt,
    CARDS_PLAYED: _cards_played,
    GAVE_UP: _gave_up,
    ROUND_ENDED: _round_ended,
    WENT_OUT: _went_out,
    SEASON_ENDED: _season_ended,
    GAME_ENDED: _game_ended,
}

GAME = MaskMen()
