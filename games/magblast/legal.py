"""The commands a seat may send now, the clock's default, and ``explain``.

Where a move space is large, ``commands`` lists a representative subset and says so here:
setup offers each choice of 4 ships in 4 rotations; a discard offers nothing, each card, or
everything; identical copies (same kind and icons) are offered once; Concussive Blast offers one
spread per target zone. Every command listed is accepted by ``decide``.
"""

from __future__ import annotations

from itertools import combinations

from games.core import Command, Game, Prompt, Rejected, Rng, Seat, State, Text
from games.magblast import chain
from games.magblast.attack import may_fire
from games.magblast.data import (
    ACTIONS,
    ATTACK_MISC,
    BLAST_KINDS,
    DH_EFFECTS,
    SHIPS,
    ZONE_LIMIT,
    ZONES,
    distance,
    kind,
)
from games.magblast.model import (
    ACCEPT_NO_MERCY,
    BLAST,
    CRANIUM,
    DH_EFFECT,
    DIRECT_HIT,
    DISCARD,
    DRAW,
    END_PHASE,
    END_TURN,
    LAUNCH,
    MAKE_SOUND,
    MOVE,
    NO_RESPONSE,
    PLACE_FLEET,
    PLACE_SHIP,
    PLAY_CARD,
    PROPOSE_NO_MERCY,
    RAID_HAND,
    REFUSE_NO_MERCY,
    REINFORCE,
    RESPOND,
    SALVAGE_BLASTS,
    STAY_SILENT,
    SWEEP,
    TRANSFER_BLAST,
)
from games.magblast.table import (
    attackable,
    can_draw_fleet,
    carriers,
    fleet,
    has_power,
    is_minesweeper,
    living,
    locate,
    open_zones,
    pays,
    speed,
    under_effect,
    zone_counts,
)
from games.magblast.turn import over_limit, zone_fix

SOUND = "pew pew"


def _distinct(cards: list[str]) -> list[str]:
    """One card per (kind, icons): identical copies make the same command."""
    seen: dict[tuple[str, tuple[str, ...]], str] = {}
    for card in sorted(cards):
        seen.setdefault((kind(card), ACTIONS[card].icons), card)
    return list(seen.values())


def payments(hand: list[str]) -> list[list[str]]:
    """Every minimal set of hand cards that pays for a reinforcement (at most 3 cards)."""
    paying = [c for c in _distinct(hand) if ACTIONS[c].icons]
    out = []
    for size in (1, 2, 3):
        for combo in combinations(paying, size):
            cards = list(combo)
            if pays(cards) and all(not pays([c for c in cards if c != x]) for x in cards):
                out.append(cards)
    return out


def _targets(state: State, seat: Seat) -> list[tuple[Seat, str, str | None]]:
    """(owner, ship, zone) of everything this seat may attack (zone None: command ship)."""
    out = []
    for other in living(state):
        if not attackable(state, seat, other) or under_effect(state, other, "asteroids"):
            continue
        out += [(other, ship, zone) for ship, zone in fleet(state, other)]
        out.append((other, state["races"][other], None))
    return out


def _reachable(state: State, zone: str, owner: Seat, tzone: str | None) -> bool:
    return tzone == zone if tzone is not None else not state["zones"][owner][zone]


def commands(state: State, seat: Seat, prompt: Prompt | None) -> list[Command]:
    if prompt is None:
        return []
    kinds = prompt.kinds
    hand = state["hands"][seat]
    out: list[Command] = []
    # Between the deal's events (a replay may stop there) the fleet draw is not dealt yet.
    if PLACE_FLEET in kinds and state["dealt"]:
        for four in combinations(state["dealt"][seat], 4):
            for r in range(4):
                rotated = four[r:] + four[:r]
                out.append({"type": PLACE_FLEET, "zones": dict(zip(ZONES, rotated, strict=True))})
    if ACCEPT_NO_MERCY in kinds:
        if not over_limit(state, state["turn"]):
            out.append({"type": ACCEPT_NO_MERCY})
        out.append({"type": REFUSE_NO_MERCY})
    if MAKE_SOUND in kinds:
        out += [{"type": MAKE_SOUND, "sound": SOUND}, {"type": STAY_SILENT}]
    if RESPOND in kinds:
        out += [{"type": RESPOND, "card": c}
                for c in _distinct(chain.answers(state, seat).get("respond", []))]
    if CRANIUM in kinds and "cranium" in chain.answers(state, seat):
        ones = [c for c in _distinct(hand) if len(ACTIONS[c].icons) == 1]
        out += [{"type": CRANIUM, "cards": [c]} for c in _distinct(hand)
                if len(ACTIONS[c].icons) == 2]
        out += [{"type": CRANIUM, "cards": list(p)} for p in combinations(ones, 2)]
    if NO_RESPONSE in kinds:
        out.append({"type": NO_RESPONSE})
    if PLACE_SHIP in kinds:
        out += [{"type": PLACE_SHIP, "ship": ship, "zone": zone}
                for ship in state["placing"]["ships"] for zone in open_zones(state, seat)]
    if DISCARD in kinds:
        out.append({"type": DISCARD, "cards": []})
        out += [{"type": DISCARD, "cards": [c]} for c in _distinct(hand)]
        if len(hand) > 1:
            out.append({"type": DISCARD, "cards": list(hand)})
    if TRANSFER_BLAST in kinds and has_power(state, seat, "brotherhood"):
        enemies = [ship for other in living(state) if other != seat
                   for ship, _ in fleet(state, other)]
        for ship, _ in fleet(state, seat):
            for blast, _ in state["under"].get(ship, ()):
                if kind(blast) in BLAST_KINDS:
                    out += [{"type": TRANSFER_BLAST, "ship": ship, "blast": blast,
                             "target": target} for target in enemies]
    if DRAW in kinds:
        out.append({"type": DRAW})
    if SALVAGE_BLASTS in kinds and has_power(state, seat, "kalgon"):
        blasts = [c for c in state["action_discard"] if kind(c) in BLAST_KINDS]
        out += [{"type": SALVAGE_BLASTS, "cards": [c]} for c in _distinct(blasts)]
        best = sorted(blasts, key=lambda c: -ACTIONS[c].damage)[:3]
        if len(best) > 1:
            out.append({"type": SALVAGE_BLASTS, "cards": best})
    if REINFORCE in kinds and open_zones(state, seat):
        pay = payments(hand)
        if can_draw_fleet(state):
            out += [{"type": REINFORCE, "cards": p, "ship": None} for p in pay]
        if pay and has_power(state, seat, "tribot"):
            out += [{"type": REINFORCE, "cards": pay[0], "ship": s}
                    for s in sorted(set(state["fleet_discard"]))]
    # Ending the maneuver comes before the moves: a ship may move back and forth, so a player
    # who always sends the first legal command must still get out of the phase.
    if END_PHASE in kinds and state["phase"] == "maneuver" and all(
            n <= ZONE_LIMIT for n in zone_counts(state, seat).values()):
        out.append({"type": END_PHASE})
    if MOVE in kinds and not under_effect(state, seat, "minefield"):
        for ship, zone in fleet(state, seat):
            origin = state["origins"].get(ship, zone)
            out += [{"type": MOVE, "ship": ship, "zone": z} for z in ZONES
                    if z != zone and distance(origin, z) <= speed(ship)]
    if RAID_HAND in kinds and has_power(state, seat, "freep"):
        out += [{"type": RAID_HAND, "seat": s} for s in living(state)
                if s != seat and state["hands"][s]]
    if END_PHASE in kinds and state["phase"] == "reinforce":
        out.append({"type": END_PHASE})
    if BLAST in kinds:
        out += _attack_commands(state, seat, hand)
    if END_TURN in kinds:
        out.append({"type": END_TURN})
    if PROPOSE_NO_MERCY in kinds:
        out.append({"type": PROPOSE_NO_MERCY})
    return out


def _attack_commands(state: State, seat: Seat, hand: list[str]) -> list[Command]:
    out: list[Command] = []
    cards = _distinct(hand)
    targets = _targets(state, seat)
    own = list(fleet(state, seat))
    mined = under_effect(state, seat, "minefield")
    dh = state["dh"]
    sound = SOUND if state["options"]["sound_effects"] != "off" else ""
    for card in cards:
        k = kind(card)
        if k in BLAST_KINDS and not mined:
            turret = ACTIONS[card].turret
            for ship, zone in own:
                if turret not in SHIPS[ship].turrets:
                    continue
                extra = dh is not None and dh["stage"] == "effect" and dh["ship"] == ship
                if not extra and not may_fire(state, seat, ship, turret):
                    continue
                out += [{"type": BLAST, "card": card, "ship": ship, "target": t, "sound": sound}
                        for owner, t, tz in targets
                        if _reachable(state, zone, owner, tz) and (not extra or t == dh["target"])]
        elif k in ("fighter", "bomber") and not mined:
            for carrier in carriers(state, seat):
                zone = locate(state, carrier)[1]
                for owner, t, tz in targets:
                    if k == "bomber":
                        ok = _reachable(state, zone, owner, tz)
                    else:
                        ok = tz is not None or any(not v for v in state["zones"][owner].values())
                    if ok:
                        out.append({"type": LAUNCH, "card": card, "carrier": carrier,
                                    "target": t})
        elif k == "direct_hit" and dh is not None and dh["stage"] == "hit":
            out.append({"type": DIRECT_HIT, "card": card})
        elif k in DH_EFFECTS and dh is not None:
            if dh["stage"] == "effect":
                out += _effects(state, seat, card, dh["target"], False)
            elif has_power(state, seat, "mazons"):
                out += _effects(state, seat, card, dh["target"], True)
        elif k in ATTACK_MISC:
            out += _misc(state, seat, card, k, own, targets, mined)
    for ship, _ in own:
        if is_minesweeper(state, seat, ship) and not state["fired"].get(ship):
            out += [{"type": SWEEP, "ship": ship, "card": e["card"]} for e in state["effects"]
                    if e["fleet"] == seat or attackable(state, seat, e["fleet"])]
    return out


def _effects(state: State, seat: Seat, card: str, target: str, power: bool) -> list[Command]:
    owner, tzone = locate(state, target)
    effect = kind(card)
    base = {"type": DH_EFFECT, "card": card, "zone": None, "moves": None, "power": power}
    if effect == "boarding_party":
        return [] if tzone is None else [{**base, "zone": z} for z in open_zones(state, seat)]
    if effect == "concussive_blast":
        if tzone is None:
            return []
        ships = state["zones"][owner][tzone]
        counts = zone_counts(state, owner)
        counts[tzone] = 0
        moves = {}
        for ship in ships:  # spread into the emptiest zones
            zone = min(ZONES, key=lambda z: (counts[z], z != tzone))
            counts[zone] += 1
            moves[ship] = zone
        return [{**base, "moves": moves}]
    return [base]


def _misc(state: State, seat: Seat, card: str, k: str, own: list[tuple[str, str]],
          targets: list[tuple[Seat, str, str | None]], mined: bool) -> list[Command]:
    base = {"type": PLAY_CARD, "card": card, "ship": None, "blast": None, "target": None,
            "seat": None}
    if k == "reinforcements":
        return [base] if open_zones(state, seat) and can_draw_fleet(state) else []
    if k == "strategic_allocation":
        return [base]
    if k == "spacedock":
        return [{**base, "ship": ship, "blast": blast} for ship, _ in own
                for blast, _ in state["under"].get(ship, ())]
    if k == "ramming_speed":
        if mined:
            return []
        return [{**base, "ship": ship, "target": t} for ship, zone in own
                for owner, t, tz in targets if _reachable(state, zone, owner, tz)]
    return [{**base, "seat": s} for s in living(state)]


def default(state: State, seat: Seat, prompt: Prompt | None) -> Command:
    kinds = prompt.kinds if prompt else ()
    if PLACE_FLEET in kinds:
        return {"type": PLACE_FLEET, "zones": dict(zip(ZONES, state["dealt"][seat][:4],
                                                       strict=True))}
    if REFUSE_NO_MERCY in kinds:
        return {"type": REFUSE_NO_MERCY}
    if STAY_SILENT in kinds:
        return {"type": STAY_SILENT}
    if NO_RESPONSE in kinds:
        return {"type": NO_RESPONSE}
    if PLACE_SHIP in kinds:
        return {"type": PLACE_SHIP, "ship": state["placing"]["ships"][0],
                "zone": open_zones(state, seat)[0]}
    if DISCARD in kinds:
        return {"type": DISCARD, "cards": []}
    if DRAW in kinds:
        return {"type": DRAW}
    if MOVE in kinds:
        fix = zone_fix(state, seat)
        if fix is not None and any(n > ZONE_LIMIT for n in zone_counts(state, seat).values()):
            return {"type": MOVE, "ship": fix[0], "zone": fix[1]}
    if END_PHASE in kinds:
        return {"type": END_PHASE}
    return {"type": END_TURN}


def explain(game: Game, state: State, command: Command, seat: Seat) -> list[str]:
    """The checks a command passed, in words (issue 10: turret match, zone, target exposed)."""
    lines = Game.explain(game, state, command, seat)
    try:
        events = game.decide(state, command, seat, Rng("explain"))
    except Rejected as exc:
        return [*lines, Text("Rejected ({code}): {message}", code=exc.code, message=exc.message)]
    kind_ = command.get("type")
    if kind_ in (BLAST, LAUNCH) or (kind_ == PLAY_CARD
                                    and kind(command["card"]) == "ramming_speed"):
        card = command["card"]
        ship = command.get("ship") or command.get("carrier")
        target = command["target"]
        owner, tzone = locate(state, target)
        szone = locate(state, ship)[1]
        lines.append(Text("{card} was in seat {seat}'s hand; {ship} is in its {zone} zone.",
                          card=card, seat=seat, ship=ship, zone=szone))
        if kind_ == BLAST:
            lines.append(Text("Turret match: {ship} carries a {turret} turret, and had not fired "
                              "it this turn (or fired the extra Blast of a Direct Hit).",
                              ship=ship, turret=ACTIONS[card].turret))
        if kind_ == LAUNCH:
            lines.append(Text("{ship} is a carrier (or has the carrier ability).", ship=ship))
        lines.append(Text("Target {target} belongs to seat {owner}, which seat {seat} may attack "
                          "({attack_mode}), and no Asteroids shield it.", target=target,
                          owner=owner, seat=seat, attack_mode=state["options"]["attack_mode"]))
        if tzone is None:
            lines.append(Text("Target exposed: seat {owner}'s command ship, reachable through an "
                              "empty zone.", owner=owner))
        else:
            lines.append(Text("Zone: the target is in seat {owner}'s {zone} zone, within reach.",
                              owner=owner, zone=tzone))
        if kind_ == BLAST and state["options"]["sound_effects"] != "off":
            lines.append(Text("Sound effect: {sound!r}.", sound=command.get("sound")))
    elif kind_ == MOVE:
        lines.append(Text("{ship} has speed {speed}: the move is within that many zone steps "
                          "of where it began the maneuver.", ship=command["ship"],
                          speed=SHIPS[command["ship"]].speed))
    elif kind_ in (RESPOND, CRANIUM):
        link = chain.top(state)
        lines.append(Text("Seat {seat} was the seat asked: the first in turn order after seat "
                          "{after} that had not passed and whom the rules let answer {card} "
                          "(magblast.md §4c; asked whatever its hand holds).", seat=seat,
                          after=link["seat"], card=link["card"]))
        lines.append(Text("Temporal Flux answers an opponent's action card; Evasive Action, an "
                          "intercepting Fighter or Cranium Consortium answer an attack on your "
                          "own ship (magblast.md §4c)."))
    elif kind_ == REINFORCE:
        lines.append(Text("The cards paid show 3 icons of one kind or one of each, and every "
                          "card was needed; a zone had room."))
    lines.extend(Text("Then: {event}", event=e.type) for e in events)
    return lines

