"""Setup and phases 1-4 of a turn, the end of a turn and No Mercy (KR 게임 준비, 차례 진행;
magblast.md §1, §6.2). The attack phase is attack.py."""

from __future__ import annotations

from games.core import Seat, ensure
from games.magblast.data import BLAST_KINDS, HAND_SIZE, ZONE_LIMIT, ZONES, distance, kind
from games.magblast.model import (
    BLASTS_SALVAGED,
    CARDS_DISCARDED,
    DAMAGE_MOVED,
    EFFECT_EXPIRED,
    FLEET_DRAWN,
    FLEET_PLACED,
    FLEETS_REVEALED,
    HAND_RAIDED,
    NO_MERCY_AGREED,
    NO_MERCY_PROPOSED,
    NO_MERCY_REFUSED,
    PHASE_STARTED,
    POWER_USED,
    REINFORCEMENT_PAID,
    SHIP_MOVED,
    SHIP_PLACED,
    TURN_ENDED,
    TURN_STARTED,
)
from games.magblast.table import (
    Draft,
    after,
    can_draw_fleet,
    destroy_if_dead,
    draw_actions,
    draw_fleet,
    fleet,
    fleet_hull,
    has_power,
    living,
    locate,
    open_zones,
    pays,
    speed,
    standing_hull,
    under_effect,
    zone_counts,
)

# --- setup --------------------------------------------------------------------------------------


def place_fleet(draft: Draft, seat: Seat, zones: dict[str, str]) -> None:
    """KR 게임 준비 3: four of the six dealt ships face down, one per zone; when everyone has
    chosen, all are revealed together and the other two go to the fleet discard."""
    state = draft.state
    ensure(str(seat) not in state["placed"], "already_placed", "Your fleet is already placed.")
    ensure(set(zones) == set(ZONES), "one_per_zone", "Place one ship in each of the four zones.")
    ships = list(zones.values())
    ensure(len(set(ships)) == 4 and all(s in state["dealt"][seat] for s in ships),
           "not_dealt", "Place four different ships of the six you were dealt.")
    draft.emit(FLEET_PLACED, seat=seat, zones={z: zones[z] for z in ZONES})
    state = draft.state
    if len(state["placed"]) < state["seats"]:
        return
    placed = [state["placed"][str(s)] for s in range(state["seats"])]
    draft.emit(FLEETS_REVEALED, zones=placed,
               discarded=[[s for s in state["dealt"][i] if s not in placed[i].values()]
                          for i in range(state["seats"])])
    # KR 게임 준비 5: the lowest fleet hull starts; a tie is broken at random (decisions block).
    hulls = [fleet_hull(draft.state, s) for s in range(state["seats"])]
    tied = [s for s, h in enumerate(hulls) if h == min(hulls)]
    first = tied[0] if len(tied) == 1 else draft.rng.choice(tied)
    start_turn(draft, first, tied=tied, hulls=hulls)


def start_turn(draft: Draft, seat: Seat, **why: object) -> None:
    """A turn begins: the player's Asteroids and Minefields end (§4b 'until the start of your
    next turn'); a first turn skips the discard and draw phases (KR 참고)."""
    for effect in [e for e in draft.state["effects"] if e["by"] == seat]:
        draft.emit(EFFECT_EXPIRED, card=effect["card"], fleet=effect["fleet"])
    state = draft.state
    phase = "discard" if state["started"][seat] else "reinforce"
    draft.emit(TURN_STARTED, seat=seat, turn=state["turn_number"] + 1, phase=phase, **why)


def _this_turn(draft: Draft, seat: Seat, phase: str) -> None:
    state = draft.state
    ensure(state["turn"] == seat and state["phase"] == phase and state["placing"] is None
           and state["chain"] is None, "wrong_phase", "That is done in your {phase} phase.",
           params={"phase": phase})


# --- phases 1 and 2 -----------------------------------------------------------------------------

def discard(draft: Draft, seat: Seat, cards: list[str]) -> None:
    """Phase 1: discard any number of cards, then draw (phase 2)."""
    _this_turn(draft, seat, "discard")
    hand = draft.state["hands"][seat]
    ensure(len(set(cards)) == len(cards) and all(c in hand for c in cards), "card_not_in_hand",
           "Those cards are not all in your hand.")
    if cards:
        draft.emit(CARDS_DISCARDED, seat=seat, cards=list(cards), reason="discard_phase")
    state = draft.state
    if has_power(state, seat, "kalgon") and any(kind(c) in BLAST_KINDS
                                                 for c in state["action_discard"]):
        draft.emit(PHASE_STARTED, seat=seat, phase="draw")
        return
    _draw_up(draft, seat)


def _draw_up(draft: Draft, seat: Seat) -> None:
    """Phase 2: draw up to 5; nothing with 5 or more (KR 2단계)."""
    missing = HAND_SIZE - len(draft.state["hands"][seat])
    if missing > 0:
        draw_actions(draft, seat, missing, "draw_phase")
    draft.emit(PHASE_STARTED, seat=seat, phase="reinforce")


def draw(draft: Draft, seat: Seat) -> None:
    _this_turn(draft, seat, "draw")
    _draw_up(draft, seat)


def salvage(draft: Draft, seat: Seat, cards: list[str]) -> None:
    """Overseers of Kalgon (§2 #1): instead of drawing, up to 3 Blasts from the discard pile."""
    _this_turn(draft, seat, "draw")
    state = draft.state
    ensure(has_power(state, seat, "kalgon"), "no_power", "You have no such power left.")
    ensure(1 <= len(cards) <= 3 and len(set(cards)) == len(cards)
           and all(c in state["action_discard"] and kind(c) in BLAST_KINDS for c in cards),
           "not_in_discard", "Name 1 to 3 Blast cards in the action discard pile.")
    draft.emit(POWER_USED, seat=seat, power="kalgon")
    draft.emit(BLASTS_SALVAGED, seat=seat, cards=list(cards))
    draft.emit(PHASE_STARTED, seat=seat, phase="reinforce")


def transfer_blast(draft: Draft, seat: Seat, ship: str, blast: str, target: str) -> None:
    """Brotherhood of Peace (§2 #9): in the discard phase, move one Blast (the player chooses
    which) from one of your fleet ships onto an opponent's fleet ship."""
    _this_turn(draft, seat, "discard")
    state = draft.state
    ensure(has_power(state, seat, "brotherhood"), "no_power", "You have no such power left.")
    where = locate(state, ship)
    ensure(where is not None and where[0] == seat and where[1] is not None, "not_your_ship",
           "That is not a ship of your fleet.")
    ensure(blast in [c for c, _ in state["under"].get(ship, ())]
           and kind(blast) in BLAST_KINDS, "no_such_damage", "That Blast is not under that ship.")
    there = locate(state, target)
    ensure(there is not None and there[0] != seat and there[1] is not None, "not_an_enemy_ship",
           "Move it onto an opponent's fleet ship.")
    draft.emit(POWER_USED, seat=seat, power="brotherhood")
    draft.emit(DAMAGE_MOVED, seat=seat, blast=blast, ship=ship, target=target)
    destroy_if_dead(draft, target)


# --- phase 3: reinforce -------------------------------------------------------------------------

def reinforce(draft: Draft, seat: Seat, cards: list[str], ship: str | None) -> None:
    """KR 3단계: pay 3 alike or one of each resource for the top fleet ship (Tri-Bot: any ship
    of the fleet discard). Every card paid must be needed."""
    _this_turn(draft, seat, "reinforce")
    state = draft.state
    hand = state["hands"][seat]
    ensure(len(set(cards)) == len(cards) and all(c in hand for c in cards), "card_not_in_hand",
           "Those cards are not all in your hand.")
    ensure(pays(cards), "cannot_pay", "Pay 3 icons of one kind or one star, circle and diamond.")
    ensure(all(not pays([c for c in cards if c != card]) for card in cards), "overpaid",
           "Pay with only the cards needed.")
    ensure(bool(open_zones(state, seat)), "fleet_full", "Every zone of yours holds 3 ships.")
    if ship is not None:
        ensure(has_power(state, seat, "tribot"), "no_power", "You have no such power left.")
        ensure(ship in state["fleet_discard"], "not_in_discard",
               "That ship is not in the fleet discard pile.")
    else:
        ensure(can_draw_fleet(state), "fleet_deck_empty", "There is no fleet ship to draw.")
    draft.emit(REINFORCEMENT_PAID, seat=seat, cards=list(cards))
    if ship is not None:
        draft.emit(POWER_USED, seat=seat, power="tribot")
        draft.emit(FLEET_DRAWN, seat=seat, ships=[ship], source="discard", then="reinforce")
    else:
        draw_fleet(draft, seat, then="reinforce")


def place_ship(draft: Draft, seat: Seat, ship: str, zone: str) -> None:
    """The drawn ship goes to a zone with fewer than 3 ships; Mhee's other draw is discarded."""
    placing = draft.state["placing"]
    ensure(placing is not None and placing["seat"] == seat, "nothing_to_place",
           "You have no drawn ship to place.")
    ensure(ship in placing["ships"], "not_drawn", "Place the ship you drew.", ship=ship)
    ensure(zone in open_zones(draft.state, seat), "zone_full", "That zone holds 3 ships.",
           zone=zone)
    draft.emit(SHIP_PLACED, seat=seat, ship=ship, zone=zone,
               discarded=[s for s in placing["ships"] if s != ship])


# --- phase 4: maneuver --------------------------------------------------------------------------

def move(draft: Draft, seat: Seat, ship: str, zone: str) -> None:
    """KR 4단계: a ship moves up to its speed in steps through adjacent zones, counted from
    where it began the phase; zones may hold more than 3 until the phase ends."""
    _this_turn(draft, seat, "maneuver")
    state = draft.state
    where = locate(state, ship)
    ensure(where is not None and where[0] == seat and where[1] is not None, "not_your_ship",
           "That is not a ship of your fleet.")
    ensure(not under_effect(state, seat, "minefield"), "minefield",
           "Your fleet is in a Minefield: it cannot maneuver.")
    ensure(where[1] != zone, "same_zone", "The ship is already there.")
    origin = state["origins"].get(ship, where[1])
    ensure(distance(origin, zone) <= speed(ship), "too_far",
           "That ship moves {speed} zone step(s) per maneuver.", speed=speed(ship))
    draft.emit(SHIP_MOVED, seat=seat, ship=ship, zone=zone, origin=where[1])


def end_phase(draft: Draft, seat: Seat) -> None:
    state = draft.state
    ensure(state["turn"] == seat and state["phase"] in ("reinforce", "maneuver")
           and state["placing"] is None and state["chain"] is None, "wrong_phase",
           "Only the reinforce and maneuver phases end this way.")
    if state["phase"] == "reinforce":
        draft.emit(PHASE_STARTED, seat=seat, phase="maneuver")
        return
    over = over_limit(state, seat)
    ensure(not over, "zone_over_limit",
           "When the maneuver ends, each zone holds 3 ships at most.", zones=over)
    draft.emit(PHASE_STARTED, seat=seat, phase="attack")


def over_limit(state: dict, seat: Seat) -> list[str]:
    """The zones where ``seat`` has more than 3 ships in its maneuver phase (KR: "이동이 다 끝난
    뒤에는 전투함이 한 구역당 3척까지만 놓여 있어야 해요", once all moves are done each zone holds
    3 ships at most); empty outside its maneuver."""
    if state["phase"] != "maneuver" or state["turn"] != seat:
        return []
    return [z for z, n in zone_counts(state, seat).items() if n > ZONE_LIMIT]


def raid_hand(draft: Draft, seat: Seat, target: Seat) -> None:
    """Freep (§2 #4): in your maneuver phase, 3 random cards from another player's hand."""
    _this_turn(draft, seat, "maneuver")
    state = draft.state
    ensure(has_power(state, seat, "freep"), "no_power", "You have no such power left.")
    ensure(0 <= target < state["seats"] and target != seat and state["alive"][target],
           "no_such_seat", "Name another player still in the game.")
    ensure(bool(state["hands"][target]), "empty_hand", "That player has no cards.")
    draft.emit(POWER_USED, seat=seat, power="freep")
    draft.emit(HAND_RAIDED, seat=seat, target=target,
               cards=draft.rng.shuffled(state["hands"][target])[:3], reason="freep")


# --- end of turn, No Mercy ----------------------------------------------------------------------

def end_turn(draft: Draft, seat: Seat, following: Seat | None = None) -> None:
    """§5: temporary damage clears, squadrons return to their owners, turrets reset; the next
    living player clockwise starts."""
    state = draft.state
    ensure(state["turn"] == seat and state["phase"] == "attack" and state["placing"] is None
           and state["chain"] is None, "wrong_phase", "End your turn in your attack phase.")
    _finish_turn(draft, seat, following)


def _finish_turn(draft: Draft, seat: Seat, following: Seat | None) -> None:
    draft.emit(TURN_ENDED, seat=seat, returning=list(draft.state["returning"]))
    if following is None:
        following = after(draft.state, seat)[0]
    start_turn(draft, following)


def may_propose(draft_state: dict, seat: Seat) -> bool:
    state = draft_state
    return (state["options"]["no_mercy"] and not state["no_mercy"] and state["turn"] == seat
            and len(living(state)) == 2 and state["proposal"] is None
            and state["phase"] in ("discard", "reinforce", "maneuver", "attack")
            and state["placing"] is None and state["chain"] is None and state["dh"] is None
            # issue 24 point 10: agreeing ends the turn, so the maneuver's zone limit must hold
            and not over_limit(state, seat))


def propose_no_mercy(draft: Draft, seat: Seat) -> None:
    """KR 자비심 없는 포격: offered when two remain; the current player proposes."""
    ensure(may_propose(draft.state, seat), "cannot_propose",
           "No Mercy is proposed by the current player when two remain, once a turn.")
    draft.emit(NO_MERCY_PROPOSED, seat=seat)


def answer_no_mercy(draft: Draft, seat: Seat, agree: bool) -> None:
    """Both must agree; then the turn order restarts with the lowest standing hull (command
    ship included, damage taken off; a tie at random). The current turn ends there."""
    state = draft.state
    proposal = state["proposal"]
    ensure(proposal is not None and not proposal["refused"] and proposal["by"] != seat,
           "nothing_proposed", "No proposal is waiting for you.")
    if not agree:
        draft.emit(NO_MERCY_REFUSED, seat=seat)
        return
    over = over_limit(state, state["turn"])
    ensure(not over, "zone_over_limit",
           "No Mercy would end the turn with a zone over 3 ships (the maneuver's limit).",
           zones=over)
    seats = living(state)
    hulls = {s: standing_hull(state, s) for s in seats}
    low = min(hulls.values())
    tied = [s for s in seats if hulls[s] == low]
    first = tied[0] if len(tied) == 1 else draft.rng.choice(tied)
    draft.emit(NO_MERCY_AGREED, seat=seat, first=first, hulls={str(s): h for s, h in hulls.items()})
    _finish_turn(draft, state["turn"], first)


def zone_fix(state: dict, seat: Seat) -> tuple[str, str] | None:
    """A move that undoes one maneuver (the default command when a zone is over the limit)."""
    for ship, zone in fleet(state, seat):
        origin = state["origins"].get(ship)
        if origin is not None and origin != zone:
            return ship, origin
    return None


