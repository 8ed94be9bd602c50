"""How `tablestream play` puts a game into words: the table as a person reads it (hands, the
table, scores, whose turn), what the others just did, and each choice explained, with players'
names instead of seat numbers, in the terminal's language (``LOCALE``, from LANG: issue 28). It
reads only what the API returns: the client still knows no rules. A game without a page of its
own here is shown in a generic layout that works for any view.
"""

from __future__ import annotations

import functools
import re
import time
from collections.abc import Callable
from typing import Any

from service.app import i18n

Game = dict[str, Any]
LOCALE = i18n.DEFAULT_LOCALE  # set by `tablestream play` from the terminal's LANG


def _(message: str) -> str:
    """``message`` in the terminal's language (English when its catalog lacks it)."""
    return i18n.gettext(message, LOCALE)


def ngettext(singular: str, plural: str, n: int) -> str:
    return i18n.translations(LOCALE).ngettext(singular, plural, n)

# Keys that refer to seats, in views, events and commands: shown as the seat's player name.
# ("turn" is left out: some games count turns with it.)
SEAT_KEYS = frozenset({"seat", "target", "by", "leader", "owner", "winner", "redirect",
                       "first", "capturer", "defender", "attacker", "challenger", "from_seat"})


def names(game: Game) -> list[str]:
    """A name per seat: the player's name, "<level> bot" for a bot, "you" marked."""
    out = []
    for seat in game["seats"]:
        if seat.get("kind") == "bot" or seat.get("bot"):
            name = _("{level} bot").format(level=seat.get("bot") or seat.get("level"))
        else:
            name = seat.get("name") or _("seat {seat}").format(seat=seat["seat"])
        if seat["seat"] == game.get("you"):
            name += _(" (you)")
        out.append(name)
    return out


def seat_name(seat: Any, who: list[str]) -> str:
    return who[seat] if isinstance(seat, int) and 0 <= seat < len(who) else str(seat)


def words(identifier: str) -> str:
    """``play_pirate`` -> ``play pirate``, in the terminal's language: the catalog's words for
    a game's event type, command type or field name (service/clients/play_words.py), else a
    game's name for the thing the id names (games.po: ``fire_dragon``, ``fp``), else the plain
    words."""
    plain = identifier.replace("_", " ")
    if LOCALE == i18n.DEFAULT_LOCALE:
        return plain
    found = _(plain.strip())
    return found if found != plain.strip() else _(identifier)


# --- cards -----------------------------------------------------------------------------------

def describe_card(game_name: str, card: Any) -> str:
    """A card id as a player would name it (Loot's ids carry their meaning)."""
    text = str(card)
    if game_name == "wotr":
        from games.wotr.data import CARDS
        if text in CARDS:
            found = CARDS[text]
            return _("{event} ({title}, initiative {n})").format(
                event=name_of(f"wotr.event.{text}", found.event),
                title=name_of(f"wotr.combat.{text}", found.title), n=found.initiative)
        return text
    if game_name == "loot":
        if match := re.fullmatch(r"M(\d+)[a-z]?", text):
            return _("{card} (merchant, {gold} gold)").format(card=text, gold=match[1])
        if match := re.fullmatch(r"P-(\w+)-(\d)[a-z]?", text):
            return ngettext("{card} ({colour} pirate, {n} skull)",
                            "{card} ({colour} pirate, {n} skulls)", int(match[2])).format(
                card=text, colour=_colour(match[1]), n=match[2])
        if match := re.fullmatch(r"C-(\w+)", text):
            return _("{card} ({colour} captain)").format(card=text, colour=_colour(match[1]))
        if text == "ADM":
            return _("{card} (the admiral)").format(card=text)
    if game_name == "faker_blue":
        return _faker_blue_card(text)
    if game_name == "magblast":
        return _magblast_card(text)
    return text


def _faker_blue_card(card: str) -> str:
    """``vampire-3`` -> ``vampire-3 (Vampire)``, a kind (``vampire``, as a command names the
    card it uses) -> ``Vampire``: as the cards name it."""
    from games.faker_blue.data import KINDS, kind_of
    found = KINDS.get(kind_of(card))
    if found is None:
        return card
    named = name_of(f"faker_blue.card.{found.kind}", found.name)
    return named if card == found.kind else f"{card} ({named})"


def _magblast_card(card: str) -> str:
    """An action card by its name, a fleet ship by its name and class, a command ship (a
    race id) by its name."""
    from games.magblast.data import ACTIONS, COMMAND_SHIPS, SHIPS
    if card in ACTIONS:
        action = ACTIONS[card]
        return f"{card} ({name_of(f'magblast.action.{action.kind}', action.name)})"
    if card in SHIPS:
        ship = SHIPS[card]
        return (f"{card} ({name_of(f'magblast.ship.{card}', ship.name)}, "
                f"{name_of(f'magblast.class.{ship.cls}', ship.cls.capitalize())})")
    if card in COMMAND_SHIPS:
        return name_of(f"magblast.command_ship.{card}", COMMAND_SHIPS[card].name)
    return card


def name_of(context: str, english: str) -> str:
    """A game's name for a thing (games.po: card, ship, region), in the terminal's language."""
    return english if LOCALE == i18n.DEFAULT_LOCALE else \
        i18n.translations(LOCALE).pgettext(context, english)


def _colour(colour: str) -> str:
    return colour if LOCALE == i18n.DEFAULT_LOCALE else \
        name_of(f"loot.colour.{colour.lower()}", colour.capitalize())


# --- the table -------------------------------------------------------------------------------

def render(game: Game) -> list[str]:
    """The whole table: who is who and whose turn, then the game's own page."""
    who = names(game)
    lines = [_("== {game} · version {version} · {status}").format(
        game=game["game"], version=game["version"], status=_(game["status"]))]
    lines.append(_("Players: ") + ", ".join(f"{who[i]}" for i in range(len(who))))
    waiting = []
    for key, prompt in sorted(game.get("pending", {}).items()):
        seat = int(key)
        clock = ""
        if prompt.get("deadline"):
            left = max(0, round(prompt["deadline"] / 1000 - time.time()))
            clock = _(", {clock} left").format(clock=f"{left // 60}:{left % 60:02d}")
        label = i18n.say(prompt.get("label") or "", LOCALE)  # the server's words, or ours
        if seat == game.get("you"):
            doing = f": {label}" if label and label not in ("your turn", _("your turn")) else ""
            waiting.append(_("YOUR TURN") + f"{doing}{clock}")
        else:
            waiting.append(_("waiting for {player}").format(player=seat_name(seat, who)) + clock)
    if waiting:
        lines.append("; ".join(waiting))
    view = game.get("view") or {}
    page = PAGES.get(game["game"], generic_page)
    lines += page(view, who, game["game"])
    return lines


def loot_page(view: dict[str, Any], who: list[str], name: str) -> list[str]:
    lines = []
    if view.get("hand") is not None:
        lines.append(_("Your hand: ") + ", ".join(describe_card(name, c) for c in view["hand"]))
    lines.append(_("Deck: {n} cards; hands: ").format(n=view.get("deck_count", "?")) + ", ".join(
        f"{seat_name(i, who)} {n}" for i, n in enumerate(view.get("hand_counts", []))))
    ships = view.get("ships", [])
    lines.append(_("At sea:") if ships else _("At sea: no merchant ships"))
    for ship in ships:
        attackers = [_("{player} {n} skulls").format(player=seat_name(i, who), n=s)
                     for i, s in enumerate(ship.get("strengths", [])) if s]
        lines.append("  " + _("{merchant} ({gold} gold) of {owner}").format(
            merchant=ship["merchant"], gold=ship["gold"], owner=seat_name(ship["owner"], who))
                     + (_(", attacked by {players}").format(players=", ".join(attackers))
                        if attackers else "")
                     + (_("; leading: {player}").format(player=seat_name(ship["leader"], who))
                        if ship.get("leader") is not None else ""))
    lines.append(_("Ships won: ") + ", ".join(f"{seat_name(i, who)} {n}"
                                          for i, n in enumerate(view.get("won_counts", []))))
    return lines


def maskmen_page(view: dict[str, Any], who: list[str], name: str) -> list[str]:
    lines = []
    hand = view.get("hand")
    if isinstance(hand, list):
        groups: dict[str, list[str]] = {}
        for card in hand:
            colour, _sep, number = str(card).partition("-")
            groups.setdefault(colour, []).append(number or colour)
        lines.append(_("Your hand: ") + "; ".join(f"{c} x{len(n)}" for c, n in groups.items()))
    elif isinstance(hand, dict):
        lines.append(_("Your hand: ") + "; ".join(f"{c} x{n}" for c, n in hand.items() if n))
    rnd = view.get("round") or {}
    plays = rnd.get("plays") or []
    if plays:
        lines.append(_("This round: ") + "; ".join(_play_text(p, who) for p in plays))
    if view.get("scores") is not None:
        lines.append(_("Scores: ") + ", ".join(f"{seat_name(i, who)} {s}"
                                            for i, s in enumerate(view["scores"])))
    return lines


def _play_text(play: Any, who: list[str]) -> str:
    if isinstance(play, dict):
        seat = play.get("seat")
        rest = {k: v for k, v in play.items() if k != "seat"}
        return f"{seat_name(seat, who)}: {_compact(rest, who, 'maskmen')}"
    return _compact(play, who, "maskmen")


def faker_blue_page(view: dict[str, Any], who: list[str], name: str) -> list[str]:
    lines = [_("Health: ") + ", ".join(
        f"{seat_name(i, who)} {h}" + ("" if view.get("alive", [True] * 9)[i] else _(" (out)"))
        for i, h in enumerate(view.get("health", [])))]
    if view.get("hand") is not None:
        lines.append(_("Your hand: ") + ", ".join(describe_card(name, c) for c in view["hand"]))
    lines.append(_("Supply: {supply}; deck: {deck}; step: {step}").format(
        supply=view.get("supply"), deck=view.get("deck"), step=words(str(view.get("step", "")))))
    if view.get("public"):
        lines.append(_("On the table: ") + _compact(view["public"], who, name))
    return lines


def magblast_page(view: dict[str, Any], who: list[str], name: str) -> list[str]:
    """Mag Blast: the phase, each player's command ship and zones with every ship's damage
    against its hull, your hand (and the fleet you were dealt while placing), the decks, then
    whatever is under way (an attack's chain, a direct hit, a proposal) as a table."""
    from games.magblast.data import ZONE_NAME, ZONES, hull
    phase = str(view.get("phase", ""))
    lines = [_("Phase: {phase}").format(phase=name_of(f"magblast.phase.{phase}", phase))]
    damage = {ship: sum(hit for _card, hit in cards)
              for ship, cards in (view.get("under") or {}).items()}

    def ship_text(ship: str) -> str:  # a command or fleet ship, its damage against its hull
        return f"{describe_card(name, ship)} {damage.get(ship, 0)}/{hull(ship)}"

    alive, fleets = view.get("alive") or [], view.get("zones") or []
    for seat, race in enumerate(view.get("races") or []):
        out = "" if seat >= len(alive) or alive[seat] else _(" (out)")
        lines.append(f"{seat_name(seat, who)}{out}: {ship_text(race)}")
        zones = fleets[seat] if seat < len(fleets) else {}
        for zone in ZONES:
            if zones.get(zone):
                lines.append(f"  {name_of(f'magblast.zone.{zone}', ZONE_NAME[zone])}: "
                             + "; ".join(ship_text(ship) for ship in zones[zone]))
    if view.get("hand") is not None:
        lines.append(_("Your hand: ") + (", ".join(describe_card(name, c) for c in view["hand"])
                                         or _("none")))
    if view.get("dealt"):
        lines.append(_("Your fleet to place: ") + ", ".join(
            describe_card(name, s) for s in view["dealt"]))
    lines.append(_("Action deck: {actions}; fleet deck: {fleet}; hands: ").format(
        actions=view.get("action_deck", "?"), fleet=view.get("fleet_deck", "?")) + ", ".join(
        f"{seat_name(i, who)} {n}" for i, n in enumerate(view.get("hand_counts", []))))
    for key in ("chain", "dh", "proposal", "placing", "effects", "returning"):
        if view.get(key):
            lines += _table_lines(key, view[key], who, name, 0)
    return lines


def wotr_page(view: dict[str, Any], who: list[str], name: str) -> list[str]:
    """War of the Ring: the view's own summary (round, dice, VP, battle, hand, every army)."""
    lines = [line for line in view.get("summary") or [] if not line.startswith("hand:")]
    if view.get("hand") is not None:
        lines.insert(2, _("Your hand: ") + ("; ".join(describe_card(name, c)
                                                      for c in view["hand"]) or _("no cards")))
    return lines


def generic_page(view: dict[str, Any], who: list[str], name: str) -> list[str]:
    """Any view as an indented table: scalars on one line, short lists inline."""
    lines: list[str] = []
    for key, value in view.items():
        if key in ("viewer", "options"):
            continue
        lines += _table_lines(key, value, who, name, 0)
    return lines[:80]


def _table_lines(key: str, value: Any, who: list[str], name: str, depth: int) -> list[str]:
    pad = "  " * depth
    if isinstance(value, dict) and value and depth < 2:
        out = [f"{pad}{words(key)}:"]
        for sub, inner in value.items():
            out += _table_lines(str(sub), inner, who, name, depth + 1)
        return out
    return [f"{pad}{words(key)}: {_value(key, value, who, name)}"]


def _value(key: str, value: Any, who: list[str], name: str) -> str:
    if key in SEAT_KEYS:
        return seat_name(value, who)
    if isinstance(value, list) and (key.endswith(("counts", "scores", "health"))
                                    or key in ("vp", "victory_points")):
        return ", ".join(f"{seat_name(i, who)} {v}" for i, v in enumerate(value))
    return _compact(value, who, name)


def _compact(value: Any, who: list[str], name: str, limit: int = 160) -> str:
    if isinstance(value, dict):
        text = ", ".join(f"{words(str(k))} {_value(str(k), v, who, name)}"
                         for k, v in value.items() if v not in (None, [], {}))
    elif isinstance(value, list):
        text = ", ".join(_compact(v, who, name, 40) for v in value) or _("none")
    elif isinstance(value, bool) and LOCALE != i18n.DEFAULT_LOCALE:
        text = _("yes") if value else _("no")
    elif isinstance(value, str):
        text = _named(name, value)
    else:
        text = str(value)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _named(name: str, value: Any) -> str:
    """A value of an event or a command: a card as describe_card names it; in another language
    than English, an id games.po or the catalog names (a region, a nation, a die face) too."""
    text = describe_card(name, value)
    if text == str(value) and isinstance(value, str) and LOCALE != i18n.DEFAULT_LOCALE:
        own = _game_names(LOCALE)
        copy = re.fullmatch(r"(.+)-\d+", value)  # Mag Blast's "beam_blast-4": a copy's number
        text = own.get((name, value)) or (copy and own.get((name, copy[1]))) or words(value)
    return text


@functools.cache
def _game_names(locale: str) -> dict[tuple[str, str], str]:
    """games.po's name of each (game, id) in ``locale``, from its contexts ``<game>.<kind>.<id>``
    (an id two games share, such as ``bomber``, is named by the game it is in)."""
    found: dict[tuple[str, str], str] = {}
    for key, value in getattr(i18n.translations(locale), "_catalog", {}).items():
        if isinstance(key, str) and "\x04" in key and value:
            parts = key.split("\x04", 1)[0].split(".")
            if len(parts) == 3 and not parts[1].endswith("_text"):
                found.setdefault((parts[0], parts[2]), value)
    return found


PAGES: dict[str, Callable[[dict[str, Any], list[str], str], list[str]]] = {
    "loot": loot_page, "maskmen": maskmen_page, "faker_blue": faker_blue_page,
    "magblast": magblast_page, "wotr": wotr_page}


# --- what happened, and what you may do ---------------------------------------------------------

def N_(message: str) -> str:
    return message


PLATFORM = {
    "game_created": N_("The table is set up."),
    "seat_joined": N_("{player} sat down."),
    "game_started": N_("The game begins."),
    "clock_expired": N_("{seat}'s clock ran out: the default move is played."),
    "seat_replaced_by_bot": N_("{seat} timed out too often: a bot plays the seat now."),
    "seat_reclaimed": N_("{seat} is back at the table."),
    "undo_requested": N_("{by} asks to take back to version {to_version}."),
    "undo_accepted": N_("The takeback is accepted."),
    "undo_declined": N_("The takeback is declined."),
    "rewound": N_("The game goes back to version {to_version}."),
    "dispute_opened": N_("A dispute about version {version} is filed."),
    "game_finished": N_("The game is over."),
    "seed_revealed": N_("The game's secret seed is revealed for audit."),
}
STATUSES = (N_("open"), N_("running"), N_("finished"))


def narrate(event: dict[str, Any], game: Game) -> str | None:
    """One event in words (None for ones not worth a line)."""
    who = names(game)
    actor = seat_name(event.get("seat"), who) if event.get("seat") is not None \
        else _("The table")
    data = event.get("data")
    kind = event["type"]
    if kind in PLATFORM:
        fields = {k: seat_name(v, who) if k in SEAT_KEYS else v for k, v in (data or {}).items()}
        by_player = {s.get("player"): who[s["seat"]] for s in game["seats"] if s.get("player")}
        if "player" in fields:
            fields["player"] = by_player.get(fields["player"], _("a player"))
        try:
            return _(PLATFORM[kind]).format(actor=actor, player=fields.get("player", _("someone")),
                                         **{k: v for k, v in fields.items() if k != "player"})
        except (KeyError, IndexError):
            return f"{words(kind).capitalize()}."
    if data is None:
        return f"{actor}: {words(kind)}" + _(" (hidden from you).")
    detail = _compact({k: v for k, v in data.items() if k != "seat"}, who, game["game"])
    return f"{actor}: {words(kind)}" + (f" — {detail}." if detail else ".")


def describe_command(command: dict[str, Any], game: Game) -> str:
    """A legal command as a choice in words."""
    who = names(game)
    args = {k: v for k, v in command.items() if k not in ("type", "expected_version")}
    parts = []
    for key, value in args.items():
        if value is None:
            parts.append(_("no {thing}").format(thing=words(key)))
        elif key in SEAT_KEYS:
            parts.append(f"{words(key)} {seat_name(value, who)}")
        elif key in ("declare", "kind", "choice", "face"):
            parts.append(f"{words(key)} {words(str(value))}")
        elif isinstance(value, dict) and LOCALE != i18n.DEFAULT_LOCALE:
            parts.append(f"{words(key)} {_compact(value, who, game['game'])}")
        elif isinstance(value, list):
            parts.append(f"{words(key)} " + ", ".join(_named(game["game"], v) for v in value))
        else:
            parts.append(f"{words(key)} {_named(game['game'], value)}")
    return words(command["type"]).capitalize() + (": " + "; ".join(parts) if parts else "")


def result_text(game: Game) -> str:
    who = names(game)
    result = game.get("result") or {}
    winners = [seat_name(s, who) for s in result.get("winners", [])]
    scores = result.get("scores") or {}
    score_text = ", ".join(f"{seat_name(int(s), who)} {v}" for s, v in scores.items()
                           if str(s).isdigit())
    summary = i18n.say(result.get("summary"), LOCALE)  # the game's sentence for its end
    won = ", ".join(winners) or "-"
    return (ngettext("Game over. Winner: {winners}", "Game over. Winners: {winners}",
                     len(winners)).format(winners=won)
            + (_(". Scores: {scores}").format(scores=score_text) if score_text else "") + "."
            + (f" {summary}" if summary else ""))
